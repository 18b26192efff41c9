//! Model-facing names of MCP tools: `mcp__<server>__<tool>` (HIP-301 §1).
//!
//! The contract is `docs/domains/mcp-normalization.md`: every code point outside
//! `[A-Za-z0-9_-]` becomes one `_` (MCP-1), names longer than the model APIs'
//! 64-character limit are cut and suffixed with a SHA-256 prefix of the whole
//! name (MCP-4), and [`parse_tool_name`] splits a name at the first `__` after a
//! non-empty server (MCP-5..MCP-7).
//!
//! ```
//! use hanzo_mcp_names::{normalize_tool_name, parse_tool_name};
//!
//! let name = normalize_tool_name("my server", "read.file").unwrap();
//! assert_eq!(name, "mcp__my_server__read_file");
//! let parts = parse_tool_name(&name).unwrap();
//! assert_eq!((parts.server.as_str(), parts.tool.as_str()), ("my_server", "read_file"));
//! ```

use std::fmt;
use std::fmt::Write as _;

use sha2::{Digest, Sha256};

/// Every normalized MCP tool name starts with this (MCP-3).
pub const PREFIX: &str = "mcp__";

/// Between the normalized server and the normalized tool (MCP-3).
pub const SEPARATOR: &str = "__";

/// The model APIs' tool-name limit, `^[a-zA-Z0-9_-]{1,64}$` (MCP-4).
pub const MAX_TOOL_NAME_LEN: usize = 64;

/// Lowercase hex digits of SHA-256 kept in a shortened name (MCP-4).
pub const HASH_HEX_LEN: usize = 8;

/// Characters of the full name kept before `_` and the hash (MCP-4).
const KEEP_LEN: usize = MAX_TOOL_NAME_LEN - 1 - HASH_HEX_LEN;

/// Which argument of [`normalize_tool_name`] was empty.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Part {
    /// The MCP server name.
    Server,
    /// The tool name.
    Tool,
}

/// The mcp-normalization contract errors.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum McpNameError {
    /// The server or tool name is empty (MCP-2); code `empty_name`.
    EmptyName(Part),
    /// Not a name [`normalize_tool_name`] could have produced the shape of (MCP-5);
    /// code `not_mcp_name`. The text says which check failed.
    NotMcpName(&'static str),
}

impl McpNameError {
    /// The contract's stable error code.
    pub fn code(&self) -> &'static str {
        match self {
            Self::EmptyName(_) => "empty_name",
            Self::NotMcpName(_) => "not_mcp_name",
        }
    }
}

impl fmt::Display for McpNameError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Self::EmptyName(Part::Server) => f.write_str("MCP server name is empty"),
            Self::EmptyName(Part::Tool) => f.write_str("MCP tool name is empty"),
            Self::NotMcpName(why) => write!(f, "not an MCP tool name: {why}"),
        }
    }
}

impl std::error::Error for McpNameError {}

/// The two pieces [`parse_tool_name`] splits a name into; both are already normalized.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct McpToolRef {
    /// The normalized server name (possibly a prefix of it, see MCP-7).
    pub server: String,
    /// The normalized tool name (possibly shortened, see MCP-7).
    pub tool: String,
}

fn is_allowed(ch: char) -> bool {
    ch.is_ascii_alphanumeric() || ch == '_' || ch == '-'
}

/// Replace every code point outside `[A-Za-z0-9_-]` with one `_` (MCP-1).
///
/// Works on `char`s, so an emoji is one `_`; no case folding, no Unicode normalization.
pub fn normalize_name_part(part: &str) -> String {
    part.chars()
        .map(|ch| if is_allowed(ch) { ch } else { '_' })
        .collect()
}

/// The model-facing name of `tool` on MCP server `server` (MCP-2..MCP-4).
///
/// # Errors
/// [`McpNameError::EmptyName`] if either argument is empty.
pub fn normalize_tool_name(server: &str, tool: &str) -> Result<String, McpNameError> {
    if server.is_empty() {
        return Err(McpNameError::EmptyName(Part::Server));
    }
    if tool.is_empty() {
        return Err(McpNameError::EmptyName(Part::Tool));
    }
    let mut full =
        String::with_capacity(PREFIX.len() + server.len() + SEPARATOR.len() + tool.len());
    full.push_str(PREFIX);
    full.push_str(&normalize_name_part(server));
    full.push_str(SEPARATOR);
    full.push_str(&normalize_name_part(tool));
    // `full` is ASCII, so its byte length is its length in code points.
    if full.len() <= MAX_TOOL_NAME_LEN {
        return Ok(full);
    }
    let digest = Sha256::digest(full.as_bytes());
    let mut name: String = full.chars().take(KEEP_LEN).collect();
    name.push('_');
    for byte in digest.iter().take(HASH_HEX_LEN / 2) {
        // Writing to a String cannot fail.
        let _ = write!(name, "{byte:02x}");
    }
    Ok(name)
}

/// Split `mcp__<server>__<tool>` at the first `__` after a non-empty server (MCP-6).
///
/// The pieces are the *normalized* server and tool; normalization is lossy and a
/// shortened name keeps only a prefix of them (MCP-7), so route calls by a table
/// of the names you generated.
///
/// # Errors
/// [`McpNameError::NotMcpName`] for anything [`normalize_tool_name`] cannot
/// produce the shape of (MCP-5).
pub fn parse_tool_name(name: &str) -> Result<McpToolRef, McpNameError> {
    if name.is_empty() || name.chars().count() > MAX_TOOL_NAME_LEN {
        return Err(McpNameError::NotMcpName("not 1..64 characters long"));
    }
    if !name.chars().all(is_allowed) {
        return Err(McpNameError::NotMcpName(
            "contains a character outside [A-Za-z0-9_-]",
        ));
    }
    let rest = name
        .strip_prefix(PREFIX)
        .ok_or(McpNameError::NotMcpName("does not start with mcp__"))?;
    // The server is at least one character: search from index 1 (ASCII, so bytes).
    let cut = rest
        .get(1..)
        .and_then(|tail| tail.find(SEPARATOR))
        .map(|at| at + 1)
        .ok_or(McpNameError::NotMcpName(
            "no __ between a server and a tool",
        ))?;
    let (server, tool) = (
        rest.get(..cut).unwrap_or_default(),
        rest.get(cut + SEPARATOR.len()..).unwrap_or_default(),
    );
    if tool.is_empty() {
        return Err(McpNameError::NotMcpName("empty tool"));
    }
    Ok(McpToolRef {
        server: server.to_owned(),
        tool: tool.to_owned(),
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn one_underscore_per_code_point() {
        assert_eq!(normalize_name_part("x\u{1F600}y"), "x_y");
        assert_eq!(normalize_name_part("e\u{301}"), "e_");
        assert_eq!(normalize_name_part("\u{1F469}\u{200D}\u{1F4BB}"), "___");
        assert_eq!(normalize_name_part("\u{212A}Ab-_9"), "_Ab-_9");
    }

    #[test]
    fn empty_parts() {
        assert_eq!(
            normalize_tool_name("", "t").map_err(|e| e.code()),
            Err("empty_name")
        );
        assert_eq!(
            normalize_tool_name("s", "").map_err(|e| e.code()),
            Err("empty_name")
        );
    }

    #[test]
    fn length_limit_counts_code_points() {
        let tool49 = "\u{1F600}".repeat(49);
        let name = normalize_tool_name("server01", &tool49).unwrap();
        assert_eq!(name, format!("mcp__server01__{}", "_".repeat(49)));
        let tool50 = "x".repeat(50);
        let name = normalize_tool_name("server01", &tool50).unwrap();
        // sha256("mcp__server01__" + 50 x) starts 07be00bb (checked with sha256sum).
        assert_eq!(name, format!("mcp__server01__{}_07be00bb", "x".repeat(40)));
        assert_eq!(name.len(), MAX_TOOL_NAME_LEN);
    }

    #[test]
    fn parse_splits_after_non_empty_server() {
        let r = parse_tool_name("mcp_____t").unwrap();
        assert_eq!((r.server.as_str(), r.tool.as_str()), ("_", "t"));
        let r = parse_tool_name("mcp__a__b__c").unwrap();
        assert_eq!((r.server.as_str(), r.tool.as_str()), ("a", "b__c"));
        for bad in [
            "",
            "mcp__",
            "mcp____t",
            "mcp__x__",
            "MCP__a__b",
            "mcp__a.b__c",
        ] {
            assert_eq!(
                parse_tool_name(bad).map_err(|e| e.code()),
                Err("not_mcp_name"),
                "{bad}"
            );
        }
        let long = format!("mcp__s__{}", "x".repeat(57));
        assert!(parse_tool_name(&long).is_err());
    }
}
