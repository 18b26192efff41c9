"""http-retry JSON layer: one decision, or the decisions of a sequence (RETRY-10)."""

from __future__ import annotations

from typing import Any

from impl_python.retry import Decision, Failure, Response, RetryPolicy, TransportError, decide


def _failure(response: dict[str, Any]) -> Failure:
    if "error" in response:
        return TransportError(response["error"])
    return Response(response["status"], [(name, value) for name, value in response["headers"]])


def _output(decision: Decision) -> dict[str, Any]:
    return {
        "retry": decision.retry,
        "delay_ms": decision.delay_ms,
        "reason": decision.reason,
        "delay_source": decision.delay_source,
    }


def run(case_input: dict[str, Any]) -> dict[str, Any]:
    key = case_input.get("idempotency_key", False)
    if "steps" not in case_input:
        return _output(
            decide(
                _failure(case_input["response"]),
                method=case_input["method"],
                attempt=case_input["attempt"],
                max_retries=case_input["max_retries"],
                now_ms=case_input["now_ms"],
                sample=case_input["sample"],
                idempotency_key=key,
            )
        )
    policy = RetryPolicy(
        method=case_input["method"], max_retries=case_input["max_retries"], idempotency_key=key
    )
    decisions: list[dict[str, Any]] = []
    for step in case_input["steps"]:
        decision = policy.decide(
            _failure(step["response"]), now_ms=step["now_ms"], sample=step["sample"]
        )
        decisions.append(_output(decision))
        if not decision.retry:
            break
    return {"decisions": decisions}
