"""impl_python/oauth.py beyond its JSON layer: defaults and error types (the behaviour
itself is pinned by vectors/oauth-authorize.json)."""

from __future__ import annotations

from urllib.parse import parse_qs, urlsplit

import pytest

from impl_python.errors import HanzoError
from impl_python.oauth import (
    AuthorizationDenied,
    OAuthError,
    TokenRequestFailed,
    TokenResponse,
    authorization_url,
    parse_callback,
    parse_token_response,
)
from impl_python.pkce import InvalidVerifier, PkceChallenge

REQUEST = {
    "client_id": "c",
    "redirect_uri": "http://127.0.0.1:8765/cb",
    "scopes": [],
    "state": "s",
}


def test_a_generated_pair_is_sent_as_its_challenge_and_nothing_is_added_by_default() -> None:
    pair = PkceChallenge.generate()
    url = authorization_url("https://as.example/authorize", code_verifier=pair.verifier, **REQUEST)
    query = parse_qs(urlsplit(url).query)
    assert query["code_challenge"] == [pair.challenge]
    assert query["code_challenge_method"] == ["S256"]
    assert not {"resource", "prompt", "code_verifier", "scope"} & query.keys()


def test_refusals_are_hanzo_errors_with_the_contract_codes() -> None:
    with pytest.raises(OAuthError) as refused:
        authorization_url("http://as.example/a", code_verifier="x", **REQUEST)
    assert isinstance(refused.value, HanzoError) and refused.value.code == "invalid_endpoint"
    with pytest.raises(InvalidVerifier):
        authorization_url("https://as.example/a", code_verifier="short", **REQUEST)
    with pytest.raises(OAuthError) as mismatch:
        parse_callback("http://127.0.0.1/cb?code=a", expected_state="s")
    assert mismatch.value.code == "state_mismatch"


def test_the_servers_error_responses_carry_its_parameters_and_are_not_hanzo_errors() -> None:
    with pytest.raises(AuthorizationDenied) as denied:
        parse_callback("http://127.0.0.1/cb?error=access_denied&state=s", expected_state="s")
    assert not isinstance(denied.value, HanzoError)
    assert (denied.value.error, denied.value.error_description, denied.value.error_uri) == (
        "access_denied",
        None,
        None,
    )
    with pytest.raises(TokenRequestFailed) as failed:
        parse_token_response('{"error":"invalid_grant","error_description":"d"}', now=0)
    assert (failed.value.error, failed.value.error_description) == ("invalid_grant", "d")


def test_previous_refresh_token_defaults_to_none() -> None:
    body = '{"access_token":"a","token_type":"bearer","expires_in":5}'
    assert parse_token_response(body, now=10) == TokenResponse("a", "Bearer", 15, None, None)
