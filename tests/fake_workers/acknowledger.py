"""A worker that takes the expect extension and answers every ``run`` line with ``=``
("my output is what you expect"), whether or not the line carried ``expect``: it lies
to the harness's fast paths (tests/test_marked_passes.py).

Each ``=`` is written and flushed on its own, or, with ``--together``, all the answers
to what one read brought in one write (so the harness's reader hands over many ``=``
lines at once, as it does from the served children).
"""

from __future__ import annotations

import sys

from answer_loop import serve

serve(
    "ack",
    lambda message: "=",
    extensions=lambda offered: ["expect"],
    one_write_per_answer="--together" not in sys.argv[1:],
)
