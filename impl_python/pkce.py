"""OAuth 2.1 PKCE with the S256 method (HIP-301 §6, RFC 7636; contract: docs/domains/oauth-pkce.md).

>>> s256_challenge("dBjftJeZ4CVP-mB92K27uhbUJU1p1r_wW1gFWFOEjXk")
'E9Melhoa2OwvFrEMTJguCHaoeK1t8URWbuGJSstw-cM'
"""

from __future__ import annotations

import base64
import hashlib
import secrets
import string
from dataclasses import dataclass
from typing import ClassVar

from impl_python.errors import HanzoError

__all__ = [
    "MAX_VERIFIER_LENGTH",
    "MIN_VERIFIER_LENGTH",
    "UNRESERVED",
    "InvalidVerifier",
    "PkceChallenge",
    "s256_challenge",
    "validate_verifier",
]

MIN_VERIFIER_LENGTH = 43
"""PKCE-1: the shortest valid verifier, in characters."""
MAX_VERIFIER_LENGTH = 128
"""PKCE-1: the longest valid verifier, in characters."""
UNRESERVED: frozenset[str] = frozenset(string.ascii_letters + string.digits + "-._~")
"""PKCE-2: the 66 characters a verifier may contain (RFC 3986 §2.3 ``unreserved``)."""

_GENERATED_BYTES = 32  # PKCE-5: 32 random octets -> 43 base64url characters


class InvalidVerifier(HanzoError):
    """PKCE-3: the verifier breaks the length (PKCE-1) or character-set (PKCE-2) rule."""

    code = "invalid_verifier"


def validate_verifier(verifier: object) -> str:
    """Return ``verifier`` unchanged if it is valid (PKCE-1, PKCE-2), else raise InvalidVerifier."""
    if not isinstance(verifier, str):
        raise InvalidVerifier(f"verifier must be a string, not {type(verifier).__name__}")
    # Python's str is a sequence of code points, so len() counts code points (PKCE-1).
    if not MIN_VERIFIER_LENGTH <= len(verifier) <= MAX_VERIFIER_LENGTH:
        raise InvalidVerifier(
            f"verifier has {len(verifier)} characters; "
            f"{MIN_VERIFIER_LENGTH}..{MAX_VERIFIER_LENGTH} required"
        )
    for index, char in enumerate(verifier):
        if char not in UNRESERVED:
            raise InvalidVerifier(
                f"verifier character {index} (U+{ord(char):04X}) is not in [A-Za-z0-9-._~]"
            )
    return verifier


def _base64url_nopad(data: bytes) -> str:
    return base64.urlsafe_b64encode(data).rstrip(b"=").decode("ascii")


def s256_challenge(verifier: str) -> str:
    """PKCE-4: ``base64url(SHA-256(ASCII(verifier)))`` without padding, for a valid verifier."""
    validate_verifier(verifier)
    return _base64url_nopad(hashlib.sha256(verifier.encode("ascii")).digest())


@dataclass(frozen=True)
class PkceChallenge:
    """A PKCE verifier and its S256 challenge (HIP-301 §6)."""

    verifier: str
    challenge: str
    method: ClassVar[str] = "S256"

    @classmethod
    def from_verifier(cls, verifier: str) -> PkceChallenge:
        """The pair for a caller-supplied verifier; raises InvalidVerifier (PKCE-3)."""
        return cls(verifier=verifier, challenge=s256_challenge(verifier))

    @classmethod
    def generate(cls) -> PkceChallenge:
        """PKCE-5: a fresh 43-character verifier from 32 CSPRNG bytes, and its challenge."""
        return cls.from_verifier(_base64url_nopad(secrets.token_bytes(_GENERATED_BYTES)))
