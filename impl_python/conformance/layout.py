"""How an OS case is laid out: the one owner of the case layout of the domains that
build files, directories and processes (hooks, sandbox-paths, config-merge,
tool-call-pipeline).

``lay_out(domain, case_input)`` makes the case root (a fresh temporary directory),
builds what the case describes in it (sandbox-paths' tree, config-merge's tier files,
hooks' working directory) and returns a :class:`LaidCase` whose ``input`` is the
concrete case: every ``{root}`` and ``{fixtures}`` replaced, nothing left for the
platform to build. ``LaidCase.finish(output)`` turns the platform's answer into the
domain's output (what the ``record`` fixture saw and the leftover processes, for
hooks; the root written back as ``{root}``); ``LaidCase.close()`` removes the root
and kills what a hook left behind.

The Python platform's JSON layers call it for every case, and the harness calls it
for a worker that announced ``harness_lays_out`` in its handshake
(``adapters/laid.py``, docs/protocol.md "Harness-laid cases"), so both lay a case out
the same way. The concrete input of each domain is documented there.
"""

from __future__ import annotations

import contextlib
import json
import os
import shlex
import shutil
import tempfile
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

from . import case_root
from .case_root import PLACEHOLDER

FIXTURES_PLACEHOLDER = "{fixtures}"
FIXTURES_ENV = "HANZO_HOOK_FIXTURES"
LAID_DOMAINS = ("config-merge", "hooks", "sandbox-paths", "tool-call-pipeline")
"""The domains whose cases the harness can lay out (the handshake's ``harness_lays_out``)."""

_PREFIXES = {
    "config-merge": "hanzo-cfg-",
    "hooks": "hanzo-hooks-",
    "sandbox-paths": "hanzo-sandbox-",
    "tool-call-pipeline": "hanzo-pipeline-",
}


def fixtures() -> str:
    """The absolute path of ``fixtures/hooks/`` (``{fixtures}``): ``HANZO_HOOK_FIXTURES``
    when set (an installed wheel points it at its data), else the checkout's."""
    default = Path(__file__).resolve().parents[2] / "fixtures" / "hooks"
    return os.environ.get(FIXTURES_ENV, str(default))


def _bad(message: str) -> ValueError:
    """The harness validated the input against the schema: a mismatch is a bug here."""
    return ValueError(message)


def _checked(value: object, what: str) -> str:
    if not isinstance(value, str):
        raise _bad(f"{what} must be a string")
    return value


def substitute(text: str, root: str, *, command: bool = False) -> str:
    """``{root}`` and ``{fixtures}`` replaced (HOOK-4); in a command, each path as one
    /bin/sh word (``shlex.quote``: as it is when every character is safe, else in single
    quotes), so a checkout or temp dir with a space, quote or ``$`` runs the same hook."""
    word = shlex.quote if command else str
    return text.replace(PLACEHOLDER, word(root)).replace(FIXTURES_PLACEHOLDER, word(fixtures()))


def unroot(value: Any, root: str) -> Any:
    """Every occurrence of the case root in a string of ``value`` written ``{root}``."""
    if isinstance(value, str):
        return value.replace(root, PLACEHOLDER)
    if isinstance(value, list):
        return [unroot(v, root) for v in value]
    if isinstance(value, dict):
        return {k: unroot(v, root) for k, v in value.items()}
    return value


def relative_to_root(path: str | None, root: str) -> str | None:
    """``path`` with the root written ``{root}``; null outside the root (SBX-9)."""
    if path is None:
        return None
    if path == root:
        return PLACEHOLDER
    if path.startswith(root + "/"):
        return PLACEHOLDER + path[len(root) :]
    return None


def saw(root: str, observe: list[str]) -> dict[str, Any]:
    """What each ``record`` fixture wrote under ``root`` (hooks' ``saw``)."""
    found: dict[str, Any] = {}
    for env_file in sorted(Path(root).rglob("*.env")):
        name = env_file.name[: -len(".env")]
        env: dict[str, str] = {}
        for entry in env_file.read_bytes().split(b"\0"):
            key, sep, value = entry.partition(b"=")
            if sep:
                env[key.decode("utf-8", "replace")] = value.decode("utf-8", "replace")
        cwd = env_file.with_suffix(".cwd").read_text(encoding="utf-8").rstrip("\n")
        found[name] = {
            "env": {var: env.get(var) for var in observe},
            "cwd": PLACEHOLDER + cwd[len(root) :]
            if cwd == root or cwd.startswith(root + "/")
            else cwd,
            "stdin": env_file.with_suffix(".stdin").read_text(encoding="utf-8"),
        }
    return found


class LaidCase:
    """A case laid out under ``root``: ``input`` is the concrete case a platform runs."""

    def __init__(
        self,
        domain: str,
        root: str,
        concrete: dict[str, Any],
        finish: Callable[[dict[str, Any]], dict[str, Any]] | None = None,
        counts_leftovers: bool = False,
        finish_kills: bool = False,
    ) -> None:
        self.domain = domain
        self.root = root
        self.input = concrete
        self._finish = finish
        self._counts_leftovers = counts_leftovers
        self._finish_kills = finish_kills
        self._closed = False

    def finish(self, output: dict[str, Any]) -> dict[str, Any]:
        """The domain's output from a platform's answer to ``input`` (called once)."""
        if self._finish is None:
            return output
        finished = self._finish(output)
        if self._finish_kills:  # it counted (and killed) the leftovers already
            self._counts_leftovers = False
        return finished

    def close(self) -> None:
        """Kill what the case's hooks left running (hooks' ``finish`` counted and killed
        them already) and remove the root (once)."""
        if self._closed:
            return
        self._closed = True
        if self._counts_leftovers:
            from .hooks import _leftovers  # the process side of the hooks layer

            _leftovers(self.root)
        shutil.rmtree(self.root, ignore_errors=True)


def _new_root(domain: str) -> str:
    return os.path.realpath(tempfile.mkdtemp(prefix=_PREFIXES[domain]))


# -- hooks ---------------------------------------------------------------------------


def _hooks(case_input: dict[str, Any], root: str) -> LaidCase:
    """Concrete input: ``{hooks, event, tool_name, tool_input, tool_result?, session_id,
    env, cwd}`` with ``{root}``/``{fixtures}`` replaced in hook commands (one shell word
    each), ``cwd`` and ``env`` values, ``cwd`` made unless ``create_cwd`` is false and
    ``tool_input_fill`` applied. The output's ``saw`` and ``leftover_processes`` are the
    layout's observations, added by ``finish``."""
    hooks, env, observe = case_input.get("hooks"), case_input.get("env"), case_input.get("observe")
    if not isinstance(hooks, list) or not isinstance(env, dict) or not isinstance(observe, list):
        raise _bad("input.hooks, input.env and input.observe are required")
    concrete_hooks = []
    for raw in hooks:
        if not isinstance(raw, dict):
            raise _bad("each hook must be an object")
        command = _checked(raw.get("command"), "hook commands")
        concrete_hooks.append({**raw, "command": substitute(command, root, command=True)})
    raw_cwd = _checked(case_input.get("cwd"), "input.cwd")
    cwd = substitute(raw_cwd, root)
    cwd_rel = case_root.under_root(cwd, root, f"input.cwd {raw_cwd!r}")
    if case_input.get("create_cwd", True):  # false: a vector of HOOK-4's missing directory
        case_root.make_dirs(root, cwd_rel, f"input.cwd {raw_cwd!r}")
    tool_input = case_input.get("tool_input")
    fill = case_input.get("tool_input_fill")
    if fill is not None and isinstance(tool_input, dict):
        tool_input = {**tool_input, fill["key"]: fill["text"] * fill["count"]}
    concrete = {
        key: value
        for key, value in case_input.items()
        if key not in ("create_cwd", "tool_input_fill", "observe")
    }
    concrete.update(
        hooks=concrete_hooks,
        cwd=cwd,
        env={k: substitute(_checked(v, "env values"), root) for k, v in env.items()},
        tool_input=tool_input,
    )
    names = [str(v) for v in observe]

    def finish(output: dict[str, Any]) -> dict[str, Any]:
        from .hooks import _leftovers

        return {**output, "saw": saw(root, names), "leftover_processes": _leftovers(root)}

    return LaidCase("hooks", root, concrete, finish, counts_leftovers=True, finish_kills=True)


# -- sandbox-paths -------------------------------------------------------------------


def _sandbox_paths(case_input: dict[str, Any], root: str) -> LaidCase:
    """Concrete input: ``{op: check_path, config: {mode, allowed_paths}, workspace,
    path}`` or ``{op: detect_container, root, env}``, the tree built under the root and
    ``{root}`` replaced; ``finish`` writes ``resolved`` back with ``{root}`` (null
    outside the root, SBX-9)."""
    from .sandbox_paths import build_tree  # which refuses entries that would escape

    op = case_input.get("op")
    if op not in ("check_path", "detect_container"):
        raise _bad("input.op must be check_path or detect_container")
    build_tree(root, case_input.get("tree"))
    if op == "detect_container":
        return LaidCase(
            "sandbox-paths", root, {"op": op, "root": root, "env": case_input.get("env")}
        )

    def sub(value: object, what: str) -> str:
        return _checked(value, what).replace(PLACEHOLDER, root)

    config = case_input.get("config")
    if not isinstance(config, dict) or not isinstance(config.get("allowed_paths"), list):
        raise _bad("input.config must be {mode, allowed_paths}")
    concrete = {
        "op": op,
        "config": {
            "mode": config.get("mode"),
            "allowed_paths": [sub(p, "allowed_paths[]") for p in config["allowed_paths"]],
        },
        "workspace": sub(case_input.get("workspace"), "input.workspace"),
        "path": sub(case_input.get("path"), "input.path"),
    }

    def finish(output: dict[str, Any]) -> dict[str, Any]:
        resolved = output.get("resolved")
        return {**output, "resolved": relative_to_root(resolved, root)}

    return LaidCase("sandbox-paths", root, concrete, finish)


# -- config-merge --------------------------------------------------------------------


def _place(path: Path, spec: Any) -> None:
    if spec is None:
        return
    path.parent.mkdir(parents=True, exist_ok=True)
    if isinstance(spec, str):
        path.write_bytes(spec.encode("utf-8"))
    elif "bytes" in spec:  # one byte per code point U+0000..U+00FF (the schema's pattern)
        path.write_bytes(spec["bytes"].encode("latin-1"))
    else:  # {"directory": true}
        path.mkdir()


def _config_merge(case_input: dict[str, Any], root: str) -> LaidCase:
    """Concrete input: ``{env, project_root, trusted, evaluate?}``: ``env`` the whole
    environment ``load_config`` reads (the case's, plus ``HOME`` and
    ``XDG_CONFIG_HOME`` as the case says), ``project_root`` an absolute path or null,
    the tier files written under ``<root>/home``, ``<root>/xdg`` and ``<root>/project``
    (docs/domains/config-merge.md, "Harness input")."""
    files: dict[str, Any] = case_input["files"]
    xdg_mode: str = case_input.get("xdg_config_home", "absent")
    base = Path(root)
    home, xdg, project = base / "home", base / "xdg", base / "project"
    for d in (home, xdg, project):
        d.mkdir()
    env: dict[str, str] = dict(case_input.get("env", {}))
    env["HOME"] = str(home)
    home_env = case_input.get("home_env", "set")
    if home_env == "unset":
        del env["HOME"]
    elif home_env == "empty":
        env["HOME"] = ""
    if xdg_mode == "temp":
        env["XDG_CONFIG_HOME"] = str(xdg)
        _place(xdg / "hanzo" / "settings.json", files.get("user"))
        _place(home / ".config" / "hanzo" / "settings.json", files.get("home"))
    else:
        if xdg_mode == "empty":
            env["XDG_CONFIG_HOME"] = ""
        elif xdg_mode == "relative":
            env["XDG_CONFIG_HOME"] = "xdg"
        _place(home / ".config" / "hanzo" / "settings.json", files.get("user"))
    _place(project / ".hanzo" / "settings.json", files.get("project"))
    _place(project / ".hanzo" / "settings.local.json", files.get("local"))
    concrete: dict[str, Any] = {
        "env": env,
        "project_root": str(project) if case_input.get("project_root", True) else None,
        "trusted": case_input.get("trusted", False),
    }
    if "evaluate" in case_input:
        concrete["evaluate"] = case_input["evaluate"]
    return LaidCase("config-merge", root, concrete)


# -- tool-call-pipeline --------------------------------------------------------------


def _settings_text(text: Any, root: str) -> Any:
    """A settings tier's text with the placeholders replaced in its hook commands only
    (docs/domains/tool-call-pipeline.md): a text without a placeholder, or one that is
    not a settings object, is left byte for byte as it is."""
    if not isinstance(text, str) or (PLACEHOLDER not in text and FIXTURES_PLACEHOLDER not in text):
        return text
    try:
        settings = json.loads(text)
    except ValueError:
        return text
    hooks = settings.get("hooks") if isinstance(settings, dict) else None
    if not isinstance(hooks, list):
        return text
    for hook in hooks:
        if isinstance(hook, dict) and isinstance(hook.get("command"), str):
            hook["command"] = substitute(hook["command"], root, command=True)
    return json.dumps(settings, ensure_ascii=False)


def _tool_call_pipeline(case_input: dict[str, Any], root: str) -> LaidCase:
    """Concrete input: the case with ``sandbox.tree`` built (and dropped) and ``{root}``/
    ``{fixtures}`` replaced in ``call.paths``, the sandbox's ``workspace`` and
    ``allowed_paths`` and hook commands (``hooks[].command``, and those of the settings
    tiers' texts); ``finish`` writes the root back as ``{root}`` in every string."""
    from .sandbox_paths import build_tree  # which refuses entries that would escape

    def sub(text: str) -> str:
        return substitute(text, root)

    box = case_input["sandbox"]
    build_tree(root, box["tree"])
    concrete = dict(case_input)
    concrete["sandbox"] = {
        "workspace": sub(box["workspace"]),
        "config": {
            **box["config"],
            "allowed_paths": [sub(p) for p in box["config"]["allowed_paths"]],
        },
    }
    call = case_input["call"]
    concrete["call"] = {**call, "paths": [sub(p) for p in call["paths"]]}
    if "hooks" in case_input:
        concrete["hooks"] = [
            {**h, "command": substitute(h["command"], root, command=True)}
            for h in case_input["hooks"]
        ]
    settings = case_input.get("settings")
    if settings is not None:
        files = settings.get("files", {})
        concrete["settings"] = {
            **settings,
            "files": {tier: _settings_text(text, root) for tier, text in files.items()},
        }
    return LaidCase(
        "tool-call-pipeline",
        root,
        concrete,
        lambda output: unroot(output, root),
    )


_LAYOUTS: dict[str, Callable[[dict[str, Any], str], LaidCase]] = {
    "config-merge": _config_merge,
    "hooks": _hooks,
    "sandbox-paths": _sandbox_paths,
    "tool-call-pipeline": _tool_call_pipeline,
}


def lay_out(domain: str, case_input: dict[str, Any]) -> LaidCase:
    """Make the case root and build the case in it; the caller closes the result (the
    root is removed again if building fails)."""
    layout = _LAYOUTS[domain]
    root = _new_root(domain)
    try:
        return layout(case_input, root)
    except BaseException:
        shutil.rmtree(root, ignore_errors=True)
        raise


@contextlib.contextmanager
def laid(domain: str, case_input: dict[str, Any]) -> Iterator[LaidCase]:
    """``lay_out`` as a context: the root is removed when the block ends."""
    case = lay_out(domain, case_input)
    try:
        yield case
    finally:
        case.close()
