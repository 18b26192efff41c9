//! OAuth 2.1 PKCE with the `S256` method (RFC 7636), as HIP-301 §6 specifies it.
//!
//! The contract is `docs/domains/oauth-pkce.md`: a verifier is 43..=128
//! characters of `[A-Za-z0-9-._~]` (PKCE-1, PKCE-2), and its challenge is
//! `base64url(SHA-256(verifier))` without padding (PKCE-4).
//!
//! ```
//! let challenge = hanzo_pkce::s256_challenge("dBjftJeZ4CVP-mB92K27uhbUJU1p1r_wW1gFWFOEjXk")?;
//! assert_eq!(challenge, "E9Melhoa2OwvFrEMTJguCHaoeK1t8URWbuGJSstw-cM");
//! # Ok::<(), hanzo_pkce::PkceError>(())
//! ```

use base64::engine::general_purpose::URL_SAFE_NO_PAD;
use base64::Engine as _;
use sha2::{Digest, Sha256};
use std::fmt;

/// PKCE-1: the shortest valid verifier, in characters.
pub const MIN_VERIFIER_LENGTH: usize = 43;
/// PKCE-1: the longest valid verifier, in characters.
pub const MAX_VERIFIER_LENGTH: usize = 128;
/// PKCE-5: random octets drawn by [`PkceChallenge::generate`] (43 base64url characters).
const GENERATED_BYTES: usize = 32;

/// A contract error of this crate.
#[derive(Debug)]
#[non_exhaustive]
pub enum PkceError {
    /// PKCE-3: the verifier breaks the length (PKCE-1) or character-set (PKCE-2) rule.
    InvalidVerifier {
        /// Why, for people; not part of the contract.
        reason: String,
    },
    /// PKCE-5: the operating system's random source failed.
    RandomUnavailable(getrandom::Error),
}

impl PkceError {
    /// The contract's stable error code.
    pub fn code(&self) -> &'static str {
        match self {
            Self::InvalidVerifier { .. } => "invalid_verifier",
            Self::RandomUnavailable(_) => "random_unavailable",
        }
    }
}

impl fmt::Display for PkceError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Self::InvalidVerifier { reason } => write!(f, "invalid PKCE verifier: {reason}"),
            Self::RandomUnavailable(err) => write!(f, "OS random source unavailable: {err}"),
        }
    }
}

impl std::error::Error for PkceError {}

/// Whether `c` is in RFC 3986's `unreserved` set, `[A-Za-z0-9-._~]` (PKCE-2).
pub fn is_unreserved(c: char) -> bool {
    c.is_ascii_alphanumeric() || matches!(c, '-' | '.' | '_' | '~')
}

/// Check a verifier against PKCE-1 (43..=128 characters) and PKCE-2 (unreserved only).
///
/// # Errors
/// [`PkceError::InvalidVerifier`] if either rule is broken.
pub fn validate_verifier(verifier: &str) -> Result<(), PkceError> {
    // Characters first: once every char is ASCII, bytes == chars, so `len()` is the
    // code-point count PKCE-1 asks for and a multi-byte char can never slip through.
    if let Some((index, bad)) = verifier
        .chars()
        .enumerate()
        .find(|&(_, c)| !is_unreserved(c))
    {
        return Err(PkceError::InvalidVerifier {
            reason: format!(
                "character {index} (U+{:04X}) is not in [A-Za-z0-9-._~]",
                u32::from(bad)
            ),
        });
    }
    let length = verifier.len();
    if !(MIN_VERIFIER_LENGTH..=MAX_VERIFIER_LENGTH).contains(&length) {
        return Err(PkceError::InvalidVerifier {
            reason: format!(
                "{length} characters; {MIN_VERIFIER_LENGTH}..={MAX_VERIFIER_LENGTH} required"
            ),
        });
    }
    Ok(())
}

fn challenge_of_valid(verifier: &str) -> String {
    URL_SAFE_NO_PAD.encode(Sha256::digest(verifier.as_bytes()))
}

/// PKCE-4: `base64url(SHA-256(ASCII(verifier)))` without padding.
///
/// # Errors
/// [`PkceError::InvalidVerifier`] if the verifier breaks PKCE-1 or PKCE-2.
pub fn s256_challenge(verifier: &str) -> Result<String, PkceError> {
    validate_verifier(verifier)?;
    Ok(challenge_of_valid(verifier))
}

/// A PKCE verifier and its `S256` challenge (HIP-301 §6 `PkceChallenge`).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct PkceChallenge {
    verifier: String,
    challenge: String,
}

impl PkceChallenge {
    /// The `code_challenge_method` of every challenge this crate makes.
    pub const METHOD: &'static str = "S256";

    /// The pair for a caller-supplied verifier.
    ///
    /// # Errors
    /// [`PkceError::InvalidVerifier`] (PKCE-3).
    pub fn from_verifier(verifier: impl Into<String>) -> Result<Self, PkceError> {
        let verifier = verifier.into();
        let challenge = s256_challenge(&verifier)?;
        Ok(Self {
            verifier,
            challenge,
        })
    }

    /// PKCE-5: a fresh 43-character verifier (32 bytes from the OS CSPRNG,
    /// base64url without padding) and its challenge.
    ///
    /// # Errors
    /// [`PkceError::RandomUnavailable`] if the OS random source fails.
    pub fn generate() -> Result<Self, PkceError> {
        let mut bytes = [0u8; GENERATED_BYTES];
        getrandom::fill(&mut bytes).map_err(PkceError::RandomUnavailable)?;
        let verifier = URL_SAFE_NO_PAD.encode(bytes);
        let challenge = challenge_of_valid(&verifier);
        Ok(Self {
            verifier,
            challenge,
        })
    }

    /// The verifier (sent with the token request).
    pub fn verifier(&self) -> &str {
        &self.verifier
    }

    /// The challenge (sent with the authorization request).
    pub fn challenge(&self) -> &str {
        &self.challenge
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::collections::HashSet;

    const RFC_VERIFIER: &str = "dBjftJeZ4CVP-mB92K27uhbUJU1p1r_wW1gFWFOEjXk";

    fn code_of(verifier: &str) -> Option<&'static str> {
        s256_challenge(verifier).err().map(|e| e.code())
    }

    #[test]
    fn rfc7636_appendix_b() {
        let pair = PkceChallenge::from_verifier(RFC_VERIFIER).unwrap();
        assert_eq!(
            pair.challenge(),
            "E9Melhoa2OwvFrEMTJguCHaoeK1t8URWbuGJSstw-cM"
        );
        assert_eq!(pair.verifier(), RFC_VERIFIER);
    }

    #[test]
    fn length_bounds() {
        assert_eq!(code_of(&"a".repeat(42)), Some("invalid_verifier"));
        assert_eq!(code_of(&"a".repeat(43)), None);
        assert_eq!(code_of(&"a".repeat(128)), None);
        assert_eq!(code_of(&"a".repeat(129)), Some("invalid_verifier"));
        assert_eq!(code_of(""), Some("invalid_verifier"));
    }

    #[test]
    fn multibyte_characters_cannot_pass_the_length_check() {
        // 41 ASCII + one 4-byte emoji = 45 bytes, 43 UTF-16 units, 42 chars.
        assert_eq!(
            code_of(&format!("{}\u{1F600}", "a".repeat(41))),
            Some("invalid_verifier")
        );
        // 42 ASCII + 'é' (2 bytes) = 43 chars, 44 bytes.
        assert_eq!(
            code_of(&format!("{}\u{e9}", "a".repeat(42))),
            Some("invalid_verifier")
        );
        // 41 ASCII + 'é' = 43 bytes but 42 chars: too short, and invalid for the character.
        assert_eq!(
            code_of(&format!("{}\u{e9}", "a".repeat(41))),
            Some("invalid_verifier")
        );
    }

    #[test]
    fn every_unreserved_character_is_accepted_and_nothing_else_in_ascii() {
        for c in '\0'..='\u{7f}' {
            let verifier = format!("{c}{}", "a".repeat(42));
            let ok = c.is_ascii_alphanumeric() || "-._~".contains(c);
            assert_eq!(s256_challenge(&verifier).is_ok(), ok, "{c:?}");
        }
    }

    #[test]
    fn generated_pairs_are_valid_and_distinct() {
        let mut seen = HashSet::new();
        for _ in 0..300 {
            let pair = PkceChallenge::generate().unwrap();
            assert_eq!(pair.verifier().len(), 43);
            assert!(pair.verifier().chars().all(is_unreserved));
            assert!(validate_verifier(pair.verifier()).is_ok());
            assert_eq!(pair.challenge(), s256_challenge(pair.verifier()).unwrap());
            assert_eq!(pair.challenge().len(), 43);
            assert!(!pair.challenge().contains(['+', '/', '=']));
            assert!(
                seen.insert(pair.verifier().to_owned()),
                "duplicate verifier"
            );
        }
    }
}
