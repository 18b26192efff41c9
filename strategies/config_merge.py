"""config-merge: tiers that conflict, files that do not parse (BOM, trailing commas,
duplicate keys, non-objects), sensitive keys in the wrong tier, wrong types, and the
environment variables that override every tier."""

from __future__ import annotations

import json
from collections.abc import Sequence
from typing import Any

from hypothesis import strategies as st

from . import Property, Response, described

TIERS = ("user", "project", "local")
MODES = st.sampled_from(("allow", "deny", "prompt", "Allow", ""))
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
BROKEN = st.sampled_from(
    (
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
)
FILE = st.one_of(
    DOCUMENT.map(lambda d: json.dumps(d, ensure_ascii=False)),
    DOCUMENT.map(lambda d: "\ufeff" + json.dumps(d)),
    BROKEN,
    st.none(),
    st.just({"directory": True}),
)
ENV = st.dictionaries(
    st.sampled_from(("HANZO_API_KEY", "HANZO_MODEL", "OTHER")),
    st.sampled_from(("", "env-value", "é")),
)


def inputs() -> st.SearchStrategy[dict[str, Any]]:
    return st.fixed_dictionaries(
        {"files": st.fixed_dictionaries({t: FILE for t in TIERS})},
        optional={"env": ENV, "project_root": st.booleans()},
    )


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
    ),
)
