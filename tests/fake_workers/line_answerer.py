"""A worker that takes the extensions it is offered and answers every ``run`` line with
the line given as its argument (``{id}`` there is the request's id as a JSON string):
it says whatever the harness's tests need it to say (tests/test_expect_error.py).

``--take expect,expect-error`` names the extensions it takes (default: all offered).
"""

from __future__ import annotations

import json
import sys

from answer_loop import serve

args = sys.argv[1:]
take = None
if args[:1] == ["--take"]:
    take = [name for name in args[1].split(",") if name]
    args = args[2:]
answer = args[0]
serve(
    "lines",
    lambda message: answer.replace("{id}", json.dumps(message["id"])),
    extensions=lambda offered: offered if take is None else take,
)
