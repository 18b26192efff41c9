"""Argument types that refuse bad values at parse time (exit 2 before anything runs)."""

from __future__ import annotations

import argparse
import math
import shlex

from adapters import registry


def positive_seconds(text: str) -> float:
    """A finite number of seconds greater than 0 (``--case-timeout``)."""
    try:
        value = float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"not a number: {text!r}") from None
    if not math.isfinite(value) or value <= 0:
        raise argparse.ArgumentTypeError(f"must be a finite number of seconds > 0, got {text!r}")
    return value


def non_negative_int(text: str) -> int:
    """An integer >= 0 (``--max-problems``)."""
    try:
        value = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"not an integer: {text!r}") from None
    if value < 0:
        raise argparse.ArgumentTypeError(f"must be 0 or more, got {text!r}")
    return value


def positive_int(text: str) -> int:
    """An integer >= 1 (pytest's ``--batch-cases``)."""
    value = non_negative_int(text)
    if value < 1:
        raise argparse.ArgumentTypeError(f"must be 1 or more, got {text!r}")
    return value


def worker_spec(text: str) -> str:
    """``NAME=COMMAND`` with a new platform name and a command that splits (shell-like)."""
    name, sep, command = text.partition("=")
    if not sep or not name or not command.strip():
        raise argparse.ArgumentTypeError(f"takes NAME=COMMAND, got {text!r}")
    if registry.is_platform(name):
        raise argparse.ArgumentTypeError(
            f"{name!r} is a built-in platform; give the worker another name, got {text!r}"
        )
    try:
        shlex.split(command)
    except ValueError as e:
        raise argparse.ArgumentTypeError(f"cannot split the command {command!r}: {e}") from None
    return text


def check_unique_workers(parser: argparse.ArgumentParser, specs: list[str]) -> None:
    """The same worker name twice is an argument error (the second would replace the first)."""
    seen: set[str] = set()
    for spec in specs:
        name = spec.partition("=")[0]
        if name in seen:
            parser.error(f"argument --worker: the name {name!r} is given twice")
        seen.add(name)


def shard(text: str) -> tuple[int, int]:
    """``i/n`` with 1 <= i <= n (``--shard``)."""
    index, sep, count = text.partition("/")
    try:
        i, n = int(index), int(count)
    except ValueError:
        raise argparse.ArgumentTypeError(f"takes I/N (e.g. 2/4), got {text!r}") from None
    if not sep or n < 1 or not 1 <= i <= n:
        raise argparse.ArgumentTypeError(f"takes I/N with 1 <= I <= N, got {text!r}")
    return i, n
