"""Hierarchical configuration (HIP-301 §4): user < project < local < environment.

The contract is ``docs/domains/config-merge.md`` (clauses ``CFG-*``). Loading never
fails because of a file's content: every problem becomes a :class:`ConfigWarning`
(code, tier, JSON pointer) and the offending file, key or server entry is skipped.
Warnings never carry values, so a secret cannot leak through them.
"""

from __future__ import annotations

import json
import logging
import math
import os
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Literal

from impl_python.errors import HanzoError
from impl_python.hooks import HookConfig
from impl_python.permissions import PermissionPolicy, PermissionRule

__all__ = [
    "DEFAULT_MODEL",
    "MAX_DEPTH",
    "TIERS",
    "ConfigParseError",
    "ConfigWarning",
    "HanzoConfig",
    "HookConfig",
    "LoadedConfig",
    "McpServerConfig",
    "PermissionMode",
    "decode_tier_text",
    "load_config",
    "load_config_with_warnings",
    "merge_tiers",
    "parse_tier_text",
    "permission_rules",
    "policy_from_config",
    "tier_paths",
]

DEFAULT_MODEL = "claude-sonnet-4-20250514"
"""``model`` when no tier and no environment variable sets it (CFG-9)."""

MAX_DEPTH = 64
"""Deepest allowed nesting of arrays and objects in a settings file (CFG-4)."""

_MAX_SAFE = 2**53 - 1
"""Integers beyond ±MAX_SAFE are parsed as the nearest binary64 value (CFG-4)."""

Tier = Literal["user", "project", "local"]
TIERS: tuple[Tier, ...] = ("user", "project", "local")
"""Tiers in merge order; a later tier overrides an earlier one (CFG-7)."""

PermissionMode = Literal["allow", "deny", "prompt"]
_MODES: frozenset[str] = frozenset(("allow", "deny", "prompt"))

_MODE_RANK: dict[str, int] = {"deny": 0, "prompt": 1, "allow": 2}
"""Config-built rules run every deny, then every prompt, then every allow (CFG-22)."""

InputMode = Literal["vim", "emacs", "default"]
_INPUT_MODES: frozenset[str] = frozenset(("vim", "emacs", "default"))

HookEvent = Literal["pre_tool_use", "post_tool_use"]
_HOOK_EVENTS: frozenset[str] = frozenset(("pre_tool_use", "post_tool_use"))
_HOOK_REQUIRED = ("event", "command", "tool_pattern")
DEFAULT_HOOK_TIMEOUT_MS = 5000
MAX_HOOK_TIMEOUT_MS = 2**31 - 1
"""The largest delay a JS timer honours; larger ones fire at once (CFG-24)."""

_SENSITIVE = frozenset(("api_key", "oauth_credentials"))
_log = logging.getLogger("hanzo.config")


@dataclass(frozen=True)
class McpServerConfig:
    """How to start one MCP server (HIP-301 §1)."""

    command: list[str]
    args: list[str] = field(default_factory=list)
    env: dict[str, str] = field(default_factory=dict)


@dataclass(frozen=True)
class HanzoConfig:
    """Merged configuration from all tiers and the environment."""

    api_key: str | None = None
    model: str = DEFAULT_MODEL
    mcp_servers: dict[str, McpServerConfig] = field(default_factory=dict)
    permissions: dict[str, PermissionMode] = field(default_factory=dict)
    custom_instructions: str = ""
    oauth_credentials: dict[str, Any] | None = None
    hooks: list[HookConfig] = field(default_factory=list)
    input_mode: InputMode = "default"


@dataclass(frozen=True)
class ConfigWarning:
    """Something in a tier was ignored. Never holds a value from the file (CFG-20)."""

    code: str
    tier: Tier
    key: str | None = None


@dataclass(frozen=True)
class LoadedConfig:
    """The merged config plus the sorted warnings produced while loading it."""

    config: HanzoConfig
    warnings: list[ConfigWarning]


class ConfigParseError(HanzoError):
    """A settings file is not a JSON text this contract accepts (CFG-4).

    ``load_config`` turns it into an ``invalid_json`` warning; it only escapes from
    :func:`decode_tier_text` and :func:`parse_tier_text`.
    """

    code = "invalid_json"


class _Unreadable(Exception):
    """Internal: the file exists but cannot be read (CFG-3)."""


# --------------------------------------------------------------------------- paths


def tier_paths(project_root: Path | str | None, env: Mapping[str, str]) -> dict[Tier, Path | None]:
    """Where each tier's file lives (CFG-1, CFG-2); ``None`` means the tier is not read."""
    user: Path | None = None
    xdg = env.get("XDG_CONFIG_HOME", "")
    home = env.get("HOME", "")
    if xdg and os.path.isabs(xdg):
        user = Path(xdg) / "hanzo" / "settings.json"
    elif home:
        user = Path(home) / ".config" / "hanzo" / "settings.json"
    project: Path | None = None
    local: Path | None = None
    if project_root is not None:
        project = Path(project_root) / ".hanzo" / "settings.json"
        local = Path(project_root) / ".hanzo" / "settings.local.json"
    return {"user": user, "project": project, "local": local}


def _read(path: Path) -> bytes | None:
    try:
        return path.read_bytes()
    except FileNotFoundError:
        return None
    except OSError as exc:
        raise _Unreadable(str(exc)) from None


# --------------------------------------------------------------------------- parsing


def _scan(text: str) -> str | None:
    """Lexical checks on the raw text (CFG-4); the reason, or ``None`` if they pass.

    Nesting deeper than MAX_DEPTH (brackets inside strings do not count) and ``\\u``
    escapes of surrogates that are not part of a pair. Both are properties of the
    text, so they are checked before parsing: a duplicate key (CFG-5) must not hide
    a lone surrogate in a value that a later occurrence replaces. Anything else
    malformed is left to the parser.
    """
    depth = 0
    in_string = False
    high = False  # the previous string element was a \\uD800-\\uDBFF escape
    i = 0
    n = len(text)
    while i < n:
        ch = text[i]
        i += 1
        if in_string:
            if ch == "\\" and i < n:
                esc = text[i]
                i += 1
                unit = _hex4(text, i) if esc == "u" else None
                if unit is not None:
                    i += 4
                    if 0xDC00 <= unit <= 0xDFFF:
                        if not high:
                            return "lone surrogate"
                        high = False
                        continue
                    if high:
                        return "lone surrogate"
                    high = 0xD800 <= unit <= 0xDBFF
                    continue
            elif ch == '"':
                in_string = False
            if high:
                return "lone surrogate"
        elif ch == '"':
            in_string = True
            high = False
        elif ch in "[{":
            depth += 1
            if depth > MAX_DEPTH:
                return "nested too deeply"
        elif ch in "]}":
            depth -= 1
    return None


def _hex4(text: str, i: int) -> int | None:
    digits = text[i : i + 4]
    if len(digits) != 4 or any(c not in "0123456789abcdefABCDEF" for c in digits):
        return None
    return int(digits, 16)


def _reject_constant(name: str) -> Any:
    raise ConfigParseError(f"{name} is not JSON")


def _parse_float(literal: str) -> float:
    value = float(literal)
    if math.isinf(value):
        raise ConfigParseError("number out of range")
    return value


def _parse_int(literal: str) -> int | float:
    """An integer literal: exact within ±(2^53-1), else the nearest binary64 (CFG-4)."""
    value = int(literal)
    if -_MAX_SAFE <= value <= _MAX_SAFE:
        return value
    try:
        return float(value)
    except OverflowError:
        raise ConfigParseError("number out of range") from None


def decode_tier_text(raw: bytes) -> str | None:
    """Decode one settings file (CFG-4): ``None`` for an empty tier (blank or BOM only).

    Raises ``ConfigParseError`` when the bytes are not UTF-8. One leading BOM is dropped.
    """
    try:
        text = raw.decode("utf-8")
    except UnicodeDecodeError:
        raise ConfigParseError("not UTF-8") from None
    if text.startswith("\ufeff"):
        text = text[1:]
    if text.strip(" \t\n\r") == "":
        return None
    return text


def parse_tier_text(text: str) -> Any:
    """Parse one decoded settings file as strict RFC 8259 JSON (CFG-4, CFG-5).

    Raises ``ConfigParseError`` for NaN/Infinity, numbers out of binary64 range, lone
    surrogates, nesting deeper than MAX_DEPTH and anything else ``json`` rejects.
    Duplicate keys: the last one wins.
    """
    problem = _scan(text)
    if problem is not None:
        raise ConfigParseError(problem)
    try:
        value = json.loads(
            text,
            parse_constant=_reject_constant,
            parse_float=_parse_float,
            parse_int=_parse_int,
        )
    except (ValueError, RecursionError) as exc:
        raise ConfigParseError(str(exc)) from None
    return value


# --------------------------------------------------------------------------- merging


def _pointer(*segments: str) -> str:
    return "".join("/" + s.replace("~", "~0").replace("/", "~1") for s in segments)


def _is_str_list(value: Any) -> bool:
    return isinstance(value, list) and all(isinstance(v, str) for v in value)


class _Merger:
    def __init__(self, *, trusted: bool) -> None:
        self.trusted = trusted
        self.api_key: str | None = None
        self.model: str = DEFAULT_MODEL
        self.mcp_servers: dict[str, McpServerConfig] = {}
        self.permissions: dict[str, PermissionMode] = {}
        self.custom_instructions = ""
        self.oauth_credentials: dict[str, Any] | None = None
        self.hooks: list[HookConfig] = []
        self.input_mode: InputMode = "default"
        self.warnings: list[ConfigWarning] = []

    def warn(self, code: str, tier: Tier, *segments: str) -> None:
        self.warnings.append(ConfigWarning(code, tier, _pointer(*segments) if segments else None))

    def apply(self, tier: Tier, doc: dict[str, Any]) -> None:
        for key, value in doc.items():
            if key in _SENSITIVE and tier != "user":
                self.warn("sensitive_key_ignored", tier, key)
            elif key == "api_key":
                if not isinstance(value, str):
                    self.warn("invalid_type", tier, key)
                elif value == "":
                    self.warn("invalid_value", tier, key)
                else:
                    self.api_key = value
            elif key == "oauth_credentials":
                if isinstance(value, dict):
                    self.oauth_credentials = value
                else:
                    self.warn("invalid_type", tier, key)
            elif key == "model":
                if not isinstance(value, str):
                    self.warn("invalid_type", tier, key)
                elif value == "":
                    self.warn("invalid_value", tier, key)
                else:
                    self.model = value
            elif key == "custom_instructions":
                if isinstance(value, str):
                    self.custom_instructions = value
                else:
                    self.warn("invalid_type", tier, key)
            elif key == "permissions":
                self._permissions(tier, value)
            elif key == "mcp_servers":
                self._servers(tier, value)
            elif key == "hooks":
                self._hooks(tier, value)
            elif key == "input_mode":
                if not isinstance(value, str):
                    self.warn("invalid_type", tier, key)
                elif value not in _INPUT_MODES:
                    self.warn("invalid_value", tier, key)
                else:
                    self.input_mode = value  # type: ignore[assignment]
            else:
                self.warn("unknown_key", tier, key)

    def _runs_nothing_from(self, tier: Tier) -> bool:
        """CFG-25: untrusted, the project and local tiers cannot make the agent run a process."""
        return not self.trusted and tier != "user"

    def _permissions(self, tier: Tier, value: Any) -> None:
        if not isinstance(value, dict):
            self.warn("invalid_type", tier, "permissions")
            return
        for pattern, mode in value.items():
            if pattern == "":
                self.warn("invalid_value", tier, "permissions", pattern)
            elif isinstance(mode, str) and mode in _MODES:
                self.permissions[pattern] = mode  # type: ignore[assignment]
            else:
                # Fail closed (CFG-15): a typo such as "Deny" must not let a broader allow apply.
                self.warn("invalid_mode_denied", tier, "permissions", pattern)
                self.permissions[pattern] = "deny"

    def _hooks(self, tier: Tier, value: Any) -> None:
        if not isinstance(value, list):
            self.warn("invalid_type", tier, "hooks")
            return
        for index, entry in enumerate(value):
            if not isinstance(entry, dict):
                self.warn("invalid_type", tier, "hooks", str(index))
                continue
            hook = self._hook(tier, str(index), entry)
            if hook is None:
                continue
            if self._runs_nothing_from(tier):  # CFG-25: a cloned repository runs no command
                self.warn("untrusted_ignored", tier, "hooks", str(index))
            else:
                self.hooks.append(hook)

    def _hook(self, tier: Tier, index: str, entry: dict[str, Any]) -> HookConfig | None:
        ok = True
        for fld, value in entry.items():
            bad: str | None = None
            if fld == "event":
                if not isinstance(value, str):
                    bad = "invalid_type"
                elif value not in _HOOK_EVENTS:
                    bad = "invalid_value"
            elif fld in ("command", "tool_pattern"):
                if not isinstance(value, str):
                    bad = "invalid_type"
                elif value == "":
                    bad = "invalid_value"
            elif fld == "timeout_ms":
                if isinstance(value, bool) or not isinstance(value, (int, float)):
                    bad = "invalid_type"
                elif not _valid_timeout(value):
                    bad = "invalid_value"
            else:
                self.warn("unknown_key", tier, "hooks", index, fld)
            if bad is not None:
                ok = False
                self.warn(bad, tier, "hooks", index, fld)
        for fld in _HOOK_REQUIRED:
            if fld not in entry:
                ok = False
                self.warn("missing_key", tier, "hooks", index, fld)
        if not ok:
            return None
        return HookConfig(
            event=entry["event"],
            command=entry["command"],
            tool_pattern=entry["tool_pattern"],
            timeout_ms=int(entry.get("timeout_ms", DEFAULT_HOOK_TIMEOUT_MS)),
        )

    def _servers(self, tier: Tier, value: Any) -> None:
        if not isinstance(value, dict):
            self.warn("invalid_type", tier, "mcp_servers")
            return
        for name, entry in value.items():
            if not isinstance(entry, dict):
                self.warn("invalid_type", tier, "mcp_servers", name)
            elif name == "":
                self.warn("invalid_value", tier, "mcp_servers", name)
            elif entry.get("disabled") is True:
                self.mcp_servers.pop(name, None)
            else:
                server = self._server(tier, name, entry)
                if server is None:
                    continue
                if self._runs_nothing_from(tier):  # CFG-25: nor starts a server process
                    self.warn("untrusted_ignored", tier, "mcp_servers", name)
                else:
                    self.mcp_servers[name] = server

    def _server(self, tier: Tier, name: str, entry: dict[str, Any]) -> McpServerConfig | None:
        ok = True
        for fld, value in entry.items():
            bad: str | None = None
            if fld == "command":
                if not _is_str_list(value):
                    bad = "invalid_type"
                elif not value:
                    bad = "invalid_value"
            elif fld == "args":
                if not _is_str_list(value):
                    bad = "invalid_type"
            elif fld == "env":
                if not isinstance(value, dict) or not all(
                    isinstance(v, str) for v in value.values()
                ):
                    bad = "invalid_type"
            elif fld == "disabled":
                if not isinstance(value, bool):
                    bad = "invalid_type"
            else:
                self.warn("unknown_key", tier, "mcp_servers", name, fld)
            if bad is not None:
                ok = False
                self.warn(bad, tier, "mcp_servers", name, fld)
        if "command" not in entry:
            ok = False
            self.warn("missing_key", tier, "mcp_servers", name, "command")
        if not ok:
            return None
        return McpServerConfig(
            command=list(entry["command"]),
            args=list(entry.get("args", [])),
            env=dict(entry.get("env", {})),
        )


def _valid_timeout(value: float) -> bool:
    """An integral number of milliseconds in 1..MAX_HOOK_TIMEOUT_MS (``5000.0`` counts, CFG-24)."""
    integral = isinstance(value, int) or value.is_integer()
    return integral and 1 <= value <= MAX_HOOK_TIMEOUT_MS


def _sort_key(w: ConfigWarning) -> tuple[int, str, str]:
    return (TIERS.index(w.tier), w.key or "", w.code)


def merge_tiers(
    raw: Mapping[Tier, bytes | None],
    env: Mapping[str, str],
    *,
    unreadable: frozenset[Tier] = frozenset(),
    trusted: bool = False,
) -> LoadedConfig:
    """Merge already-read tier files (``None`` = absent) with the environment (CFG-6..CFG-19).

    ``trusted`` (CFG-25): whether the project and local tiers may define hooks and MCP
    servers; untrusted (the default), those entries are dropped with a warning.
    """
    merger = _Merger(trusted=trusted)
    for tier in TIERS:
        if tier in unreadable:
            merger.warn("unreadable_file", tier)
            continue
        data = raw.get(tier)
        if data is None:
            continue
        try:
            text = decode_tier_text(data)
            if text is None:
                continue
            doc = parse_tier_text(text)
        except ConfigParseError:
            merger.warn("invalid_json", tier)
            continue
        if not isinstance(doc, dict):
            merger.warn("not_an_object", tier)
            continue
        merger.apply(tier, doc)
    env_key = env.get("HANZO_API_KEY", "")
    if env_key:
        merger.api_key = env_key
    env_model = env.get("HANZO_MODEL", "")
    if env_model:
        merger.model = env_model
    config = HanzoConfig(
        api_key=merger.api_key,
        model=merger.model,
        mcp_servers=merger.mcp_servers,
        permissions=merger.permissions,
        custom_instructions=merger.custom_instructions,
        oauth_credentials=merger.oauth_credentials,
        hooks=merger.hooks,
        input_mode=merger.input_mode,
    )
    return LoadedConfig(config, sorted(merger.warnings, key=_sort_key))


def load_config_with_warnings(
    project_root: Path | str | None = None,
    *,
    env: Mapping[str, str] | None = None,
    trusted: bool = False,
) -> LoadedConfig:
    """Read the three tier files and merge them; ``env`` defaults to ``os.environ``.

    ``trusted`` says the user trusts this project (CFG-25): only then are the project
    and local tiers' ``hooks`` and ``mcp_servers`` definitions honoured.
    """
    environ: Mapping[str, str] = os.environ if env is None else env
    raw: dict[Tier, bytes | None] = {}
    unreadable: set[Tier] = set()
    for tier, path in tier_paths(project_root, environ).items():
        if path is None:
            raw[tier] = None
            continue
        try:
            raw[tier] = _read(path)
        except _Unreadable:
            unreadable.add(tier)
    return merge_tiers(raw, environ, unreadable=frozenset(unreadable), trusted=trusted)


def load_config(
    project_root: Path | str | None = None,
    *,
    env: Mapping[str, str] | None = None,
    trusted: bool = False,
) -> HanzoConfig:
    """Load and merge configs: user < project < local < environment (HIP-301 §4).

    Untrusted (the default, CFG-25), project and local hooks and MCP servers are dropped.
    Warnings are logged to the ``hanzo.config`` logger (code, tier and key only).
    """
    loaded = load_config_with_warnings(project_root, env=env, trusted=trusted)
    for w in loaded.warnings:
        _log.warning("config %s: %s%s", w.tier, w.code, f" at {w.key}" if w.key else "")
    return loaded.config


# --------------------------------------------------------------------------- policy


def permission_rules(config: HanzoConfig) -> list[PermissionRule]:
    """The rules a policy built from ``config`` checks, in order (CFG-22).

    Every ``deny``, then every ``prompt``, then every ``allow``; within one mode by
    pattern in code-point order. Never the files' key order, which the three
    platforms' JSON maps iterate differently.
    """
    ordered = sorted(config.permissions.items(), key=lambda kv: (_MODE_RANK[kv[1]], kv[0]))
    return [PermissionRule(pattern, mode) for pattern, mode in ordered]


def policy_from_config(config: HanzoConfig) -> PermissionPolicy:
    """HIP-301 §7's ``PermissionPolicy`` built from ``config.permissions`` (CFG-22)."""
    return PermissionPolicy(permission_rules(config))
