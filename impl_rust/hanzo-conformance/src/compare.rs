//! Comparing an actual output with a vector's expected output.
//!
//! Implements the `comparison` rules of `docs/architecture.md` ("Vector files"):
//!
//! - values are compared exactly: same JSON types, same object keys, same array
//!   lengths; an integer-valued float equals the integer (`1.0 == 1`);
//! - `ignore` skips the value at a path (its presence too) when the object holding
//!   it in the *expected* output has every key/value of `where`;
//! - when several rules name a path, the first one in force wins (as in
//!   `runners/_compare.py`); array items are compared index by index, so a length
//!   difference shows as absent items;
//! - `at-most` turns the expected number at a path into an upper bound
//!   (`0 <= actual <= expected`), for cases whose input matches `when` and has
//!   none of the pointers in `unless`.
//!
//! Paths are JSON pointers whose segments may be `*` (any array index or object key).
//! Every difference is collected, not just the first.

use serde_json::{Map, Number, Value};

/// One segment of a rule's path: a literal key/index, or `*`.
#[derive(Debug, Clone, PartialEq, Eq)]
enum Segment {
    Any,
    Key(String),
}

/// A JSON pointer whose segments may be the wildcard `*`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Pattern {
    segments: Vec<Segment>,
}

impl Pattern {
    /// Parse a JSON pointer (`""`, `"/a/*/b"`, with `~0`/`~1` escapes).
    ///
    /// # Errors
    /// A message when `text` is not a JSON pointer (non-empty without a leading `/`,
    /// or a `~` not followed by `0` or `1`).
    pub fn parse(text: &str) -> Result<Self, String> {
        if text.is_empty() {
            return Ok(Self {
                segments: Vec::new(),
            });
        }
        let Some(rest) = text.strip_prefix('/') else {
            return Err(format!(
                "{text:?} is not a JSON pointer: it must start with '/'"
            ));
        };
        let segments = rest
            .split('/')
            .map(|raw| {
                if raw == "*" {
                    Ok(Segment::Any)
                } else {
                    unescape(raw).map(Segment::Key).ok_or_else(|| {
                        format!("{text:?} is not a JSON pointer: bad '~' escape in {raw:?}")
                    })
                }
            })
            .collect::<Result<Vec<_>, _>>()?;
        Ok(Self { segments })
    }

    /// Whether this pattern names the location `path` (segments already unescaped).
    fn matches(&self, path: &[String]) -> bool {
        self.segments.len() == path.len()
            && self
                .segments
                .iter()
                .zip(path)
                .all(|(segment, part)| match segment {
                    Segment::Any => true,
                    Segment::Key(key) => key == part,
                })
    }

    /// Every value in `root` this pattern names (none, one, or several through `*`).
    pub fn select<'a>(&self, root: &'a Value) -> Vec<&'a Value> {
        let mut current = vec![root];
        for segment in &self.segments {
            let mut next = Vec::new();
            for value in current {
                match (segment, value) {
                    (Segment::Any, Value::Array(items)) => next.extend(items.iter()),
                    (Segment::Any, Value::Object(map)) => next.extend(map.values()),
                    (Segment::Key(key), Value::Object(map)) => next.extend(map.get(key)),
                    (Segment::Key(key), Value::Array(items)) => {
                        next.extend(array_index(key).and_then(|i| items.get(i)));
                    }
                    _ => {}
                }
            }
            current = next;
        }
        current
    }
}

/// A pointer naming one value of a case's input (`when`/`unless`): no `*` segment.
fn input_pointer(text: &str) -> Result<Pattern, String> {
    let pattern = Pattern::parse(text)?;
    if pattern.segments.contains(&Segment::Any) {
        return Err(format!(
            "{text:?}: `*` is not defined in `when`/`unless` pointers"
        ));
    }
    Ok(pattern)
}

/// An array index as RFC 6901 spells it: `0` or digits without a leading zero.
fn array_index(key: &str) -> Option<usize> {
    let canonical = key == "0" || (!key.starts_with('0') && !key.is_empty());
    if canonical && key.bytes().all(|b| b.is_ascii_digit()) {
        key.parse().ok()
    } else {
        None
    }
}

fn unescape(raw: &str) -> Option<String> {
    let mut out = String::with_capacity(raw.len());
    let mut chars = raw.chars();
    while let Some(c) = chars.next() {
        if c == '~' {
            match chars.next() {
                Some('0') => out.push('~'),
                Some('1') => out.push('/'),
                _ => return None,
            }
        } else {
            out.push(c);
        }
    }
    Some(out)
}

/// Format a location as a JSON pointer (`""` for the root).
pub fn pointer(path: &[String]) -> String {
    path.iter().fold(String::new(), |mut acc, part| {
        acc.push('/');
        acc.push_str(&part.replace('~', "~0").replace('/', "~1"));
        acc
    })
}

/// One `comparison` rule of a vector file.
#[derive(Debug, Clone, PartialEq)]
pub enum Rule {
    /// Skip the value at `path` when its holder in the expected output has every
    /// key/value of `where_` (always, when `where_` is empty).
    Ignore {
        /// Where the skipped values are.
        path: Pattern,
        /// Key/values the holding object must have.
        where_: Map<String, Value>,
    },
    /// The expected number at `path` is an upper bound for the actual one.
    AtMost {
        /// Where the bounded values are.
        path: Pattern,
        /// Input pointers and the values they must have for the rule to apply.
        when: Vec<(Pattern, Value)>,
        /// Input pointers that, when present, turn the rule off.
        unless: Vec<Pattern>,
    },
}

impl Rule {
    /// Parse one rule as it appears in a vector file's `comparison` array,
    /// refusing every form `tests/tables/comparison.json` does not define (as
    /// `schemas/vector-file.schema.json` does).
    ///
    /// # Errors
    /// A message naming what is malformed (unknown `kind` or key, bad pointer,
    /// `*` in `when`/`unless`, a non-scalar `where`/`when` value, wrong type).
    pub fn from_json(rule: &Value) -> Result<Self, String> {
        let obj = rule
            .as_object()
            .ok_or_else(|| format!("rule {rule} is not an object"))?;
        let path = match obj.get("path") {
            Some(Value::String(p)) => Pattern::parse(p)?,
            _ => return Err(format!("rule {rule} has no string \"path\"")),
        };
        let allowed: &[&str] = match obj.get("kind").and_then(Value::as_str) {
            Some("ignore") => &["kind", "path", "where"],
            Some("at-most") => &["kind", "path", "when", "unless"],
            _ => return Err(format!("rule {rule} has an unknown \"kind\"")),
        };
        if let Some(key) = obj.keys().find(|k| !allowed.contains(&k.as_str())) {
            return Err(format!("rule {rule}: unknown key {key:?}"));
        }
        let scalar = |v: &Value| !matches!(v, Value::Array(_) | Value::Object(_));
        if obj.get("kind").and_then(Value::as_str) == Some("ignore") {
            let where_ = match obj.get("where") {
                None => Map::new(),
                Some(Value::Object(w)) if w.values().all(scalar) => w.clone(),
                Some(_) => {
                    return Err(format!(
                        "rule {rule}: \"where\" must be an object of JSON scalars"
                    ))
                }
            };
            return Ok(Self::Ignore { path, where_ });
        }
        let when = match obj.get("when") {
            None => Vec::new(),
            Some(Value::Object(w)) if w.values().all(scalar) => w
                .iter()
                .map(|(p, v)| Ok((input_pointer(p)?, v.clone())))
                .collect::<Result<_, String>>()?,
            Some(_) => {
                return Err(format!(
                    "rule {rule}: \"when\" must be an object of JSON scalars"
                ))
            }
        };
        let unless = match obj.get("unless") {
            None => Vec::new(),
            Some(Value::Array(u)) => u
                .iter()
                .map(|p| match p {
                    Value::String(p) => input_pointer(p),
                    _ => Err(format!("rule {rule}: \"unless\" must hold strings")),
                })
                .collect::<Result<_, _>>()?,
            Some(_) => return Err(format!("rule {rule}: \"unless\" must be an array")),
        };
        Ok(Self::AtMost { path, when, unless })
    }

    /// Whether this rule is in force for a case with this input (`at-most` rules
    /// depend on `when`/`unless`; `ignore` rules always are).
    fn applies_to(&self, input: &Value) -> bool {
        match self {
            Self::Ignore { .. } => true,
            Self::AtMost { when, unless, .. } => {
                when.iter().all(|(pattern, wanted)| {
                    let found = pattern.select(input);
                    !found.is_empty() && found.iter().all(|v| json_eq(v, wanted))
                }) && unless
                    .iter()
                    .all(|pattern| pattern.select(input).is_empty())
            }
        }
    }
}

/// A vector file's `comparison` rules.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Rules {
    rules: Vec<Rule>,
}

impl Rules {
    /// Parse the `comparison` array of a vector file (`None` when absent).
    ///
    /// # Errors
    /// The first malformed rule's message.
    pub fn from_json(comparison: Option<&Value>) -> Result<Self, String> {
        match comparison {
            None => Ok(Self::default()),
            Some(Value::Array(items)) => Ok(Self {
                rules: items
                    .iter()
                    .map(Rule::from_json)
                    .collect::<Result<_, _>>()?,
            }),
            Some(other) => Err(format!("\"comparison\" must be an array, got {other}")),
        }
    }

    /// Compare `actual` with `expected` for a case whose input is `input`.
    ///
    /// Returns every difference (empty when they match).
    pub fn compare(&self, input: &Value, expected: &Value, actual: &Value) -> Vec<Difference> {
        let active: Vec<&Rule> = self.rules.iter().filter(|r| r.applies_to(input)).collect();
        let mut cmp = Comparer {
            rules: &active,
            path: Vec::new(),
            differences: Vec::new(),
        };
        cmp.value(Some(expected), Some(actual), None);
        cmp.differences
    }
}

/// One place where the actual output differs from the expected output.
#[derive(Debug, Clone, PartialEq)]
pub struct Difference {
    /// JSON pointer into the output.
    pub pointer: String,
    /// The expected value there (`None`: the expected output has nothing there).
    pub expected: Option<Value>,
    /// The actual value there (`None`: the actual output has nothing there).
    pub actual: Option<Value>,
    /// Why it is a difference, when plain inequality would not say (e.g. "not within [0, 3]").
    pub note: Option<String>,
}

struct Comparer<'r> {
    rules: &'r [&'r Rule],
    path: Vec<String>,
    differences: Vec<Difference>,
}

impl<'r> Comparer<'r> {
    fn differ(&mut self, expected: Option<&Value>, actual: Option<&Value>, note: Option<String>) {
        self.differences.push(Difference {
            pointer: pointer(&self.path),
            expected: expected.cloned(),
            actual: actual.cloned(),
            note,
        });
    }

    /// The first active rule naming the current path; an `ignore` rule with a
    /// `where` counts only when `holder` (the expected value's container) has
    /// every key/value of `where`.
    fn rule_here(&self, holder: Option<&Value>) -> Option<&'r Rule> {
        self.rules.iter().copied().find(|rule| match rule {
            Rule::Ignore { path, where_ } => {
                path.matches(&self.path)
                    && (where_.is_empty()
                        || holder.and_then(Value::as_object).is_some_and(|h| {
                            where_
                                .iter()
                                .all(|(k, v)| h.get(k).is_some_and(|hv| json_eq(hv, v)))
                        }))
            }
            Rule::AtMost { path, .. } => path.matches(&self.path),
        })
    }

    /// Compare the values at the current path (`None`: nothing there).
    fn value(&mut self, expected: Option<&Value>, actual: Option<&Value>, holder: Option<&Value>) {
        match self.rule_here(holder) {
            Some(Rule::Ignore { .. }) => return,
            Some(Rule::AtMost { .. }) => {
                let ok = match (expected, actual) {
                    (Some(Value::Number(bound)), Some(Value::Number(n))) => n
                        .as_f64()
                        .is_some_and(|a| (0.0..=bound_f64(bound)).contains(&a)),
                    _ => false,
                };
                if !ok {
                    let bound = expected.map_or_else(|| "(absent)".to_owned(), Value::to_string);
                    let note = format!("must be a number within [0, {bound}]");
                    self.differ(expected, actual, Some(note));
                }
                return;
            }
            None => {}
        }
        match (expected, actual) {
            (Some(whole @ Value::Object(e)), Some(Value::Object(a))) => {
                let mut keys: Vec<&String> = e.keys().collect();
                keys.extend(a.keys().filter(|k| !e.contains_key(*k)));
                for key in keys {
                    self.path.push(key.clone());
                    self.value(e.get(key), a.get(key), Some(whole));
                    self.path.pop();
                }
            }
            (Some(whole @ Value::Array(e)), Some(Value::Array(a))) => {
                for index in 0..e.len().max(a.len()) {
                    self.path.push(index.to_string());
                    self.value(e.get(index), a.get(index), Some(whole));
                    self.path.pop();
                }
            }
            (Some(e), Some(a)) if json_eq(e, a) => {}
            _ => self.differ(expected, actual, None),
        }
    }
}

fn bound_f64(n: &Number) -> f64 {
    n.as_f64().unwrap_or(f64::NAN)
}

fn as_int(n: &Number) -> Option<i128> {
    n.as_i64()
        .map(i128::from)
        .or_else(|| n.as_u64().map(i128::from))
}

/// Numbers are equal by value: integers exactly, otherwise as doubles, so an
/// integer-valued float equals the integer. Beyond 2^53 a JSON number means a
/// double (as in `runners/_compare.py`), so such integers compare as doubles too.
#[allow(clippy::float_cmp)] // exact equality is the contract (vectors stay within ±(2^53-1))
fn number_eq(a: &Number, b: &Number) -> bool {
    const EXACT: i128 = 1 << 53;
    match (as_int(a), as_int(b)) {
        (Some(x), Some(y)) if x.abs() <= EXACT && y.abs() <= EXACT => x == y,
        _ => match (a.as_f64(), b.as_f64()) {
            (Some(x), Some(y)) => x == y,
            _ => false,
        },
    }
}

/// Exact JSON equality, except that numbers compare by value.
pub fn json_eq(a: &Value, b: &Value) -> bool {
    match (a, b) {
        (Value::Number(x), Value::Number(y)) => number_eq(x, y),
        (Value::Array(x), Value::Array(y)) => {
            x.len() == y.len() && x.iter().zip(y).all(|(p, q)| json_eq(p, q))
        }
        (Value::Object(x), Value::Object(y)) => {
            x.len() == y.len()
                && x.iter()
                    .all(|(k, v)| y.get(k).is_some_and(|w| json_eq(v, w)))
        }
        _ => a == b,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn rules(comparison: &Value) -> Rules {
        Rules::from_json(Some(comparison)).expect("test rules are well-formed")
    }

    fn pointers(diffs: &[Difference]) -> Vec<&str> {
        diffs.iter().map(|d| d.pointer.as_str()).collect()
    }

    #[test]
    fn equal_values_have_no_differences() {
        let v = json!({"a": [1, "x", null, true, {"b": 2.5}], "c": {}});
        assert!(Rules::default().compare(&json!({}), &v, &v).is_empty());
    }

    #[test]
    fn integer_valued_float_equals_integer() {
        let none = Rules::default();
        assert!(none
            .compare(&json!({}), &json!({"n": 1}), &json!({"n": 1.0}))
            .is_empty());
        assert!(none
            .compare(&json!({}), &json!([0.5]), &json!([0.5]))
            .is_empty());
        let diffs = none.compare(&json!({}), &json!({"n": 1}), &json!({"n": 1.5}));
        assert_eq!(pointers(&diffs), ["/n"]);
    }

    #[test]
    fn wrong_output_is_reported_at_each_place() {
        let expected = json!({"events": [{"data": "a", "id": "1"}, {"data": "b"}], "rest": "x"});
        let actual = json!({"events": [{"data": "a", "id": "2"}, {"data": "B"}], "extra": 1});
        let diffs = Rules::default().compare(&json!({}), &expected, &actual);
        assert_eq!(
            pointers(&diffs),
            ["/events/0/id", "/events/1/data", "/rest", "/extra"]
        );
        assert_eq!(diffs[2].actual, None, "missing key shows as absent");
        assert_eq!(
            diffs[3].expected, None,
            "extra key shows as absent in expected"
        );
    }

    #[test]
    fn types_must_match() {
        let none = Rules::default();
        for (e, a) in [
            (json!("1"), json!(1)),
            (json!(0), json!(false)),
            (json!(null), json!({})),
            (json!([]), json!({})),
        ] {
            assert_eq!(none.compare(&json!({}), &e, &a).len(), 1, "{e} vs {a}");
        }
    }

    #[test]
    fn array_length_mismatch_shows_absent_items() {
        let none = Rules::default();
        let diffs = none.compare(&json!({}), &json!({"a": [1, 2]}), &json!({"a": [1]}));
        assert_eq!(pointers(&diffs), ["/a/1"]);
        assert_eq!(
            (diffs[0].expected.clone(), diffs[0].actual.clone()),
            (Some(json!(2)), None)
        );
        let diffs = none.compare(&json!({}), &json!([]), &json!([7, 8]));
        assert_eq!(pointers(&diffs), ["/0", "/1"]);
    }

    #[test]
    fn root_rules_apply() {
        let r = rules(&json!([{"kind": "ignore", "path": ""}]));
        assert!(r
            .compare(&json!({}), &json!({"a": 1}), &json!([2]))
            .is_empty());
    }

    #[test]
    fn pointer_escapes_round_trip() {
        let diffs = Rules::default().compare(
            &json!({}),
            &json!({"a/b": {"~": 1}}),
            &json!({"a/b": {"~": 2}}),
        );
        assert_eq!(pointers(&diffs), ["/a~1b/~0"]);
        let p = Pattern::parse("/a~1b/~0").expect("valid pointer");
        assert_eq!(p.select(&json!({"a/b": {"~": 7}})), [&json!(7)]);
        assert!(Pattern::parse("a").is_err());
        assert!(Pattern::parse("/~2").is_err());
    }

    #[test]
    fn ignore_with_where_skips_only_matching_holders() {
        let r = rules(&json!([
            {"kind": "ignore", "path": "/messages/*/content", "where": {"summary": true}}
        ]));
        let expected = json!({"messages": [
            {"summary": true, "content": "anything"},
            {"summary": false, "content": "exact"}
        ]});
        let good = json!({"messages": [
            {"summary": true, "content": "something else"},
            {"summary": false, "content": "exact"}
        ]});
        assert!(r.compare(&json!({}), &expected, &good).is_empty());
        let bad = json!({"messages": [
            {"summary": true, "content": "something else"},
            {"summary": false, "content": "not exact"}
        ]});
        assert_eq!(
            pointers(&r.compare(&json!({}), &expected, &bad)),
            ["/messages/1/content"]
        );
    }

    #[test]
    fn ignore_without_where_always_skips_including_presence() {
        let r = rules(&json!([{"kind": "ignore", "path": "/meta"}]));
        assert!(r
            .compare(&json!({}), &json!({"a": 1, "meta": 5}), &json!({"a": 1}))
            .is_empty());
        assert!(r
            .compare(&json!({}), &json!({"a": 1}), &json!({"a": 1, "meta": 5}))
            .is_empty());
        assert_eq!(
            pointers(&r.compare(&json!({}), &json!({"a": 1, "meta": 5}), &json!({"a": 2}))),
            ["/a"]
        );
    }

    #[test]
    fn at_most_bounds_and_when_unless() {
        let r = rules(&json!([{
            "kind": "at-most", "path": "/delays_ms/*",
            "when": {"/jitter": "full"}, "unless": ["/samples"]
        }]));
        let expected = json!({"delays_ms": [100, 200]});
        let full = json!({"jitter": "full"});
        assert!(r
            .compare(&full, &expected, &json!({"delays_ms": [0, 199.5]}))
            .is_empty());
        assert!(r
            .compare(&full, &expected, &json!({"delays_ms": [100, 200.0]}))
            .is_empty());
        let diffs = r.compare(&full, &expected, &json!({"delays_ms": [101, -1]}));
        assert_eq!(pointers(&diffs), ["/delays_ms/0", "/delays_ms/1"]);
        let diffs = r.compare(&full, &expected, &json!({"delays_ms": ["5", null]}));
        assert_eq!(diffs.len(), 2, "non-numbers never satisfy at-most");
        // `when` not met, or `unless` present: compared exactly.
        let none = json!({"jitter": "none"});
        assert_eq!(
            r.compare(&none, &expected, &json!({"delays_ms": [0, 200]}))
                .len(),
            1
        );
        let sampled = json!({"jitter": "full", "samples": [0.5]});
        assert_eq!(
            r.compare(&sampled, &expected, &json!({"delays_ms": [0, 200]}))
                .len(),
            1
        );
        // An at-most path does not excuse array length.
        let short = r.compare(&full, &expected, &json!({"delays_ms": [0]}));
        assert_eq!(pointers(&short), ["/delays_ms/1"]);
        // A non-number expected value at an at-most path never matches.
        let odd = json!({"delays_ms": ["x"]});
        assert_eq!(r.compare(&full, &odd, &odd).len(), 1);
    }

    #[test]
    fn malformed_rules_are_rejected() {
        assert!(Rules::from_json(Some(&json!([{"kind": "approx", "path": "/a"}]))).is_err());
        assert!(Rules::from_json(Some(&json!([{"kind": "ignore"}]))).is_err());
        assert!(Rules::from_json(Some(&json!({"kind": "ignore"}))).is_err());
        assert!(Rules::from_json(None).is_ok());
    }

    #[test]
    fn wildcard_select_collects_every_match() {
        let p = Pattern::parse("/a/*/b").expect("valid pointer");
        let v = json!({"a": [{"b": 1}, {"c": 2}, {"b": 3}]});
        assert_eq!(p.select(&v), [&json!(1), &json!(3)]);
        assert!(Pattern::parse("/a/01")
            .expect("valid")
            .select(&json!({"a": [0, 1]}))
            .is_empty());
    }

    /// Every row of the shared table (`tests/tables/comparison.json`), which the
    /// Python and JS comparators load too.
    #[test]
    fn shared_comparison_table() {
        let path = concat!(
            env!("CARGO_MANIFEST_DIR"),
            "/../../tests/tables/comparison.json"
        );
        let text = std::fs::read_to_string(path).expect("tests/tables/comparison.json");
        let table: Value = serde_json::from_str(&text).expect("the table is JSON");
        let rows = table["cases"].as_array().expect("cases");
        assert!(!rows.is_empty());
        let mut wrong = Vec::new();
        for row in rows {
            let id = row["id"].as_str().expect("id");
            let parsed = Rules::from_json(Some(&row["rules"]));
            let got = match (&parsed, row["verdict"].as_str()) {
                (Err(_), Some("invalid")) => continue,
                (Ok(_), Some("invalid")) => "accepted the rules".to_owned(),
                (Err(e), _) => format!("refused the rules: {e}"),
                (Ok(rules), Some(verdict)) => {
                    let input = row.get("input").cloned().unwrap_or_else(|| json!({}));
                    let mut found: Vec<String> = rules
                        .compare(&input, &row["expected"], &row["actual"])
                        .into_iter()
                        .map(|d| d.pointer)
                        .collect();
                    found.sort();
                    let mut want: Vec<String> = row
                        .get("differences")
                        .and_then(Value::as_array)
                        .map(|d| {
                            d.iter()
                                .filter_map(Value::as_str)
                                .map(str::to_owned)
                                .collect()
                        })
                        .unwrap_or_default();
                    want.sort();
                    if found == want && (verdict == "pass") == found.is_empty() {
                        continue;
                    }
                    format!("differences {found:?}, table says {verdict} {want:?}")
                }
                (Ok(_), None) => "row has no verdict".to_owned(),
            };
            wrong.push(format!("{id}: {got}"));
        }
        assert!(wrong.is_empty(), "{}", wrong.join("\n"));
    }
}
