//! Model-facing names of MCP tools: `mcp__<server>__<tool>` (HIP-301 §1).
//!
//! The contract is `docs/domains/mcp-normalization.md`: every code point outside
//! `[A-Za-z0-9_-]` becomes one `_` (MCP-1); a long server part and a long tool
//! part are each cut and suffixed with a SHA-256 prefix of that part, so every
//! name of one server starts with the same `mcp__<S>__` (MCP-4);
//! [`parse_tool_name`] splits a name at the first `__` after a non-empty server
//! (MCP-5..MCP-7) and [`build_tool_table`] resolves collisions (MCP-8).
//!
//! ```
//! use hanzo_mcp_names::{normalize_tool_name, parse_tool_name};
//!
//! let name = normalize_tool_name("my server", "read.file").unwrap();
//! assert_eq!(name, "mcp__my_server__read_file");
//! let parts = parse_tool_name(&name).unwrap();
//! assert_eq!((parts.server.as_str(), parts.tool.as_str()), ("my_server", "read_file"));
//! ```

use std::collections::{HashMap, HashSet};
use std::fmt;
use std::fmt::Write as _;

use sha2::{Digest, Sha256};

/// Every normalized MCP tool name starts with this (MCP-3).
pub const PREFIX: &str = "mcp__";

/// Between the normalized server and the normalized tool (MCP-3).
pub const SEPARATOR: &str = "__";

/// The model APIs' tool-name limit, `^[a-zA-Z0-9_-]{1,64}$` (MCP-4).
pub const MAX_TOOL_NAME_LEN: usize = 64;

/// Lowercase hex digits of SHA-256 in a shortened part or a collision suffix (MCP-4, MCP-8).
pub const HASH_HEX_LEN: usize = 8;

/// Longest server part; a longer normalized server is shortened on its own (MCP-4).
pub const MAX_SERVER_PART_LEN: usize = 32;

/// `_` plus the hash.
const SUFFIX_LEN: usize = 1 + HASH_HEX_LEN;

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
    /// The same server appears twice in a tool table's input (MCP-8); code `duplicate_server`.
    DuplicateServer,
    /// The same tool appears twice in one server's list (MCP-8); code `duplicate_tool`.
    DuplicateTool,
    /// Two entries still share a name after the collision suffixes (MCP-8); code `name_collision`.
    NameCollision,
}

impl McpNameError {
    /// The contract's stable error code.
    pub fn code(&self) -> &'static str {
        match self {
            Self::EmptyName(_) => "empty_name",
            Self::NotMcpName(_) => "not_mcp_name",
            Self::DuplicateServer => "duplicate_server",
            Self::DuplicateTool => "duplicate_tool",
            Self::NameCollision => "name_collision",
        }
    }
}

impl fmt::Display for McpNameError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Self::EmptyName(Part::Server) => f.write_str("MCP server name is empty"),
            Self::EmptyName(Part::Tool) => f.write_str("MCP tool name is empty"),
            Self::NotMcpName(why) => write!(f, "not an MCP tool name: {why}"),
            Self::DuplicateServer => f.write_str("a server is listed twice"),
            Self::DuplicateTool => f.write_str("a tool is listed twice for one server"),
            Self::NameCollision => {
                f.write_str("two tools still share a name after the collision suffixes")
            }
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
    let s = server_part(server)?;
    let t = shorten(&normalize_name_part(tool), tool_room(&s));
    Ok(join(&s, &t))
}

fn join(s: &str, t: &str) -> String {
    let mut name = String::with_capacity(PREFIX.len() + s.len() + SEPARATOR.len() + t.len());
    name.push_str(PREFIX);
    name.push_str(s);
    name.push_str(SEPARATOR);
    name.push_str(t);
    name
}

/// The first [`HASH_HEX_LEN`] lowercase hex digits of SHA-256 of `data`.
fn hex(data: &[u8]) -> String {
    let digest = Sha256::digest(data);
    let mut out = String::with_capacity(HASH_HEX_LEN);
    for byte in digest.iter().take(HASH_HEX_LEN / 2) {
        // Writing to a String cannot fail.
        let _ = write!(out, "{byte:02x}");
    }
    out
}

/// `part` if it fits in `limit`, else its head, `_` and a hash of all of it (MCP-4).
/// `part` is normalized, so ASCII: byte positions are code-point positions.
fn shorten(part: &str, limit: usize) -> String {
    if part.len() <= limit {
        return part.to_owned();
    }
    let mut out = part
        .get(..limit - SUFFIX_LEN)
        .unwrap_or_default()
        .to_owned();
    out.push('_');
    out.push_str(&hex(part.as_bytes()));
    out
}

/// Code points left for the tool part after `mcp__<s>__` (at least 25).
fn tool_room(s: &str) -> usize {
    MAX_TOOL_NAME_LEN - PREFIX.len() - s.len() - SEPARATOR.len()
}

/// The `<S>` of every name of `server`: it depends on the server alone (MCP-4).
///
/// # Errors
/// [`McpNameError::EmptyName`] for an empty server.
pub fn server_part(server: &str) -> Result<String, McpNameError> {
    if server.is_empty() {
        return Err(McpNameError::EmptyName(Part::Server));
    }
    Ok(shorten(&normalize_name_part(server), MAX_SERVER_PART_LEN))
}

/// One row of a tool table: the model-facing name and the raw server and tool (MCP-8).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ToolEntry {
    /// The unique model-facing name.
    pub name: String,
    /// The server as configured.
    pub server: String,
    /// The tool as the server lists it.
    pub tool: String,
}

/// Every tool of every server under a unique name; routes a name back (MCP-8).
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct ToolTable {
    entries: Vec<ToolEntry>,
    by_name: HashMap<String, usize>,
}

impl ToolTable {
    /// The entries in input order (servers in order, each server's tools in order).
    pub fn entries(&self) -> &[ToolEntry] {
        &self.entries
    }

    /// The entry named `name`, or `None`: never a guess from the name's shape.
    pub fn resolve(&self, name: &str) -> Option<&ToolEntry> {
        self.by_name.get(name).and_then(|&i| self.entries.get(i))
    }
}

/// SHA-256 prefix of (server UTF-8, 0xFF, tool UTF-8); 0xFF never occurs in UTF-8.
fn collision_suffix(server: &str, tool: &str) -> String {
    let mut bytes = Vec::with_capacity(server.len() + 1 + tool.len());
    bytes.extend_from_slice(server.as_bytes());
    bytes.push(0xff);
    bytes.extend_from_slice(tool.as_bytes());
    hex(&bytes)
}

/// Name every tool of every server, in input order, without two entries sharing
/// a name (MCP-8). Every entry whose [`normalize_tool_name`] another entry shares
/// gets a tool part of `n(tool)` cut to leave room for `_` and a hash of its raw
/// server and tool; the server part never changes.
///
/// # Errors
/// `EmptyName`, `DuplicateServer`, `DuplicateTool`, or `NameCollision` when names
/// still coincide (only a crafted name or a 32-bit hash collision does that).
pub fn build_tool_table<'a, S, T>(servers: S) -> Result<ToolTable, McpNameError>
where
    S: IntoIterator<Item = (&'a str, T)>,
    T: IntoIterator<Item = &'a str>,
{
    // (server, tool, server part, base name)
    let mut raw: Vec<(&str, &str, String, String)> = Vec::new();
    let mut seen_servers = HashSet::new();
    for (server, tools) in servers {
        if !seen_servers.insert(server) {
            return Err(McpNameError::DuplicateServer);
        }
        let s = server_part(server)?;
        let mut seen_tools = HashSet::new();
        for tool in tools {
            if !seen_tools.insert(tool) {
                return Err(McpNameError::DuplicateTool);
            }
            raw.push((server, tool, s.clone(), normalize_tool_name(server, tool)?));
        }
    }
    let mut counts: HashMap<&str, usize> = HashMap::new();
    for (.., base) in &raw {
        *counts.entry(base.as_str()).or_default() += 1;
    }
    let entries: Vec<ToolEntry> = raw
        .iter()
        .map(|(server, tool, s, base)| {
            let name = if counts.get(base.as_str()).copied().unwrap_or(0) > 1 {
                let room = tool_room(s) - SUFFIX_LEN;
                let mut t: String = normalize_name_part(tool).chars().take(room).collect();
                t.push('_');
                t.push_str(&collision_suffix(server, tool));
                join(s, &t)
            } else {
                base.clone()
            };
            ToolEntry {
                name,
                server: (*server).to_owned(),
                tool: (*tool).to_owned(),
            }
        })
        .collect();
    let mut by_name = HashMap::with_capacity(entries.len());
    for (i, e) in entries.iter().enumerate() {
        if by_name.insert(e.name.clone(), i).is_some() {
            return Err(McpNameError::NameCollision);
        }
    }
    Ok(ToolTable { entries, by_name })
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
        // The tool part alone is hashed: sha256(50 x) starts 77cf1206 (checked with sha256sum).
        assert_eq!(name, format!("mcp__server01__{}_77cf1206", "x".repeat(40)));
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
