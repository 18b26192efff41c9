//! The authorize URL (AUTH-1..9) and the form-decoding both it and the callback use.

use std::fmt::Write as _;

use crate::{AuthorizationRequest, OAuthError, PROMPT_VALUES};

/// AUTH-3: every name the client adds, whether or not a request sends it.
const ADDED_NAMES: [&str; 9] = [
    "response_type",
    "client_id",
    "redirect_uri",
    "scope",
    "state",
    "code_challenge",
    "code_challenge_method",
    "resource",
    "prompt",
];
const LOOPBACK: [&str; 3] = ["localhost", "127.0.0.1", "[::1]"];

fn is_unreserved(byte: u8) -> bool {
    byte.is_ascii_alphanumeric() || matches!(byte, b'-' | b'.' | b'_' | b'~')
}

fn is_uri_char(byte: u8) -> bool {
    is_unreserved(byte) || b":/?#[]@!$&'()*+,;=%".contains(&byte)
}

/// Every `%` is followed by two hex digits.
fn percent_ok(text: &str) -> bool {
    let bytes = text.as_bytes();
    bytes.iter().enumerate().all(|(at, &byte)| {
        byte != b'%'
            || (at + 2 < bytes.len()
                && bytes[at + 1].is_ascii_hexdigit()
                && bytes[at + 2].is_ascii_hexdigit())
    })
}

/// AUTH-1/AUTH-2: URI characters, good `%`, no fragment, https or loopback http.
fn valid_url(url: &str) -> bool {
    if !url.bytes().all(is_uri_char) || url.contains('#') || !percent_ok(url) {
        return false;
    }
    let Some((scheme, after)) = url.split_once("://") else {
        return false;
    };
    let authority = &after[..after.find(['/', '?']).unwrap_or(after.len())];
    if authority.contains('@') {
        return false;
    }
    let (host, port_part) = if authority.starts_with('[') {
        match authority.find(']') {
            Some(close) if ipv6_address(&authority[1..close]) => authority.split_at(close + 1),
            _ => return false,
        }
    } else {
        let host = authority.split(':').next().unwrap_or("");
        if host.is_empty() || host.contains(['[', ']']) {
            return false;
        }
        authority.split_at(host.len())
    };
    if !port_part.is_empty() {
        let digits = port_part.strip_prefix(':').unwrap_or("");
        if digits.is_empty() || !digits.bytes().all(|b| b.is_ascii_digit()) {
            return false;
        }
    }
    if scheme.eq_ignore_ascii_case("https") {
        return true;
    }
    scheme.eq_ignore_ascii_case("http") && LOOPBACK.iter().any(|l| host.eq_ignore_ascii_case(l))
}

/// AUTH-4: UTF-8, unreserved octets kept, everything else `%HH` uppercase.
fn encode(value: &str, out: &mut String) {
    for byte in value.bytes() {
        if is_unreserved(byte) {
            out.push(char::from(byte));
        } else {
            let _ = write!(out, "%{byte:02X}");
        }
    }
}

fn hex(byte: u8) -> u8 {
    match byte {
        b'0'..=b'9' => byte - b'0',
        b'a'..=b'f' => byte - b'a' + 10,
        _ => byte - b'A' + 10,
    }
}

/// `+` is a space, `%HH` an octet; `None` for a bad `%` or octets that are not UTF-8.
fn form_decode(text: &str) -> Option<String> {
    if !percent_ok(text) {
        return None;
    }
    let bytes = text.as_bytes();
    let mut raw = Vec::with_capacity(bytes.len());
    let mut at = 0;
    while at < bytes.len() {
        match bytes[at] {
            b'%' => {
                raw.push(hex(bytes[at + 1]) << 4 | hex(bytes[at + 2]));
                at += 3;
                continue;
            }
            b'+' => raw.push(b' '),
            byte => raw.push(byte),
        }
        at += 1;
    }
    String::from_utf8(raw).ok()
}

/// Terms, form-decoding: the query's (name, value) pairs; `None` if one cannot be decoded.
pub(crate) fn form_pairs(query: &str) -> Option<Vec<(String, String)>> {
    query
        .split('&')
        .filter(|piece| !piece.is_empty())
        .map(|piece| {
            let (name, value) = piece.split_once('=').unwrap_or((piece, ""));
            Some((form_decode(name)?, form_decode(value)?))
        })
        .collect()
}

fn is_vschar_text(text: &str) -> bool {
    !text.is_empty() && text.bytes().all(|b| (0x20..=0x7e).contains(&b))
}

/// RFC 6749 §3.3 scope-token: `%x21 / %x23-5B / %x5D-7E`, at least one.
fn is_scope_token(text: &str) -> bool {
    !text.is_empty()
        && text
            .bytes()
            .all(|b| matches!(b, 0x21 | 0x23..=0x5b | 0x5d..=0x7e))
}

fn unique<'a>(values: &[&'a str]) -> Vec<&'a str> {
    let mut seen: Vec<&str> = Vec::with_capacity(values.len());
    for value in values {
        if !seen.contains(value) {
            seen.push(value);
        }
    }
    seen
}

/// AUTH-1..9: the authorization request URL for the code flow with S256 PKCE.
///
/// # Errors
/// `invalid_endpoint`, `invalid_client_id`, `invalid_redirect_uri`, `invalid_scope`,
/// `invalid_state`, `invalid_verifier`, `invalid_resource`, `invalid_prompt`, the first
/// failing in AUTH-9's order.
pub fn authorization_url(request: &AuthorizationRequest<'_>) -> Result<String, OAuthError> {
    let endpoint = request.endpoint;
    if !valid_url(endpoint) {
        return Err(OAuthError::new("invalid_endpoint", "not a valid https URL"));
    }
    let query = endpoint.split_once('?').map(|(_, q)| q);
    if let Some(query) = query {
        let repeats = form_pairs(query).map_or(true, |pairs| {
            pairs
                .iter()
                .any(|(name, _)| ADDED_NAMES.contains(&name.as_str()))
        });
        if repeats {
            return Err(OAuthError::new(
                "invalid_endpoint",
                "the endpoint's query repeats a parameter the client adds",
            ));
        }
    }
    if !is_vschar_text(request.client_id) {
        return Err(OAuthError::new(
            "invalid_client_id",
            "client_id must be non-empty VSCHAR",
        ));
    }
    if !valid_url(request.redirect_uri) {
        return Err(OAuthError::new(
            "invalid_redirect_uri",
            "https or loopback http required",
        ));
    }
    if !request.scopes.iter().all(|s| is_scope_token(s)) {
        return Err(OAuthError::new(
            "invalid_scope",
            "not an RFC 6749 scope-token",
        ));
    }
    let scopes = unique(request.scopes);
    if !is_vschar_text(request.state) {
        return Err(OAuthError::new(
            "invalid_state",
            "state must be non-empty VSCHAR",
        ));
    }
    let challenge = hanzo_pkce::s256_challenge(request.code_verifier)
        .map_err(|err| OAuthError::new("invalid_verifier", err.to_string()))?;
    if let Some(resource) = request.resource {
        if !valid_url(resource) {
            return Err(OAuthError::new(
                "invalid_resource",
                "an absolute https URL required",
            ));
        }
    }
    let mut prompts = unique(request.prompt);
    if !prompts.iter().all(|p| PROMPT_VALUES.contains(p)) {
        return Err(OAuthError::new("invalid_prompt", "unknown prompt value"));
    }
    if scopes.contains(&"offline_access") && !prompts.contains(&"consent") {
        prompts.push("consent");
    }
    if prompts.contains(&"none") && prompts.len() > 1 {
        return Err(OAuthError::new("invalid_prompt", "none cannot be combined"));
    }

    let scope = scopes.join(" ");
    let prompt = prompts.join(" ");
    let mut params: Vec<(&str, &str)> = vec![
        ("response_type", "code"),
        ("client_id", request.client_id),
        ("redirect_uri", request.redirect_uri),
    ];
    if !scope.is_empty() {
        params.push(("scope", &scope));
    }
    params.extend([
        ("state", request.state),
        ("code_challenge", challenge.as_str()),
        ("code_challenge_method", hanzo_pkce::PkceChallenge::METHOD),
    ]);
    if let Some(resource) = request.resource {
        params.push(("resource", resource));
    }
    if !prompt.is_empty() {
        params.push(("prompt", &prompt));
    }
    let mut url = String::with_capacity(endpoint.len() + 256);
    url.push_str(endpoint);
    match query {
        None => url.push('?'),
        Some(q) if !q.is_empty() && !q.ends_with('&') => url.push('&'),
        Some(_) => {}
    }
    for (at, (name, value)) in params.iter().enumerate() {
        if at > 0 {
            url.push('&');
        }
        url.push_str(name);
        url.push('=');
        encode(value, &mut url);
    }
    Ok(url)
}

/// AUTH-2: RFC 3986 §3.2.2's `IPv6address`: eight groups of 1-4 hex digits, or fewer with
/// one `::` standing for at least one, the last two optionally a dotted IPv4.
fn ipv6_address(text: &str) -> bool {
    // A second `::` needs no test of its own: it leaves an empty group in the tail.
    let (mut groups, compressed): (Vec<&str>, bool) = match text.split_once("::") {
        None => (text.split(':').collect(), false),
        Some((head, tail)) => {
            let parts = [head, tail].into_iter().filter(|part| !part.is_empty());
            (parts.flat_map(|part| part.split(':')).collect(), true)
        }
    };
    let mut width = groups.len();
    if groups.last().is_some_and(|last| last.contains('.')) {
        if !groups.pop().is_some_and(ipv4_address) {
            return false;
        }
        width += 1;
    }
    let hex_group =
        |g: &&str| (1..=4).contains(&g.len()) && g.bytes().all(|b| b.is_ascii_hexdigit());
    groups.iter().all(hex_group) && if compressed { width < 8 } else { width == 8 }
}

/// RFC 3986 §3.2.2's `IPv4address`: four decimal octets 0-255, no leading zeros.
fn ipv4_address(text: &str) -> bool {
    let octets: Vec<&str> = text.split('.').collect();
    octets.len() == 4
        && octets.iter().all(|o| {
            (1..=3).contains(&o.len())
                && o.bytes().all(|b| b.is_ascii_digit())
                && (o.len() == 1 || !o.starts_with('0'))
                && o.parse::<u16>().is_ok_and(|n| n <= 255)
        })
}
