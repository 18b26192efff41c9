"""config-merge: tiers that conflict, files that do not parse (BOM, trailing commas,
duplicate keys, non-objects), sensitive keys in the wrong tier, wrong types, and the
environment variables that override every tier."""

from __future__ import annotations

import json
from collections.abc import Sequence
from typing import Any

from hypothesis import strategies as st

from . import Property, Reader, Response, described, records

TIERS = ("user", "project", "local")
# Every table once: the byte-record decoder indexes them, the strategies sample them.
_MODES = ("allow", "deny", "prompt", "Allow", "")
_BROKEN = (
    "",
    "{",
    "[]",
    "null",
    '"x"',
    "\ufeff{}",
    '{"model": "a",}',
    '{"model": "a", "model": 1}',
    '{"model": "\\ud800"}',
    "{} {}",
    "\ufeff\ufeff{}",
    '{"oauth_credentials": {"n": 1e400}}',
)
_ENV_NAMES = ("HANZO_API_KEY", "HANZO_MODEL", "OTHER")
_ENV_VALUES = ("", "env-value", "é")
MODES = st.sampled_from(_MODES)
SCALAR = st.one_of(
    st.sampled_from(("m-a", "m-b", "", "é\U0001f600", "sk-1")),
    st.integers(-1, 2),
    st.none(),
    st.booleans(),
)
SERVER = st.fixed_dictionaries(
    {},
    optional={
        "command": st.one_of(st.lists(st.sampled_from(("npx", "", "x")), max_size=2), SCALAR),
        "args": st.lists(st.sampled_from(("-y", "--root")), max_size=2),
        "env": st.dictionaries(st.sampled_from(("LOG", "TOKEN")), st.sampled_from(("1", ""))),
        "disabled": st.one_of(st.booleans(), st.just("true")),
        "cwd": st.just("."),
    },
)
DOCUMENT = st.fixed_dictionaries(
    {},
    optional={
        "model": SCALAR,
        "api_key": SCALAR,
        "custom_instructions": SCALAR,
        "permissions": st.one_of(
            st.dictionaries(st.sampled_from(("fs.read", "mcp__*", "", "10", "2")), MODES),
            SCALAR,
        ),
        "mcp_servers": st.dictionaries(st.sampled_from(("fs", "gh", "")), SERVER, max_size=2),
        "oauth_credentials": st.one_of(
            st.fixed_dictionaries({"access_token": st.just("at")}), SCALAR
        ),
        "unknown": SCALAR,
    },
)
BROKEN = st.sampled_from(_BROKEN)
FILE = st.one_of(
    DOCUMENT.map(lambda d: json.dumps(d, ensure_ascii=False)),
    DOCUMENT.map(lambda d: "\ufeff" + json.dumps(d)),
    BROKEN,
    st.none(),
    st.just({"directory": True}),
)
ENV = st.dictionaries(st.sampled_from(_ENV_NAMES), st.sampled_from(_ENV_VALUES))


_SCALARS = ("m-a", "m-b", "", "é\U0001f600", "sk-1", -1, 0, 1, 2, None, True, False)
_RULE_KEYS = ("fs.read", "mcp__*", "", "10", "2")
_SCALAR_KEYS = ("model", "api_key", "custom_instructions", "unknown")


def _server(r: Reader) -> dict[str, Any]:
    present = r.byte()
    server: dict[str, Any] = {}
    command = r.byte()
    if present & 1:
        server["command"] = (
            [("npx", "", "x")[(command >> 2 + 2 * i) % 3] for i in range(command % 3)]
            if command & 0x80
            else _SCALARS[command % len(_SCALARS)]
        )
    if present & 2:
        server["args"] = ["-y", "--root"][: r.byte() % 3]
    if present & 4:
        env = r.byte()
        server["env"] = {
            k: ("1", "")[env >> 2 & 1] for i, k in enumerate(("LOG", "TOKEN")) if env >> i & 1
        }
    if present & 8:
        server["disabled"] = (False, True, "true")[r.byte() % 3]
    if present & 16:
        server["cwd"] = "."
    return server


def _document(r: Reader) -> dict[str, Any]:
    present = r.byte()
    doc: dict[str, Any] = {}
    for i, key in enumerate(_SCALAR_KEYS):
        value = r.pick(_SCALARS)
        if present >> i & 1:
            doc[key] = value
    rules, modes = r.byte(), r.byte()
    if present & 16:
        doc["permissions"] = (
            {k: _MODES[(modes >> i) % 5] for i, k in enumerate(_RULE_KEYS) if rules >> i & 1}
            if rules & 0x80 == 0
            else _SCALARS[rules % len(_SCALARS)]
        )
    if present & 32:
        names = ("fs", "gh", "")[: r.byte() % 3]
        doc["mcp_servers"] = {name: _server(r) for name in names}
    if present & 64:
        doc["oauth_credentials"] = {"access_token": "at"} if r.byte() % 2 == 0 else r.pick(_SCALARS)
    return doc


def _file(raw: bytes) -> Any:
    r = Reader(raw)
    kind = r.byte() % 8
    if kind == 0:
        return None
    if kind == 5:
        return r.pick(_BROKEN)
    if kind == 6:
        return {"directory": True}
    if kind == 4:
        return "\ufeff" + json.dumps(_document(r))
    return json.dumps(_document(r), ensure_ascii=False)


# Each tier's file from its own TIER_BYTES (a document with two servers reads 22),
# then the environment (3 bytes) and project_root (with the trust input in its top bit).
TIER_BYTES = 22
RECORD = 3 * TIER_BYTES + 4


def decode(record: bytes) -> dict[str, Any]:
    files = {t: _file(record[i * TIER_BYTES : (i + 1) * TIER_BYTES]) for i, t in enumerate(TIERS)}
    case: dict[str, Any] = {"files": files}
    env_set, env_values, env_on, root = record[3 * TIER_BYTES :]
    if env_on & 1:
        case["env"] = {
            name: _ENV_VALUES[(env_values >> 2 * i) % 3]
            for i, name in enumerate(_ENV_NAMES)
            if env_set >> i & 1
        }
    if root % 3:
        case["project_root"] = root % 3 == 1
    if root & 0x80:  # CFG-25: both trust modes, so project and local servers are merged too
        case["trusted"] = True
    return case


def inputs() -> st.SearchStrategy[dict[str, Any]]:
    return records(RECORD, decode)


def clauses(case_input: Any, response: Response) -> set[str]:
    found = {"CFG-7", "CFG-9"}
    files = case_input["files"]
    for text in files.values():
        if isinstance(text, dict):
            found.add("CFG-3")
        elif isinstance(text, str):
            try:
                doc = json.loads(text)
            except ValueError:
                found.add("CFG-4")
                continue
            if not isinstance(doc, dict):
                found.add("CFG-6")
                continue
            for key, clause in (
                ("model", "CFG-8"),
                ("api_key", "CFG-12"),
                ("oauth_credentials", "CFG-13"),
                ("permissions", "CFG-14"),
                ("mcp_servers", "CFG-16"),
                ("unknown", "CFG-11"),
            ):
                if key in doc:
                    found.add(clause)
    for tier in ("project", "local"):
        text = files.get(tier)
        if isinstance(text, str) and '"mcp_servers"' in text:
            found.add("CFG-25")
    if any(case_input.get("env", {}).get(k) for k in ("HANZO_API_KEY", "HANZO_MODEL")):
        found.add("CFG-19")
    if (response.get("output") or {}).get("warnings"):
        found.add("CFG-20")
    return found


_ENV_WINS = st.fixed_dictionaries(
    {
        "files": st.fixed_dictionaries({t: FILE for t in TIERS}),
        "env": st.fixed_dictionaries(
            {},
            optional={
                "HANZO_API_KEY": st.sampled_from(("env-key", "é")),
                "HANZO_MODEL": st.sampled_from(("env-model", "\U0001f600")),
            },
        ),
    }
)


def _decode_env_wins(record: bytes) -> dict[str, Any]:
    """Files as decode() draws them, and one or both overriding variables set."""
    case = decode(record)
    which, values = record[-4], record[-3]
    env: dict[str, str] = {}
    if which % 3 != 1:
        env["HANZO_API_KEY"] = ("env-key", "é")[values & 1]
    if which % 3 != 2:
        env["HANZO_MODEL"] = ("env-model", "\U0001f600")[values >> 1 & 1]
    return {"files": case["files"], "env": env}


def _env_wins(probe: dict[str, Any], responses: Sequence[Response]) -> str | None:
    (response,) = responses
    config = (response.get("output") or {}).get("config")
    if config is None:
        return f"load_config gave {described(response)}"
    for variable, field in (("HANZO_API_KEY", "api_key"), ("HANZO_MODEL", "model")):
        wanted = probe["env"].get(variable)
        if wanted and config.get(field) != wanted:
            return f"{variable}={wanted!r} but config.{field} is {config.get(field)!r}"
    return None


PROPERTIES = (
    Property(
        name="environment-always-wins",
        clauses=("CFG-19",),
        probes=_ENV_WINS,
        requests=lambda probe: [probe],
        check=_env_wins,
        candidate=lambda probe: probe,
        record=RECORD,
        decode=_decode_env_wins,
    ),
)
