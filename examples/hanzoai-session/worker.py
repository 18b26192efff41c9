"""A conformance worker for the token estimator of hanzoai 8.5.914 (Python >= 3.12),
on the token-estimation domain.

    python3.12 -m venv examples/hanzoai-session/.venv
    examples/hanzoai-session/.venv/bin/pip install -r examples/hanzoai-session/requirements.txt
    hanzo-conformance run --worker hanzoai-session='examples/hanzoai-session/.venv/bin/python
        examples/hanzoai-session/worker.py' --platform hanzoai-session --domain token-estimation
        --expectations examples/hanzoai-session/expectations.json

It speaks docs/protocol.md on stdin/stdout. hanzoai's ``session`` module ("Ported from
claw-code's session.rs and compact.rs") estimates a whole ``Session`` with
``estimate_session_tokens``: ``len(text) // 4 + 1`` per block, counting a text
block's text, a tool use's input and a tool result's output. Each message of a case
is made into a ``ConversationMessage`` the way a caller converting a wire message
would: a tool message (with ``tool_call_id``) is ``ConversationMessage.tool_result``
(no tool name: the wire message has none); any other message is a ``TextBlock`` of
its content (left out when it is empty and the message makes tool calls, as an
assistant message that only calls tools has no text block) followed by one
``ToolUseBlock(id, name, input=arguments)`` per call. A message's count is the
estimate of a session holding that message alone.

What hanzoai has no counterpart for is answered ``skip``, never compared: a bare text
(its estimator takes sessions, and reports no byte count: ``utf8_bytes``), and a list
in which any message has a given ``token_count`` (a ``ConversationMessage`` has none
to keep, TOK-5), which includes every error case. Nothing is corrected: the ledger
next to this file records where hanzoai differs (it counts code points and leaves
ids and names out).
"""

from __future__ import annotations

import json
import sys
import traceback
from importlib import metadata
from typing import Any

try:
    from hanzoai.session import (
        ConversationMessage,
        MessageRole,
        Session,
        TextBlock,
        ToolUseBlock,
        estimate_session_tokens,
    )
except ImportError:
    raise SystemExit(
        "hanzoai is not installed: pip install -r examples/hanzoai-session/requirements.txt"
    ) from None

NO_TEXT = "hanzoai 8.5.914 estimates sessions only and reports no byte count (utf8_bytes)"
NO_GIVEN = "a hanzoai ConversationMessage has no token_count to keep (TOK-5)"


class NotApplicable(Exception):
    """The case needs something hanzoai does not have; answered skip."""


def conversation_message(message: dict[str, Any]) -> ConversationMessage:
    if "tool_call_id" in message and message["role"] == "tool":
        return ConversationMessage.tool_result(message["tool_call_id"], "", message["content"])
    calls = message.get("tool_calls", [])
    blocks: list[Any] = []
    if message["content"] or not calls:
        blocks.append(TextBlock(text=message["content"]))
    for call in calls:
        arguments = call.get("arguments", "")
        blocks.append(ToolUseBlock(id=call["id"], name=call["name"], input=arguments))
    return ConversationMessage(role=MessageRole(message["role"]), blocks=blocks)


def token_estimation(case_input: dict[str, Any]) -> dict[str, Any]:
    if "text" in case_input:
        raise NotApplicable(NO_TEXT)
    messages = case_input["messages"]
    if any("token_count" in m for m in messages):
        raise NotApplicable(NO_GIVEN)
    counts = [
        estimate_session_tokens(Session(messages=[conversation_message(m)])) for m in messages
    ]
    return {
        "token_counts": counts,
        "estimated": [True] * len(counts),
        "total_tokens": estimate_session_tokens(
            Session(messages=[conversation_message(m) for m in messages])
        ),
    }


DOMAINS = {"token-estimation": token_estimation}


def answer(request: dict[str, Any]) -> dict[str, Any]:
    if request.get("cmd") == "start":
        return {
            "ok": True,
            "implementation": {
                "name": "hanzoai",
                "version": metadata.version("hanzoai"),
                "language": f"python {sys.version.split()[0]}",
                "domains": sorted(DOMAINS),
            },
        }
    run = DOMAINS.get(request.get("domain", ""))
    if run is None:
        return {"id": request.get("id", ""), "crash": {"message": "unknown domain", "detail": ""}}
    try:
        return {"id": request["id"], "output": run(request["input"])}
    except NotApplicable as e:
        return {"id": request["id"], "skip": {"reason": str(e)}}
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
