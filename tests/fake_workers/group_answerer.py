"""A worker that takes both extensions and answers ``=`` to every ``run`` line that
carried ``expect``, and the line given as its argument to every other one (``{id}``
there is the request's id as a JSON string), all the answers to what one read brought
in one write: the harness's reader then hands over mixed groups of lines at once, as
it does from the served children (tests/test_group_acknowledged.py).
"""

from __future__ import annotations

import json
import sys

from answer_loop import serve

answer = sys.argv[1]


def answer_run(message: dict[str, object]) -> str:
    return "=" if "expect" in message else answer.replace("{id}", json.dumps(message["id"]))


serve("group", answer_run)
