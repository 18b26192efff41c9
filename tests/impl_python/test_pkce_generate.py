"""PKCE-5: PkceChallenge.generate() returns valid, fresh pairs (property tests, not vectors)."""

from __future__ import annotations

import base64
import hashlib
import re

import pytest

from impl_python.pkce import (
    MAX_VERIFIER_LENGTH,
    MIN_VERIFIER_LENGTH,
    UNRESERVED,
    InvalidVerifier,
    PkceChallenge,
    s256_challenge,
)

_CHALLENGE = re.compile(r"[A-Za-z0-9_-]{43}")


def _independent_s256(verifier: str) -> str:
    digest = hashlib.sha256(verifier.encode("ascii")).digest()
    return base64.b64encode(digest).decode().replace("+", "-").replace("/", "_").rstrip("=")


def test_generated_pairs_are_valid_and_distinct() -> None:
    seen: set[str] = set()
    for _ in range(500):
        pair = PkceChallenge.generate()
        assert MIN_VERIFIER_LENGTH <= len(pair.verifier) <= MAX_VERIFIER_LENGTH
        assert len(pair.verifier) == 43
        assert set(pair.verifier) <= UNRESERVED
        assert pair.challenge == _independent_s256(pair.verifier)
        assert _CHALLENGE.fullmatch(pair.challenge)
        assert pair.method == "S256"
        # The generated verifier round-trips through validation.
        assert PkceChallenge.from_verifier(pair.verifier) == pair
        seen.add(pair.verifier)
    assert len(seen) == 500


def test_generated_verifiers_use_the_whole_base64url_alphabet() -> None:
    # 200 x 43 characters of uniform base64url: every one of the 64 symbols shows up.
    chars = {c for _ in range(200) for c in PkceChallenge.generate().verifier}
    assert chars == set("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_")


@pytest.mark.parametrize("bad", [None, 43, b"a" * 43])
def test_non_string_verifier_is_invalid(bad: object) -> None:
    with pytest.raises(InvalidVerifier) as info:
        s256_challenge(bad)  # type: ignore[arg-type]
    assert info.value.code == "invalid_verifier"


try:
    from hypothesis import given
    from hypothesis import strategies as st
except ImportError:  # hypothesis is in the optional "test" extra
    pass
else:
    _ALPHABET = "".join(sorted(UNRESERVED))

    @given(st.text(alphabet=_ALPHABET, min_size=43, max_size=128))
    def test_any_unreserved_verifier_in_range_is_accepted(verifier: str) -> None:
        pair = PkceChallenge.from_verifier(verifier)
        assert pair.challenge == _independent_s256(verifier)

    @given(
        st.text(alphabet=_ALPHABET, max_size=200).filter(
            lambda v: not MIN_VERIFIER_LENGTH <= len(v) <= MAX_VERIFIER_LENGTH
        )
    )
    def test_out_of_range_length_is_rejected(verifier: str) -> None:
        with pytest.raises(InvalidVerifier):
            s256_challenge(verifier)

    @given(
        st.text(alphabet=_ALPHABET, max_size=64),
        st.characters().filter(lambda c: c not in UNRESERVED),
        st.text(alphabet=_ALPHABET, max_size=64),
    )
    def test_any_character_outside_the_set_is_rejected(head: str, bad: str, tail: str) -> None:
        with pytest.raises(InvalidVerifier):
            s256_challenge(head + bad + tail)
