"""The ``hanzo-conformance`` console script.

It imports the CLI inside the interrupt guard: Ctrl-C while the harness's imports load
(the first ~200 ms) ends with one line and 130, as it does during a run, not with a
traceback from whichever module was loading. A reader that stops reading (``| head``)
ends the output quietly, as it does for any Unix tool, with SIGPIPE's code.
"""

from __future__ import annotations

import os
import sys

EXIT_BROKEN_PIPE = 128 + 13


def main() -> int:
    try:
        from ._cli import main as cli_main
    except KeyboardInterrupt:
        print("hanzo-conformance: interrupted", file=sys.stderr)
        return 130
    try:
        return cli_main()
    except BrokenPipeError:
        # Python would report the same error again when it flushes stdout at exit.
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
        return EXIT_BROKEN_PIPE
