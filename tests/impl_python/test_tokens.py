"""What no vector file can carry: a lone surrogate (vector files refuse one; TOK-1)."""

from __future__ import annotations

from impl_python.tokens import estimate_message, estimate_text, utf8_length


def test_a_lone_surrogate_counts_three_bytes_as_its_wtf8_form() -> None:
    assert utf8_length("\ud800") == 3
    assert utf8_length("a\udfffb") == 5
    assert estimate_text("\ud800" * 4) == 12 // 4 + 1
    assert estimate_message("\ud800", tool_call_id="\udc00") == 6 // 4 + 1
