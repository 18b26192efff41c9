"""A request line made from a case's cached input text is byte for byte the encoded request."""

from __future__ import annotations

from typing import Any, cast

import pytest

from adapters.messages import BadRequest, KnownInputText, encode_request
from adapters.protocol import Request
from runners.vectors.load import VECTORS_DIR, Case, load_vectors


def _both(request_id: str, case: Case) -> tuple[bytes, bytes]:
    assert case.input_json is not None
    known = KnownInputText(request_id, case.domain, case.input, case.input_json)
    plain: Request = {"id": request_id, "domain": case.domain, "input": case.input}
    return encode_request(cast(Request, known)), encode_request(plain)


def test_every_vector_case_gets_the_same_line_either_way() -> None:
    cases = [c for vf in load_vectors([VECTORS_DIR]) for c in vf.cases]
    assert len(cases) > 100
    for case in cases:
        known, plain = _both(f"{case.domain}/{case.id}#0", case)
        assert known == plain, case.id
        assert case.input_size == len(case.input_json or "")


def _case(case_input: Any) -> Case:
    return Case("oauth-pkce", "x", "", (), {}, (), case_input, expected="y")


@pytest.mark.parametrize(
    "case_input",
    [
        {"verifier": 'caf\u00e9 \u2028 "quoted" \\ \n'},
        {"text": "lone \ud800 surrogate"},  # no UTF-8 form: both fall back to \\u escapes
        [1, 2.5, None, True, {"k": []}],
    ],
)
def test_awkward_inputs_and_ids_get_the_same_line(case_input: Any) -> None:
    known, plain = _both('odd "id" \u00e9 \ud801', _case(case_input))
    assert known == plain


def test_input_that_is_not_json_has_no_text_and_is_refused_as_before() -> None:
    case = _case({"n": float("nan")})
    assert case.input_json is None
    with pytest.raises(BadRequest, match="not JSON"):
        encode_request({"id": "a", "domain": "oauth-pkce", "input": case.input})


def test_a_bad_domain_is_refused_even_with_the_text() -> None:
    case = _case({"a": 1})
    assert case.input_json is not None
    bad = KnownInputText("a", "Not Kebab", case.input, case.input_json)
    with pytest.raises(BadRequest, match=r"does not match run\.json"):
        encode_request(cast(Request, bad))


def test_an_empty_id_is_refused_even_with_the_text() -> None:
    case = _case({"a": 1})
    assert case.input_json is not None
    bad = KnownInputText("", "oauth-pkce", case.input, case.input_json)
    with pytest.raises(BadRequest, match=r"does not match run\.json"):
        encode_request(cast(Request, bad))
