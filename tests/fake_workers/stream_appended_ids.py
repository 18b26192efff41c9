"""A planted fault for ``generate`` on stream-assembly: tool-call ids appended, not set.

openai-python 3.57.0's ``ChatCompletionStreamState`` does this (issue 27): a gateway
that repeats ``id`` and ``function.name`` in every delta gives ``"call_1call_1"``.
This worker is the Python reference with only that changed, speaking docs/protocol.md,
so the search has a real disagreement to find and shrink (tests/test_stream_assembly_generate.py).
"""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parents[2]))

from impl_python import stream_assembly
from impl_python.conformance.stream_assembly import event_json
from impl_python.sse import SseFrame


class AppendingAssembler(stream_assembly.StreamAssembler):
    """The reference, but openai-chat fragments append ``id`` (no set, no changed-identity
    rule): STREAM-5b and STREAM-5c broken for ids, nothing else."""

    def _fragments(self, calls: list[Any]) -> None:
        for position, call in enumerate(calls):
            if not isinstance(call, dict):
                raise stream_assembly._Invalid("a tool call is not an object")
            number = call.get("index")
            index = position if number is None else stream_assembly._index(number)
            id_ = stream_assembly._optional(call, "id", str)
            function = stream_assembly._optional(call, "function", dict)
            name = arguments = None
            if function is not None:
                name = stream_assembly._optional(function, "name", str)
                arguments = stream_assembly._optional(function, "arguments", str)
            slot = self._current.get(index)
            if slot is None:
                slot = stream_assembly._Slot(index, "", "", {})
                self._current[index] = slot
                self._slots.append(slot)
            if id_:
                slot.id += id_
            if name:
                slot.name = name
            if arguments:
                slot.parts.append(arguments)


def run(case_input: dict[str, Any]) -> dict[str, Any]:
    assembler = AppendingAssembler(case_input["dialect"])
    events = []
    for f in case_input["frames"]:
        events.extend(assembler.feed(SseFrame(f["event"], f["data"], f["id"], f["retry"])))
    events.extend(assembler.end())
    usage = assembler.usage
    return {
        "events": [event_json(e) for e in events],
        "usage": None
        if usage is None
        else {"input_tokens": usage.input_tokens, "output_tokens": usage.output_tokens},
    }


def answer(request: dict[str, Any]) -> dict[str, Any]:
    if request.get("cmd") == "start":
        implementation = {
            "name": "appended-ids",
            "version": "0",
            "language": "python",
            "domains": ["stream-assembly"],
        }
        return {"ok": True, "implementation": implementation}
    try:
        return {"id": request["id"], "output": run(request["input"])}
    except Exception as e:  # a crash answers this case; the worker goes on
        return {"id": request["id"], "crash": {"message": repr(e), "detail": ""}}


def main() -> None:
    for line in sys.stdin:
        request = json.loads(line)
        if request.get("cmd") == "stop":
            break
        sys.stdout.write(json.dumps(answer(request)) + "\n")
        sys.stdout.flush()


if __name__ == "__main__":
    main()
