//! Token estimation: the `token_count` of a message that has none.
//!
//! The contract is `docs/domains/token-estimation.md`; clause ids (`TOK-n`) below
//! refer to it. Strings are measured in UTF-8 bytes (TOK-1); a part of `b` bytes
//! costs `b / 4 + 1` tokens (TOK-2); a message is one text part (its content, and a
//! tool result's `tool_call_id`) plus one part per tool call (id, name and arguments
//! as given, TOK-3, TOK-4); a given `token_count` is kept (TOK-5).
//!
//! ```
//! use hanzo_tokens::{estimate_message, estimate_text, ToolCallText};
//!
//! assert_eq!(estimate_text("日本語"), 3); // 9 bytes
//! let call = ToolCallText::new("call_1", "read_file", r#"{"path":"main.rs"}"#);
//! assert_eq!(estimate_message("", &[call], None), 1 + 9);
//! ```

use std::fmt;

/// The largest total the contract allows (2^53 − 1, TOK-5).
pub const MAX_SAFE_INTEGER: u64 = (1 << 53) - 1;

/// bytes(s) of TOK-1: a Rust string is UTF-8, so its length in bytes.
pub fn utf8_length(text: &str) -> u64 {
    len_u64(text.len())
}

fn len_u64(len: usize) -> u64 {
    // usize is at most 64 bits on every supported target.
    u64::try_from(len).unwrap_or(u64::MAX)
}

/// TOK-2: a part of `bytes` bytes costs `floor(bytes / 4) + 1`.
pub const fn part_cost(bytes: u64) -> u64 {
    bytes / 4 + 1
}

/// The cost of `text` as one part (TOK-2).
pub fn estimate_text(text: &str) -> u64 {
    part_cost(utf8_length(text))
}

/// The strings of one tool call that the estimate counts (TOK-3.2).
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct ToolCallText {
    /// The call id.
    pub id: String,
    /// The tool name.
    pub name: String,
    /// The arguments' JSON text, counted as given (TOK-4); empty when absent.
    pub arguments: String,
}

impl ToolCallText {
    /// A tool call's strings.
    pub fn new(
        id: impl Into<String>,
        name: impl Into<String>,
        arguments: impl Into<String>,
    ) -> Self {
        Self {
            id: id.into(),
            name: name.into(),
            arguments: arguments.into(),
        }
    }

    fn bytes(&self) -> u64 {
        len_u64(self.id.len() + self.name.len() + self.arguments.len())
    }
}

/// TOK-3: the text part (`content`, plus `tool_call_id`) and one part per tool call.
pub fn estimate_message(
    content: &str,
    tool_calls: &[ToolCallText],
    tool_call_id: Option<&str>,
) -> u64 {
    let text_bytes = utf8_length(content) + tool_call_id.map_or(0, utf8_length);
    tool_calls
        .iter()
        .fold(part_cost(text_bytes), |total, call| {
            total + part_cost(call.bytes())
        })
}

/// A message as the estimator sees it; `token_count` `None` means none given.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct MessageText {
    /// The text.
    pub content: String,
    /// The given count, if any; negative counts are rejected (TOK-5).
    pub token_count: Option<i64>,
    /// The tool calls it makes.
    pub tool_calls: Vec<ToolCallText>,
    /// The call it answers, for a tool result.
    pub tool_call_id: Option<String>,
}

impl MessageText {
    /// This message's estimate (TOK-3), whether or not it has a count.
    pub fn estimate(&self) -> u64 {
        estimate_message(
            &self.content,
            &self.tool_calls,
            self.tool_call_id.as_deref(),
        )
    }
}

/// Each message's count, whether it was estimated, and their total (TOK-5).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct TokenCounts {
    /// Given counts kept, missing ones estimated, in message order.
    pub token_counts: Vec<u64>,
    /// Which counts were estimated.
    pub estimated: Vec<bool>,
    /// The sum of the counts (at most [`MAX_SAFE_INTEGER`]).
    pub total_tokens: u64,
}

/// A given count is negative, or the total exceeds 2^53 − 1 (TOK-5).
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum TokenCountError {
    /// The message at this index has a negative `token_count`.
    Negative {
        /// Its index.
        index: usize,
        /// Its count.
        token_count: i64,
    },
    /// The total exceeds [`MAX_SAFE_INTEGER`].
    TotalTooLarge,
}

impl TokenCountError {
    /// The contract's error code: `invalid_token_count`.
    pub fn code(&self) -> &'static str {
        "invalid_token_count"
    }
}

impl fmt::Display for TokenCountError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Self::Negative { index, token_count } => {
                write!(f, "message {index}: token_count {token_count} is negative")
            }
            Self::TotalTooLarge => f.write_str("total token count exceeds 2^53 - 1"),
        }
    }
}

impl std::error::Error for TokenCountError {}

/// Keep given counts, estimate missing ones, and sum them (TOK-5).
///
/// # Errors
///
/// [`TokenCountError::Negative`] for the first negative given count (front to
/// back), else [`TokenCountError::TotalTooLarge`] when the total exceeds 2^53 − 1.
pub fn fill_token_counts(messages: &[MessageText]) -> Result<TokenCounts, TokenCountError> {
    for (index, message) in messages.iter().enumerate() {
        if let Some(token_count) = message.token_count.filter(|&n| n < 0) {
            return Err(TokenCountError::Negative { index, token_count });
        }
    }
    let mut token_counts = Vec::with_capacity(messages.len());
    let mut estimated = Vec::with_capacity(messages.len());
    let mut total: u64 = 0;
    for message in messages {
        let count = match message.token_count {
            // Not negative: checked above.
            Some(given) => given.unsigned_abs(),
            None => message.estimate(),
        };
        token_counts.push(count);
        estimated.push(message.token_count.is_none());
        total = total
            .checked_add(count)
            .filter(|&t| t <= MAX_SAFE_INTEGER)
            .ok_or(TokenCountError::TotalTooLarge)?;
    }
    Ok(TokenCounts {
        token_counts,
        estimated,
        total_tokens: total,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn bytes_not_code_points() {
        assert_eq!(estimate_text(""), 1);
        assert_eq!(estimate_text("abcd"), 2);
        assert_eq!(estimate_text("éé"), 2);
        assert_eq!(estimate_text("😀"), 2);
    }

    #[test]
    fn given_counts_are_kept_and_checked() {
        let given = MessageText {
            content: "a".into(),
            token_count: Some(7),
            ..MessageText::default()
        };
        let missing = MessageText {
            content: "abcd".into(),
            ..MessageText::default()
        };
        let counts = fill_token_counts(&[given.clone(), missing]).unwrap();
        assert_eq!(counts.token_counts, vec![7, 2]);
        assert_eq!(counts.estimated, vec![false, true]);
        assert_eq!(counts.total_tokens, 9);
        let negative = MessageText {
            token_count: Some(-1),
            ..given
        };
        let err = fill_token_counts(&[negative]).unwrap_err();
        assert_eq!(err.code(), "invalid_token_count");
    }

    #[test]
    fn total_past_max_safe_is_an_error() {
        let big = MessageText {
            token_count: Some(i64::try_from(MAX_SAFE_INTEGER).unwrap()),
            ..MessageText::default()
        };
        assert!(fill_token_counts(std::slice::from_ref(&big)).is_ok());
        let one = MessageText::default();
        assert_eq!(
            fill_token_counts(&[big, one]),
            Err(TokenCountError::TotalTooLarge)
        );
    }
}
