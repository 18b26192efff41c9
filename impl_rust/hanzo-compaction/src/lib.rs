//! Token-budget session compaction (HIP-301, "Session compaction").
//!
//! The contract is `docs/domains/session-compaction.md`; clause ids (`COMP-n`)
//! below refer to it. A [`SessionCompactor`] keeps the system prompt and the
//! last `reserve_recent` turns. When the total token count exceeds 90% of
//! `max_tokens` (or always, with [`SessionCompactor::force_compact`], a manual
//! `/compact`), it first replaces the tool results of the middle with
//! [`COMPACTED`]; if that is not enough, it replaces the whole middle with one
//! summary message (role [`SUMMARY_ROLE`]) produced by a [`Summarizer`], or
//! drops the middle if the summarizer fails.
//!
//! ```
//! use hanzo_compaction::{Message, Role, SessionCompactor};
//!
//! let history = vec![
//!     Message::new(Role::System, "You are terse.", 10),
//!     Message::new(Role::User, "q1", 50),
//!     Message::new(Role::Assistant, "a1", 50),
//!     Message::new(Role::User, "q2", 5),
//!     Message::new(Role::Assistant, "a2", 5),
//! ];
//! let compactor = SessionCompactor::try_new(Some(100), 1)?;
//! let result = compactor.compact(&history)?;
//! assert_eq!(result.messages.len(), 4); // system, summary, q2, a2
//! assert_eq!(result.compacted_count, 2);
//! # Ok::<(), hanzo_compaction::CompactionError>(())
//! ```

use std::collections::{HashMap, HashSet};
use std::fmt;
use std::num::NonZeroU64;

use hanzo_tokens::{estimate_message, ToolCallText};

/// Content of a tool result pruned by the compactor (COMP-9).
pub const COMPACTED: &str = "[compacted]";

/// The largest total the contract allows (2^53 − 1, COMP-3).
pub const MAX_SAFE_INTEGER: u64 = (1 << 53) - 1;

/// The role of the summary message (COMP-12): several providers reject a history
/// whose first non-system message is not from the user.
pub const SUMMARY_ROLE: Role = Role::User;

/// Default cost of a [`COMPACTED`] tool result (a library convenience, not contract).
pub const DEFAULT_COMPACTED_TOKENS: u64 = 3;

/// Default cost of the placeholder summary (a library convenience, not contract).
pub const DEFAULT_SUMMARY_TOKENS: u64 = 16;

/// The author of a message (COMP-2).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Role {
    /// The system prompt; only allowed at index 0.
    System,
    /// A user message; every user message starts a turn.
    User,
    /// A model message, possibly making tool calls.
    Assistant,
    /// The result of one tool call.
    Tool,
}

impl Role {
    /// The wire name: `"system"`, `"user"`, `"assistant"` or `"tool"`.
    pub fn as_str(self) -> &'static str {
        match self {
            Role::System => "system",
            Role::User => "user",
            Role::Assistant => "assistant",
            Role::Tool => "tool",
        }
    }

    /// Parse a wire name; `None` for anything else.
    pub fn parse(name: &str) -> Option<Self> {
        match name {
            "system" => Some(Role::System),
            "user" => Some(Role::User),
            "assistant" => Some(Role::Assistant),
            "tool" => Some(Role::Tool),
            _ => None,
        }
    }
}

/// One tool call made by an assistant message.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ToolCall {
    /// Unique (in the whole history) id that the result refers to.
    pub id: String,
    /// The tool's name.
    pub name: String,
}

/// A history entry. `None` optional fields are absent on the wire (COMP-2).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Message {
    /// Who wrote it.
    pub role: Role,
    /// The text; never inspected except for the exact string [`COMPACTED`].
    pub content: String,
    /// Cost in tokens, computed by the caller, or estimated for a message that
    /// comes without one ([`Message::with_estimated_token_count`], COMP-13).
    pub token_count: u64,
    /// Tool calls (assistant messages only).
    pub tool_calls: Option<Vec<ToolCall>>,
    /// The call this message answers (tool messages only, required there).
    pub tool_call_id: Option<String>,
    /// Marks a summary message (user and assistant messages only).
    pub summary: Option<bool>,
}

impl Message {
    /// A message without optional fields.
    pub fn new(role: Role, content: impl Into<String>, token_count: u64) -> Self {
        Self {
            role,
            content: content.into(),
            token_count,
            tool_calls: None,
            tool_call_id: None,
            summary: None,
        }
    }

    /// The token-estimation estimate of this message (COMP-13): its content (and
    /// `tool_call_id`) as one part, each tool call's id and name as another; its
    /// `token_count` plays no part.
    pub fn estimated_token_count(&self) -> u64 {
        let calls: Vec<ToolCallText> = self
            .tool_calls
            .iter()
            .flatten()
            .map(|call| ToolCallText::new(call.id.as_str(), call.name.as_str(), ""))
            .collect();
        estimate_message(&self.content, &calls, self.tool_call_id.as_deref())
    }

    /// This message with `token_count` set to its estimate: how a caller builds a
    /// message that comes without a count (COMP-13), once its other fields are set.
    #[must_use]
    pub fn with_estimated_token_count(mut self) -> Self {
        self.token_count = self.estimated_token_count();
        self
    }
}

/// What a summarizer returns: the summary text and its cost in tokens.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Summary {
    /// The summary text.
    pub content: String,
    /// Its cost in tokens.
    pub token_count: u64,
}

/// The outcome of [`SessionCompactor::compact`] (COMP-1).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct CompactionResult {
    /// The compacted history.
    pub messages: Vec<Message>,
    /// Input messages that do not appear unchanged in `messages` (COMP-10).
    pub compacted_count: usize,
    /// Input total minus output total; negative if a summary cost more than the middle.
    pub tokens_saved: i64,
    /// Total of `messages`.
    pub total_tokens: u64,
    /// `max_tokens` is set and `total_tokens` exceeds it.
    pub over_budget: bool,
}

/// A contract error of this domain; [`CompactionError::code`] is the stable code.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum CompactionError {
    /// `max_tokens` is set and below 1 (COMP-3.1).
    InvalidBudget {
        /// The rejected value.
        max_tokens: i64,
    },
    /// `reserve_recent` is negative (COMP-3.2).
    InvalidReserve {
        /// The rejected value.
        reserve_recent: i64,
    },
    /// A negative cost, or a total above 2^53 − 1 (COMP-3).
    InvalidTokenCount {
        /// What was wrong.
        reason: String,
    },
    /// The history is not well-formed (COMP-4).
    InvalidMessages {
        /// Index of the offending message.
        index: usize,
        /// What was wrong.
        reason: &'static str,
    },
}

impl CompactionError {
    /// The contract's error code.
    pub fn code(&self) -> &'static str {
        match self {
            CompactionError::InvalidBudget { .. } => "invalid_budget",
            CompactionError::InvalidReserve { .. } => "invalid_reserve",
            CompactionError::InvalidTokenCount { .. } => "invalid_token_count",
            CompactionError::InvalidMessages { .. } => "invalid_messages",
        }
    }

    fn overflow() -> Self {
        CompactionError::InvalidTokenCount {
            reason: "total token count exceeds 2^53 - 1".to_owned(),
        }
    }
}

impl fmt::Display for CompactionError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            CompactionError::InvalidBudget { max_tokens } => {
                write!(
                    f,
                    "max_tokens must be at least 1 or unset, got {max_tokens}"
                )
            }
            CompactionError::InvalidReserve { reserve_recent } => {
                write!(f, "reserve_recent must be >= 0, got {reserve_recent}")
            }
            CompactionError::InvalidTokenCount { reason } => f.write_str(reason),
            CompactionError::InvalidMessages { index, reason } => {
                write!(f, "messages[{index}]: {reason}")
            }
        }
    }
}

impl std::error::Error for CompactionError {}

/// Why a summarization call failed; the compactor then truncates (COMP-11).
pub type SummarizerError = Box<dyn std::error::Error + Send + Sync>;

/// A function from the middle messages (already pruned) to their summary, or an
/// error if the summarization call failed.
pub type Summarizer = Box<dyn Fn(&[Message]) -> Result<Summary, SummarizerError> + Send + Sync>;

/// A summarizer writing `"Summary of N earlier messages."` at the fixed cost
/// `token_count`, standing in for the model's summary.
pub fn placeholder_summarizer(token_count: u64) -> Summarizer {
    Box::new(move |messages: &[Message]| {
        Ok(Summary {
            content: format!("Summary of {} earlier messages.", messages.len()),
            token_count,
        })
    })
}

/// T = `max_tokens − ceil(max_tokens / 10)`: a total triggers compaction iff it
/// is greater than T, i.e. greater than `max_tokens * 0.9` (COMP-7).
pub fn trigger_threshold(max_tokens: u64) -> u64 {
    max_tokens - max_tokens.div_ceil(10)
}

/// Compacts a conversation history to fit a token budget (HIP-301).
pub struct SessionCompactor {
    max_tokens: Option<NonZeroU64>,
    reserve_recent: usize,
    compacted_tokens: u64,
    summarizer: Summarizer,
}

impl fmt::Debug for SessionCompactor {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("SessionCompactor")
            .field("max_tokens", &self.max_tokens)
            .field("reserve_recent", &self.reserve_recent)
            .field("compacted_tokens", &self.compacted_tokens)
            .finish_non_exhaustive()
    }
}

impl SessionCompactor {
    /// A compactor with the given budget (`None`: compaction off) and number of
    /// reserved recent turns, the default `[compacted]` cost and the placeholder
    /// summarizer.
    pub fn new(max_tokens: Option<NonZeroU64>, reserve_recent: usize) -> Self {
        Self {
            max_tokens,
            reserve_recent,
            compacted_tokens: DEFAULT_COMPACTED_TOKENS,
            summarizer: placeholder_summarizer(DEFAULT_SUMMARY_TOKENS),
        }
    }

    /// Like [`SessionCompactor::new`], from signed (untrusted) values.
    ///
    /// # Errors
    /// [`CompactionError::InvalidBudget`] if `max_tokens` is `Some(n)` with
    /// `n < 1`, then [`CompactionError::InvalidReserve`] if `reserve_recent < 0`.
    pub fn try_new(max_tokens: Option<i64>, reserve_recent: i64) -> Result<Self, CompactionError> {
        let budget = match max_tokens {
            None => None,
            Some(n) => Some(
                u64::try_from(n)
                    .ok()
                    .and_then(NonZeroU64::new)
                    .ok_or(CompactionError::InvalidBudget { max_tokens: n })?,
            ),
        };
        let reserve = usize::try_from(reserve_recent)
            .map_err(|_| CompactionError::InvalidReserve { reserve_recent })?;
        Ok(Self::new(budget, reserve))
    }

    /// Set the cost of a `[compacted]` tool result.
    #[must_use]
    pub fn with_compacted_tokens(mut self, compacted_tokens: u64) -> Self {
        self.compacted_tokens = compacted_tokens;
        self
    }

    /// Set the summarizer used when pruning is not enough.
    #[must_use]
    pub fn with_summarizer(mut self, summarizer: Summarizer) -> Self {
        self.summarizer = summarizer;
        self
    }

    /// Compact `messages` (COMP-1 .. COMP-12). The input is not modified.
    ///
    /// # Errors
    /// [`CompactionError::InvalidMessages`] for a history that is not
    /// well-formed (COMP-4); [`CompactionError::InvalidTokenCount`] when a total
    /// exceeds 2^53 − 1.
    pub fn compact(&self, messages: &[Message]) -> Result<CompactionResult, CompactionError> {
        self.run(messages, false)
    }

    /// Compact `messages` whatever their total and the budget (a manual
    /// `/compact`, COMP-7): the middle is pruned and then summarized, or
    /// truncated if the summarizer fails.
    ///
    /// # Errors
    /// As [`SessionCompactor::compact`].
    pub fn force_compact(&self, messages: &[Message]) -> Result<CompactionResult, CompactionError> {
        self.run(messages, true)
    }

    fn run(&self, messages: &[Message], force: bool) -> Result<CompactionResult, CompactionError> {
        validate(messages)?;
        let before = total(messages)?;
        let threshold = self.max_tokens.map(|m| trigger_threshold(m.get()));
        if !force && threshold.map_or(true, |t| before <= t) {
            return self.result(messages.to_vec(), 0, before);
        }
        let body_start = usize::from(messages.first().is_some_and(|m| m.role == Role::System));
        let recent = recent_start(messages, body_start, self.reserve_recent);
        if recent <= body_start {
            return self.result(messages.to_vec(), 0, before);
        }

        let mut pruned = messages.to_vec();
        let mut pruned_count = 0;
        for message in pruned.iter_mut().take(recent).skip(body_start) {
            if message.role == Role::Tool && message.content != COMPACTED {
                COMPACTED.clone_into(&mut message.content);
                message.token_count = self.compacted_tokens;
                pruned_count += 1;
            }
        }
        let pruned_total = total(&pruned)?;
        if !force && threshold.is_some_and(|t| pruned_total <= t) {
            return self.result(pruned, pruned_count, before);
        }

        let middle = pruned.get(body_start..recent).unwrap_or_default();
        let mut out = Vec::with_capacity(messages.len() - middle.len() + 1);
        out.extend(messages.iter().take(body_start).cloned());
        // A failed summarization call falls back to truncation (COMP-11).
        if let Ok(summary) = (self.summarizer)(middle) {
            out.push(Message {
                role: SUMMARY_ROLE,
                content: summary.content,
                token_count: summary.token_count,
                tool_calls: None,
                tool_call_id: None,
                summary: Some(true),
            });
        }
        out.extend(messages.iter().skip(recent).cloned());
        self.result(out, middle.len(), before)
    }

    fn result(
        &self,
        messages: Vec<Message>,
        compacted_count: usize,
        before: u64,
    ) -> Result<CompactionResult, CompactionError> {
        let total_tokens = total(&messages)?;
        let signed = |n: u64| i64::try_from(n).map_err(|_| CompactionError::overflow());
        let tokens_saved = signed(before)? - signed(total_tokens)?;
        let over_budget = self.max_tokens.is_some_and(|m| total_tokens > m.get());
        Ok(CompactionResult {
            messages,
            compacted_count,
            tokens_saved,
            total_tokens,
            over_budget,
        })
    }
}

/// The sum of the token counts, or an error past 2^53 − 1.
fn total(messages: &[Message]) -> Result<u64, CompactionError> {
    messages.iter().try_fold(0u64, |sum, m| {
        sum.checked_add(m.token_count)
            .filter(|&s| s <= MAX_SAFE_INTEGER)
            .ok_or_else(CompactionError::overflow)
    })
}

/// COMP-4, front to back.
fn validate(messages: &[Message]) -> Result<(), CompactionError> {
    let mut call_ids: HashSet<&str> = HashSet::new();
    let mut answered: HashSet<&str> = HashSet::new();
    for (index, message) in messages.iter().enumerate() {
        let fail = |reason| Err(CompactionError::InvalidMessages { index, reason });
        if message.role == Role::System && index != 0 {
            return fail("a system message is allowed only at index 0");
        }
        if let Some(calls) = &message.tool_calls {
            if message.role != Role::Assistant {
                return fail("only assistant messages have tool_calls");
            }
            for call in calls {
                if call.id.is_empty() || !call_ids.insert(call.id.as_str()) {
                    return fail("tool call id is empty or reused");
                }
            }
        }
        if message.summary.is_some() && !matches!(message.role, Role::User | Role::Assistant) {
            return fail("only user and assistant messages have summary");
        }
        match (&message.tool_call_id, message.role) {
            (Some(id), Role::Tool) => {
                if !call_ids.contains(id.as_str()) {
                    return fail("tool result does not answer an earlier call");
                }
                if !answered.insert(id.as_str()) {
                    return fail("the call already has a result");
                }
            }
            (None, Role::Tool) => return fail("tool message without tool_call_id"),
            (Some(_), _) => return fail("only tool messages have tool_call_id"),
            (None, _) => {}
        }
    }
    Ok(())
}

/// Start indices of the body's turns, ascending (COMP-5).
fn turn_starts(messages: &[Message], body_start: usize) -> Vec<usize> {
    messages
        .iter()
        .enumerate()
        .skip(body_start)
        .filter(|(index, m)| *index == body_start || m.role == Role::User)
        .map(|(index, _)| index)
        .collect()
}

/// The first index of the recent region (COMP-6).
fn recent_start(messages: &[Message], body_start: usize, reserve: usize) -> usize {
    let starts = turn_starts(messages, body_start);
    let mut recent = if reserve == 0 {
        messages.len()
    } else if starts.len() <= reserve {
        body_start
    } else {
        starts
            .get(starts.len() - reserve)
            .copied()
            .unwrap_or(body_start)
    };
    let caller_of: HashMap<&str, usize> = messages
        .iter()
        .enumerate()
        .flat_map(|(index, m)| {
            m.tool_calls
                .iter()
                .flatten()
                .map(move |c| (c.id.as_str(), index))
        })
        .collect();
    loop {
        let pulled = messages
            .iter()
            .skip(recent)
            .filter_map(|m| m.tool_call_id.as_deref())
            .filter_map(|id| caller_of.get(id).copied())
            .find(|&caller| caller < recent);
        let Some(caller) = pulled else { return recent };
        recent = starts
            .iter()
            .rev()
            .copied()
            .find(|&s| s <= caller)
            .unwrap_or(body_start);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn msg(role: Role, tokens: u64) -> Message {
        Message::new(role, "x", tokens)
    }

    fn call(tokens: u64, ids: &[&str]) -> Message {
        let mut m = msg(Role::Assistant, tokens);
        m.tool_calls = Some(
            ids.iter()
                .map(|id| ToolCall {
                    id: (*id).to_owned(),
                    name: "f".to_owned(),
                })
                .collect(),
        );
        m
    }

    fn result(id: &str, tokens: u64) -> Message {
        let mut m = msg(Role::Tool, tokens);
        m.tool_call_id = Some(id.to_owned());
        m
    }

    #[test]
    fn threshold_is_ninety_percent_in_integers() {
        for max in 1..=1000u64 {
            let t = trigger_threshold(max);
            assert!(t * 10 <= max * 9 && (t + 1) * 10 > max * 9, "max {max}");
        }
        assert_eq!(trigger_threshold(MAX_SAFE_INTEGER), 8_106_479_329_266_891);
    }

    #[test]
    fn boundary_closure_repeats() {
        // turns start at 0, 2, 4, 7; x1 answered in turn 4, x2 in turn 7.
        let h = vec![
            msg(Role::User, 1),
            msg(Role::Assistant, 1),
            msg(Role::User, 1),
            call(1, &["x1"]),
            msg(Role::User, 1),
            call(1, &["x2"]),
            result("x1", 1),
            msg(Role::User, 1),
            result("x2", 1),
            msg(Role::Assistant, 1),
        ];
        assert_eq!(recent_start(&h, 0, 1), 2);
        assert_eq!(recent_start(&h, 0, 0), h.len());
        assert_eq!(recent_start(&h, 0, 9), 0);
    }

    #[test]
    fn prune_suffices_and_keeps_structure() {
        let h = vec![
            msg(Role::System, 10),
            msg(Role::User, 10),
            call(5, &["c"]),
            result("c", 100),
            msg(Role::User, 10),
        ];
        let out = SessionCompactor::try_new(Some(100), 1)
            .unwrap()
            .with_compacted_tokens(2)
            .compact(&h)
            .unwrap();
        assert_eq!(out.compacted_count, 1);
        assert_eq!(out.messages[3].content, COMPACTED);
        assert_eq!(
            (out.total_tokens, out.tokens_saved, out.over_budget),
            (37, 98, false)
        );
    }

    #[test]
    fn summary_may_cost_more() {
        let h = vec![
            msg(Role::System, 50),
            msg(Role::User, 1),
            msg(Role::User, 48),
        ];
        let c = SessionCompactor::try_new(Some(100), 1)
            .unwrap()
            .with_summarizer(placeholder_summarizer(10));
        let out = c.compact(&h).unwrap();
        assert_eq!(
            (out.tokens_saved, out.total_tokens, out.over_budget),
            (-9, 108, true)
        );
        assert_eq!(out.messages[1].summary, Some(true));
    }

    #[test]
    fn errors_have_contract_codes() {
        assert_eq!(
            SessionCompactor::try_new(Some(0), -1).unwrap_err().code(),
            "invalid_budget"
        );
        assert_eq!(
            SessionCompactor::try_new(None, -1).unwrap_err().code(),
            "invalid_reserve"
        );
        let c = SessionCompactor::new(None, 3);
        assert_eq!(
            c.compact(&[result("nope", 1)]).unwrap_err().code(),
            "invalid_messages"
        );
        let big = [msg(Role::User, MAX_SAFE_INTEGER), msg(Role::User, 1)];
        assert_eq!(c.compact(&big).unwrap_err().code(), "invalid_token_count");
        let dup = [call(1, &["a"]), result("a", 1), result("a", 1)];
        assert_eq!(c.compact(&dup).unwrap_err().code(), "invalid_messages");
    }
}
