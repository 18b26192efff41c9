//! The glob dialect of `docs/domains/permission-policy.md` (PERM-11..PERM-19),
//! matched by hand on `char`s: no regex translation, no glob library.

/// One `[...]` or `[!...]`: single members and inclusive ranges (PERM-14..PERM-16).
#[derive(Debug, Clone, PartialEq, Eq)]
struct CharSet {
    negated: bool,
    chars: Vec<char>,
    ranges: Vec<(char, char)>,
}

impl CharSet {
    fn matches(&self, ch: char) -> bool {
        let hit =
            self.chars.contains(&ch) || self.ranges.iter().any(|&(lo, hi)| lo <= ch && ch <= hi);
        hit != self.negated
    }
}

#[derive(Debug, Clone, PartialEq, Eq)]
enum Token {
    /// `*`: any run of code points (PERM-12).
    Star,
    /// `?`: exactly one code point (PERM-13).
    Any,
    /// A set (PERM-14).
    Set(CharSet),
    /// A code point matching itself (PERM-18).
    Literal(char),
}

impl Token {
    fn matches_one(&self, ch: char) -> bool {
        match self {
            Self::Star | Self::Any => true,
            Self::Set(set) => set.matches(ch),
            Self::Literal(lit) => *lit == ch,
        }
    }
}

/// A compiled pattern; every string is a valid pattern (PERM-17).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Glob {
    pattern: String,
    tokens: Vec<Token>,
}

/// Parse the set whose `[` is at `chars[start]`; `None` if it never closes (PERM-17).
/// On success, also returns the index just past the closing `]`.
fn parse_set(chars: &[char], start: usize) -> Option<(CharSet, usize)> {
    let mut i = start + 1;
    let negated = chars.get(i) == Some(&'!');
    if negated {
        i += 1;
    }
    let body_start = i;
    if chars.get(i) == Some(&']') {
        i += 1; // a `]` first in the set is a member (PERM-16)
    }
    let end = i + chars.get(i..)?.iter().position(|&c| c == ']')?;
    let body = chars.get(body_start..end)?;
    let mut set = CharSet {
        negated,
        chars: Vec::new(),
        ranges: Vec::new(),
    };
    let mut k = 0;
    while let Some(&first) = body.get(k) {
        if let (Some('-'), Some(&last)) = (body.get(k + 1), body.get(k + 2)) {
            // A reversed range matches nothing (PERM-15), so it is dropped.
            if first <= last {
                set.ranges.push((first, last));
            }
            k += 3;
        } else {
            set.chars.push(first);
            k += 1;
        }
    }
    Some((set, end + 1))
}

impl Glob {
    /// Compile `pattern` (PERM-11). Never fails: an unclosed `[` is a literal.
    pub fn new(pattern: &str) -> Self {
        let chars: Vec<char> = pattern.chars().collect();
        let mut tokens = Vec::new();
        let mut i = 0;
        while let Some(&ch) = chars.get(i) {
            match ch {
                '*' => {
                    if tokens.last() != Some(&Token::Star) {
                        tokens.push(Token::Star); // `**` is `*`
                    }
                    i += 1;
                }
                '?' => {
                    tokens.push(Token::Any);
                    i += 1;
                }
                '[' => {
                    if let Some((set, next)) = parse_set(&chars, i) {
                        tokens.push(Token::Set(set));
                        i = next;
                    } else {
                        tokens.push(Token::Literal('['));
                        i += 1;
                    }
                }
                _ => {
                    tokens.push(Token::Literal(ch));
                    i += 1;
                }
            }
        }
        Self {
            pattern: pattern.to_owned(),
            tokens,
        }
    }

    /// The pattern as given.
    pub fn pattern(&self) -> &str {
        &self.pattern
    }

    /// True if the pattern matches the whole of `name` (PERM-11).
    ///
    /// Two pointers, backtracking only to the most recent `*`: O(m·n) at worst (PERM-19).
    pub fn matches(&self, name: &str) -> bool {
        let name: Vec<char> = name.chars().collect();
        let tokens = &self.tokens;
        let (mut p, mut s) = (0usize, 0usize);
        let mut star: Option<(usize, usize)> = None;
        while let Some(&ch) = name.get(s) {
            match tokens.get(p) {
                Some(Token::Star) => {
                    star = Some((p, s));
                    p += 1;
                }
                Some(token) if token.matches_one(ch) => {
                    p += 1;
                    s += 1;
                }
                _ => match star {
                    Some((star_p, star_s)) => {
                        star = Some((star_p, star_s + 1));
                        p = star_p + 1;
                        s = star_s + 1;
                    }
                    None => return false,
                },
            }
        }
        while tokens.get(p) == Some(&Token::Star) {
            p += 1;
        }
        p == tokens.len()
    }
}

/// True if glob `pattern` matches the whole of `name` (PERM-11..PERM-19).
pub fn glob_match(pattern: &str, name: &str) -> bool {
    Glob::new(pattern).matches(name)
}

#[cfg(test)]
mod tests {
    use super::glob_match;

    #[test]
    fn wildcards() {
        assert!(glob_match("mcp__*", "mcp__"));
        assert!(glob_match("*", "a.b/c\n"));
        assert!(glob_match("?", "\u{1F600}"));
        assert!(!glob_match("??", "\u{1F600}"));
        assert!(glob_match("", ""));
        assert!(!glob_match("", "x"));
        assert!(glob_match("**", ""));
    }

    #[test]
    fn sets() {
        assert!(glob_match("[]]", "]"));
        assert!(!glob_match("[!]]", "]"));
        assert!(glob_match("[!]]", "a"));
        assert!(glob_match("[]-a]", "_"));
        assert!(glob_match("[-a]", "-") && glob_match("[a-]", "-"));
        assert!(glob_match("[a-c-e]", "-") && !glob_match("[a-c-e]", "d"));
        assert!(!glob_match("[z-a]", "m") && glob_match("[z-ax]", "x"));
        assert!(glob_match("[!z-a]", "q"));
        assert!(glob_match("[z-a!]", "!") && !glob_match("[z-a!]", "x"));
        assert!(glob_match("[^a]", "^") && !glob_match("[^a]", "b"));
        assert!(glob_match("[\u{1F600}-\u{1F602}]", "\u{1F601}"));
    }

    #[test]
    fn literals() {
        for (pattern, name) in [
            ("[", "["),
            ("[]", "[]"),
            ("[!]", "[!]"),
            ("fs[read", "fs[read"),
            ("{a,b}", "{a,b}"),
        ] {
            assert!(glob_match(pattern, name), "{pattern}");
        }
        assert!(glob_match("\\*", "\\x") && !glob_match("\\*", "*"));
        assert!(!glob_match("{a,b}", "a"));
    }

    #[test]
    fn pathological_pattern_is_polynomial() {
        let name = "a".repeat(5000);
        assert!(!glob_match("*a*a*a*a*a*a*a*a*b", &name));
        assert!(glob_match("*a*a*a*a*a*a*a*a*b", &(name + "b")));
    }
}
