"""The ``hanzo-conformance`` console script.

It imports the CLI inside the interrupt guard: Ctrl-C while the harness's imports load
(the first ~200 ms) ends with one line and 130, as it does during a run, not with a
traceback from whichever module was loading.
"""

from __future__ import annotations

import sys


def main() -> int:
    try:
        from ._cli import main as cli_main
    except KeyboardInterrupt:
        print("hanzo-conformance: interrupted", file=sys.stderr)
        return 130
    return cli_main()
