"""Platforms by name. Adding a platform is one line here (or a call to register_platform)."""

from __future__ import annotations

import importlib
import inspect
from collections.abc import Callable, Sequence
from typing import Any

from ._resources import export_hook_fixtures
from .protocol import Adapter

# name -> "module:factory"; imported only when that platform is used.
BUILTIN: dict[str, str] = {
    "python": "adapters.served:python",
    "rust": "adapters.served:rust",
    "js": "adapters.js:create",
}

_registered: dict[str, Callable[..., Adapter]] = {}


def register_platform(name: str, factory: Callable[..., Adapter]) -> None:
    """Make ``name`` a platform (tests use this for deliberately wrong ones)."""
    _registered[name] = factory


def unregister_platform(name: str) -> None:
    _registered.pop(name, None)


def platform_names() -> list[str]:
    return [*BUILTIN, *(n for n in _registered if n not in BUILTIN)]


def is_platform(name: str) -> bool:
    return name in _registered or name in BUILTIN


def factory_for(name: str) -> Callable[..., Adapter] | None:
    """The factory (importing a built-in platform's module, which may raise ImportError)."""
    if name in _registered:
        return _registered[name]
    spec = BUILTIN.get(name)
    if spec is None:
        return None
    export_hook_fixtures()  # before the platform's layers are imported or its child starts
    module, _, attr = spec.partition(":")
    factory: Callable[..., Adapter] = getattr(importlib.import_module(module), attr)
    return factory


def worker_factory(name: str, command: Sequence[str]) -> Callable[..., Adapter]:
    """The factory of an out-of-process platform speaking docs/protocol.md (``--worker``)."""

    def create_worker(*, timeout: float = 10.0) -> Adapter:
        from .worker import WorkerAdapter

        return WorkerAdapter(name, list(command), timeout=timeout)

    return create_worker


def create(name: str, **options: Any) -> Adapter:
    """Build the named platform's adapter, passing only the options its factory accepts."""
    factory = factory_for(name)
    if factory is None:
        raise KeyError(name)
    return build(factory, **options)


def build(factory: Callable[..., Adapter], **options: Any) -> Adapter:
    """Call ``factory`` with the options it accepts: the one way adapters are constructed."""
    params = inspect.signature(factory).parameters
    takes_any = any(p.kind is inspect.Parameter.VAR_KEYWORD for p in params.values())
    accepted = {k: v for k, v in options.items() if takes_any or k in params}
    return factory(**accepted)
