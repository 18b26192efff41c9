"""A conformance worker for anthropic 2.15.0 (PyPI) on http-retry: the SDK's own
retry loop, through its real client, on a scripted transport. The Stainless-generated
SDKs share one worker, examples/_stainless_retry.py, which says what is reported and how.

    pip install anthropic==2.15.0
    hanzo-conformance run --platform anthropic-py --domain http-retry
        --worker anthropic-py='python examples/anthropic-python-retry/worker.py'
        --expectations examples/anthropic-python-retry/expectations.json
"""

from __future__ import annotations

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))  # examples/: the shared worker

from _stainless_retry import main

if __name__ == "__main__":
    main("anthropic", "Anthropic", "http://retry.test", "httpx2")
