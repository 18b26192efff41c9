"""A conformance worker for hanzoai 2.1.3 (PyPI, Hanzo's Python SDK) on http-retry: the SDK's own
retry loop, through its real client, on a scripted transport. The Stainless-generated
SDKs share one worker, examples/_stainless_retry.py, which says what is reported and how.

    pip install hanzoai==2.1.3
    hanzo-conformance run --platform hanzoai-retry --domain http-retry
        --worker hanzoai-retry='python examples/hanzoai-retry/worker.py'
        --expectations examples/hanzoai-retry/expectations.json
"""

from __future__ import annotations

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))  # examples/: the shared worker

from _stainless_retry import main

if __name__ == "__main__":
    main("hanzoai", "Hanzo", "http://retry.test", "httpx")
