"""A conformance worker for tiktoken 0.14.0's o200k_base, on the token-encoding domain.

    pip install tiktoken==0.14.0
    npm ci --prefix examples/js-tiktoken      # the rank data (see below)
    hanzo-conformance run --worker tiktoken='python examples/tiktoken/worker.py' \
        --platform tiktoken --domain token-encoding \
        --expectations examples/tiktoken/expectations.json \
        --no-default-vectors --vectors examples/token-encoding/token-encoding.json \
        --schemas examples/token-encoding

tiktoken downloads ``o200k_base.tiktoken`` at run time, which no CI here can do. The
file is rebuilt instead from the ranks js-tiktoken 1.0.21 ships
(``dist/ranks/o200k_base.js``: lines ``! <first rank> <base64 token> ...``): one
``<base64 token> <rank>`` line per rank, in order. Its SHA-256 must be
tiktoken's ``expected_hash`` for that file, else the worker refuses to start; then it
is written to a private ``TIKTOKEN_CACHE_DIR`` under the name tiktoken looks for (the
SHA-1 of the file's URL), so tiktoken loads it as its own download, checking the hash
again. ``--ranks-js PATH`` names another copy of js-tiktoken's ranks module.

Each case is ``encode_ordinary(text)`` (TENC-2: special-token strings are text);
``--default-encode`` calls ``encode(text)`` as it comes, which raises on them.
Nothing is corrected: the ledger next to this file records any divergence.
"""

from __future__ import annotations

import atexit
import hashlib
import json
import os
import shutil
import sys
import tempfile
import traceback
from importlib import metadata
from pathlib import Path
from typing import Any

URL = "https://openaipublic.blob.core.windows.net/encodings/o200k_base.tiktoken"
# tiktoken 0.14.0's expected_hash for URL (tiktoken_ext/openai_public.py, o200k_base).
SHA256 = "446a9538cb6c348e3516120d7c08b09f57c36495e2acfffe59a5bf8b0cfb1a2d"
RANKS_JS = (
    Path(__file__).resolve().parent.parent
    / "js-tiktoken/node_modules/js-tiktoken/dist/ranks/o200k_base.js"
)


def rebuilt_rank_file(ranks_js: Path) -> bytes:
    """o200k_base.tiktoken from js-tiktoken's compressed ranks."""
    module = ranks_js.read_text(encoding="utf-8").strip()
    prefix = "export default "
    if not module.startswith(prefix):
        raise SystemExit(f"{ranks_js}: not js-tiktoken's ranks module")
    ranks = json.loads(module[len(prefix) :].rstrip(";"))
    by_rank: dict[int, str] = {}
    for line in filter(None, ranks["bpe_ranks"].split("\n")):
        _, first, *tokens = line.split(" ")
        for offset, token in enumerate(tokens):
            by_rank[int(first) + offset] = token
    return "".join(f"{by_rank[rank]} {rank}\n" for rank in sorted(by_rank)).encode("ascii")


def offline_cache(ranks_js: Path) -> str:
    data = rebuilt_rank_file(ranks_js)
    digest = hashlib.sha256(data).hexdigest()
    if digest != SHA256:
        raise SystemExit(f"rebuilt o200k_base.tiktoken has SHA-256 {digest}, not {SHA256}")
    folder = tempfile.mkdtemp(prefix="tiktoken-cache-")
    atexit.register(shutil.rmtree, folder, ignore_errors=True)
    (Path(folder) / hashlib.sha1(URL.encode()).hexdigest()).write_bytes(data)
    return folder


arguments = sys.argv[1:]
ranks_js = RANKS_JS
if "--ranks-js" in arguments:
    ranks_js = Path(arguments[arguments.index("--ranks-js") + 1])
if not ranks_js.is_file():
    raise SystemExit(f"{ranks_js} not found: npm ci --prefix examples/js-tiktoken")
os.environ["TIKTOKEN_CACHE_DIR"] = offline_cache(ranks_js)
try:
    import tiktoken
except ImportError:
    raise SystemExit("tiktoken is not installed: pip install tiktoken==0.14.0") from None

O200K = tiktoken.get_encoding("o200k_base")
DEFAULT_ENCODE = "--default-encode" in arguments


def token_encoding(case_input: dict[str, Any]) -> dict[str, Any]:
    if case_input["encoding"] != "o200k_base":
        raise ValueError(f"not carried: {case_input['encoding']}")
    text = case_input["text"]
    tokens = O200K.encode(text) if DEFAULT_ENCODE else O200K.encode_ordinary(text)
    return {"tokens": tokens, "count": len(tokens)}


DOMAINS = {"token-encoding": token_encoding}


def answer(request: dict[str, Any]) -> dict[str, Any]:
    if request.get("cmd") == "start":
        return {
            "ok": True,
            "implementation": {
                "name": "tiktoken",
                "version": metadata.version("tiktoken"),
                "language": f"python {sys.version.split()[0]}",
                "domains": sorted(DOMAINS),
            },
        }
    run = DOMAINS.get(request.get("domain", ""))
    if run is None:
        return {"id": request.get("id", ""), "crash": {"message": "unknown domain", "detail": ""}}
    try:
        return {"id": request["id"], "output": run(request["input"])}
    except Exception as e:  # a crash answers this case; the worker goes on
        return {
            "id": request["id"],
            "crash": {"message": repr(e), "detail": traceback.format_exc()},
        }


def main() -> None:
    for line in sys.stdin:
        request = json.loads(line)
        if request.get("cmd") == "stop":
            break
        sys.stdout.write(json.dumps(answer(request)) + "\n")
        sys.stdout.flush()


if __name__ == "__main__":
    main()
