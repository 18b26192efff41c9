"""Judge one case on one platform: pass, partial, fail, error or skip."""

from __future__ import annotations

import copy
import json
from collections.abc import Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass, field, replace
from typing import Any, Literal, NamedTuple, overload

from adapters._json import same_json
from adapters.protocol import ABSENT, ErrorAsExpected, OutputAsExpected

from ..vectors.load import Case
from ..vectors.pointer import is_index, parse
from ..vectors.schemas import domain_schema, pointer
from .compare import MISSING, Difference, diff, rules_for

# partial: the output the platform has matched, but fields it declared absent were not
# compared (docs/protocol.md, "Partial answers"): never a pass.
Status = Literal["pass", "partial", "fail", "error", "skip", "not_run"]
SEVERITY: dict[Status, int] = {
    "pass": 0,
    "partial": 1,
    "skip": 1,
    "not_run": 1,
    "fail": 2,
    "error": 3,
}


@dataclass(frozen=True)
class SchemaViolation:
    pointer: str
    message: str
    variant: str | None = None
    # None: the domain's output schema; "i-json": a string or key no UTF-8 JSON can hold
    # (RFC 7493), which every output must be and no JSON Schema can say.
    rule: str | None = None

    def to_json(self) -> dict[str, Any]:
        out = {"pointer": self.pointer, "message": self.message}
        if self.variant is not None:
            out["variant"] = self.variant
        if self.rule is not None:
            out["rule"] = self.rule
        return out


@dataclass(frozen=True, init=False)
class Outcome:
    """What happened to one case on one platform."""

    domain: str
    case: str
    case_hash: str
    platform: str
    status: Status
    actual: Any = MISSING
    diff: tuple[Difference, ...] = ()
    schema_errors: tuple[SchemaViolation, ...] = ()
    message: str | None = None
    detail: str | None = None
    variant: str | None = field(default=None)  # for an error: the chunking it happened on
    input: Any = MISSING  # the case's input, for reports
    absent: tuple[str, ...] = ()  # declared-absent fields the case expects: not compared

    # Written out because one outcome is made per case and platform: the frozen
    # dataclass __init__ sets the twelve fields one object.__setattr__ at a time,
    # about twice the cost of setting the instance dict at once. Same fields, same
    # defaults, same order as declared above (tests/test_outcomes_fast.py checks).
    def __init__(
        self,
        domain: str,
        case: str,
        case_hash: str,
        platform: str,
        status: Status,
        actual: Any = MISSING,
        diff: tuple[Difference, ...] = (),
        schema_errors: tuple[SchemaViolation, ...] = (),
        message: str | None = None,
        detail: str | None = None,
        variant: str | None = None,
        input: Any = MISSING,
        absent: tuple[str, ...] = (),
    ) -> None:
        object.__setattr__(
            self,
            "__dict__",
            {
                "domain": domain,
                "case": case,
                "case_hash": case_hash,
                "platform": platform,
                "status": status,
                "actual": actual,
                "diff": diff,
                "schema_errors": schema_errors,
                "message": message,
                "detail": detail,
                "variant": variant,
                "input": input,
                "absent": absent,
            },
        )

    def to_json(self) -> dict[str, Any]:
        fields = self.__dict__  # one look-up per field, not an attribute lookup each
        status = fields["status"]
        out: dict[str, Any] = {
            "domain": fields["domain"],
            "case": fields["case"],
            "case_hash": fields["case_hash"],
            "platform": fields["platform"],
            "status": status,
        }
        if (status == "fail" or status == "error" or status == "partial") and fields[
            "input"
        ] is not MISSING:
            out["input"] = fields["input"]
        actual = fields["actual"]
        if actual is not MISSING:
            out["actual"] = actual
        diff = fields["diff"]
        out["diff"] = [d.to_json() for d in diff] if diff else []
        if fields["schema_errors"]:
            out["schema_errors"] = [s.to_json() for s in fields["schema_errors"]]
        if fields["message"] is not None:
            out["message"] = fields["message"]
        if fields["detail"] is not None:
            out["detail"] = fields["detail"]
        if fields["variant"] is not None:
            out["variant"] = fields["variant"]
        if fields["absent"]:
            out["absent"] = list(fields["absent"])
        return out


def unjudged(
    case: Case, platform: str, status: Status, message: str | None, detail: str | None = None
) -> Outcome:
    """A case's outcome where its platform gave no answer to judge (the platform did not
    start, the run was interrupted, its job died): the status and why, with the case's
    input for reports."""
    return Outcome(
        case.domain,
        case.id,
        case.content_hash(),
        platform,
        status,
        message=message,
        detail=detail,
        input=case.input,
    )


_new_outcome = object.__new__
_set_fields = object.__setattr__


def passed(case: Case, platform: str, actual: Any) -> Outcome:
    """A pass with its ``actual`` (the output, or ``{"error": ...}``): the same ``Outcome``
    as ``Outcome(..., "pass", actual, input=case.input)``, made without the call through
    ``__init__`` (one per passing case and platform)."""
    outcome: Outcome = _new_outcome(Outcome)
    _set_fields(
        outcome,
        "__dict__",
        {
            "domain": case.domain,
            "case": case.id,
            "case_hash": case.content_hash(),
            "platform": platform,
            "status": "pass",
            "actual": actual,
            "diff": (),
            "schema_errors": (),
            "message": None,
            "detail": None,
            "variant": None,
            "input": case.input,
            "absent": (),
        },
    )
    return outcome


Item = Outcome | ErrorAsExpected | dict[str, Any] | None
"""An ``Outcomes`` item: the outcome; ``None``, passed as expected; an error's body
(``dict``), the expected error passed; an :class:`ErrorAsExpected` (the worker's
acknowledgement of the expected error, kept as it came: its ``error`` is the body)."""


def error_body(item: ErrorAsExpected | dict[str, Any]) -> dict[str, Any]:
    """The error body of an ``Outcomes`` item that is a passed expected error."""
    return item["error"] if type(item) is ErrorAsExpected else item


class Outcomes(Sequence[Outcome]):
    """What ``runners.run.batches.run_cases`` returns: one outcome per case, in the cases' order.

    A pass whose output was acknowledged as the case's expected value (the expect
    extension's ``=``, or the expected answer line byte for byte: ``None`` from
    ``WorkerAdapter.run_expected``) is held as ``None`` in ``items``, and the pass of
    an expected error as the error's body (a ``dict``: its actual is ``{"error":
    body}``) or as the worker's ``ErrorAsExpected`` holding it; each is made into its
    ``Outcome`` (``passed``) only when asked for: the CLI writes such a pass's results
    line straight from its case (``runners.run.stream.encode_chunk``), so a healthy run
    makes no object per case and platform for it. To everyone else it is a sequence
    of ``Outcome``.
    """

    __slots__ = ("cases", "items", "platform")

    def __init__(self, cases: Sequence[Case], platform: str, items: Sequence[Item]) -> None:
        self.cases = cases
        self.platform = platform
        self.items = items  # items[i] is cases[i]'s (see Item)

    def __len__(self) -> int:
        return len(self.items)

    @overload
    def __getitem__(self, index: int) -> Outcome: ...

    @overload
    def __getitem__(self, index: slice) -> list[Outcome]: ...

    def __getitem__(self, index: int | slice) -> Outcome | list[Outcome]:
        if isinstance(index, slice):
            return list(_made(self.cases[index], self.platform, self.items[index]))
        item = self.items[index]
        if type(item) is Outcome:
            return item
        return _pass(self.cases[index], self.platform, item)

    def __iter__(self) -> Iterator[Outcome]:
        return _made(self.cases, self.platform, self.items)

    def __eq__(self, other: object) -> bool:  # as a list of the same outcomes would be
        if isinstance(other, Outcomes):
            other = list(other)
        return list(self) == other

    __hash__ = None  # type: ignore[assignment]  # unhashable, as a list is

    def __repr__(self) -> str:
        return f"Outcomes({list(self)!r})"


def _pass(case: Case, platform: str, item: Item) -> Outcome:
    if item is None:
        return passed(case, platform, case.expected)
    if type(item) is dict or type(item) is ErrorAsExpected:
        return passed(case, platform, {"error": error_body(item)})
    assert type(item) is Outcome
    return item


def _made(cases: Sequence[Case], platform: str, items: Sequence[Item]) -> Iterator[Outcome]:
    for case, item in zip(cases, items, strict=True):
        yield item if type(item) is Outcome else _pass(case, platform, item)


def _envelope(response: Mapping[str, Any]) -> Any:
    if "error" in response:
        return {"error": response["error"].get("code")}
    return {"output": response.get("output")}


def _actual(response: Mapping[str, Any]) -> Any:
    if "output" in response:
        return response["output"]
    if "error" in response:
        return {"error": response["error"]}
    return MISSING


class Judged(NamedTuple):
    """What ``judge_response`` finds in one answer."""

    differences: list[Difference]
    violations: list[SchemaViolation]
    not_compared: tuple[str, ...]
    """The declared-absent fields (as declared) that the expected output has: not compared."""


def judge_response(
    case: Case,
    response: Mapping[str, Any],
    rules: Sequence[Mapping[str, Any]],
    variant: str | None,
    align: bool = True,
    pairs_first: bool = True,
    absent: Sequence[str] = (),
) -> Judged:
    """Differences and schema violations of one response (a crash is handled by the caller):
    the one judgement of an answer, ``run``'s, the pytest plugin's and ``generate``'s
    (``runners.generate.known.answer_causes``). Arrays of different lengths are aligned
    (``runners.judge.compare.diff``; ``pairs_first``: which of two equally good alignments);
    ``generate`` also reads them position by position (``align=False``).

    Partial answers (docs/protocol.md): the fields the platform declared absent for the
    domain (``absent``, from its handshake) or in this answer (its ``absent``) are taken
    out of the expected output, and the rest is compared. The actual output must not hold
    them (a value there is an ``extra`` difference: the platform said it has none, so a
    value is the worker's invention); the output schema is checked with the expected
    values standing in for them, so only the fields the platform has are judged.
    ``not_compared`` names the declared fields the case expects: with no difference the
    case is ``partial``, never ``pass``."""
    if case.expects_error or "error" in response:
        want = {"error": case.error} if case.expects_error else {"output": case.expected}
        got = _envelope(response)
        return Judged([] if got == want else [Difference("", want, got, variant)], [], ())
    output = response.get("output")
    expected, checked = case.expected, output
    not_compared: tuple[str, ...] = ()
    declared = response.get(ABSENT)
    if absent or declared:
        expected, checked, not_compared = without_absent(
            case.expected, output, (*absent, *(declared or ()))
        )
    schema = domain_schema(case.domain)
    violations = []
    if schema is not None:
        violations = [
            SchemaViolation(pointer(e.absolute_path), e.message, variant)
            for e in schema.output.iter_errors(checked)
        ]
    differences = [
        Difference(d.pointer, d.expected, d.actual, variant)
        # Aligned: a dropped or extra element is one difference, not a shift of the rest.
        for d in diff(expected, output, rules_for(rules, case.input), align, pairs_first)
    ]
    return Judged(differences, violations, not_compared)


def _members(document: Any, segments: Sequence[str]) -> Iterator[list[str | int]]:
    """The concrete paths in ``document`` that name an object member matching the
    declared field ``segments`` (``*``: every member of an array or object on the way)."""
    if not segments:
        return
    head, rest = segments[0], segments[1:]
    if isinstance(document, dict):
        keys: Iterable[str | int] = document if head == "*" else [head] if head in document else []
    elif isinstance(document, list) and rest:
        if head == "*":
            keys = range(len(document))
        else:
            keys = [int(head)] if is_index(head) and int(head) < len(document) else []
    else:
        return
    for key in keys:
        if not rest:
            yield [key]
        else:
            for tail in _members(document[key], rest):
                yield [key, *tail]


def without_absent(
    expected: Any, actual: Any, declared: Iterable[str]
) -> tuple[Any, Any, tuple[str, ...]]:
    """(the expected output without the declared fields, the actual output with the
    expected values in their place where it lacks them (for the schema check only), the
    declared fields the expected output has), as ``judge_response`` compares a partial
    answer. A field's last segment names an object member; the originals are not changed."""
    paths: list[list[str | int]] = []
    found: list[str] = []
    for field_pointer in dict.fromkeys(declared):
        matched = list(_members(expected, parse(field_pointer)))
        if matched:
            found.append(field_pointer)
            paths.extend(matched)
    if not paths:
        return expected, actual, ()
    expected_rest = copy.deepcopy(expected)
    filled = copy.deepcopy(actual)
    for path in paths:
        holder, value = expected_rest, expected
        for key in path[:-1]:
            value = value[key]
            # A field inside one declared before it is gone already (None).
            if isinstance(holder, dict):
                holder = holder.get(key)
            elif isinstance(holder, list) and isinstance(key, int):
                holder = holder[key]
        if isinstance(holder, dict):
            holder.pop(path[-1], None)
        into = filled
        for key in path[:-1]:
            if isinstance(into, list):
                into = into[key] if isinstance(key, int) and key < len(into) else None
            else:
                into = into.get(key) if isinstance(into, dict) else None
        if isinstance(into, dict) and path[-1] not in into:
            into[path[-1]] = value[path[-1]]
    return expected_rest, filled, tuple(sorted(found))


def expected_error(code: str | None, error: Any) -> bool:
    """The error is the expected code, and all of it is I-JSON (plain UTF-8 strings).

    The fast path for error cases: such an answer has no difference (an error is
    judged by its code alone) and nothing for ``not_i_json`` to find.
    """
    if type(error) is not dict or error.get("code") != code:
        return False
    try:
        for key, value in error.items():
            if type(key) is not str or type(value) is not str:
                return False
            key.encode("utf-8")
            value.encode("utf-8")
    except UnicodeEncodeError:
        return False
    return True


def _lone_surrogate(value: Any, at: str = "") -> tuple[str, str] | None:
    """(pointer, string) of the first string or key holding a lone surrogate, if any."""
    if isinstance(value, str):
        try:
            value.encode("utf-8")
        except UnicodeEncodeError:
            return at, value
        return None
    if isinstance(value, dict):
        for key, item in value.items():
            found = _lone_surrogate(key, at) or _lone_surrogate(item, f"{at}/{key}")
            if found:
                return found
    if isinstance(value, list):
        for index, item in enumerate(value):
            found = _lone_surrogate(item, f"{at}/{index}")
            if found:
                return found
    return None


def not_i_json(response: Mapping[str, Any]) -> SchemaViolation | None:
    """Why an output or error cannot be written as UTF-8 JSON (I-JSON, RFC 7493), if it
    cannot: at the output's pointer that holds it, or the whole answer's for an error."""
    for key in ("output", "error"):
        if key not in response:
            continue
        try:
            json.dumps(response[key], ensure_ascii=False).encode("utf-8")
            return None
        except UnicodeEncodeError:
            found = _lone_surrogate(response[key])
        pointer, text = found if found else ("", "")
        where = (pointer or "(root)") if key == "output" else f"the error's {pointer[1:]}"
        shown = json.dumps(text)  # ASCII, so the surrogate shows as its \\u escape
        if len(shown) > 200:
            shown = shown[:200] + "..."
        message = f"{key} is not valid I-JSON: a lone surrogate in {shown} at {where}"
        return SchemaViolation(pointer if key == "output" else "", message, rule="i-json")
    return None


_NONE: list[Any] = []
"""Shared by judgements with no differences (or violations) so far; never appended to."""


class Judgement:
    """The outcome of one case on one platform, built one response at a time.

    Responses for the case and its variants arrive in any number of batches; each is
    judged on arrival and then dropped, so a long case's derived inputs and outputs
    never need to be held all at once. The first crash or skip decides the outcome.
    """

    # One per case and platform: slots, and the judging state made only when needed.
    __slots__ = (
        "_exact_is_pass",
        "_judged",
        "absent",
        "actual",
        "case",
        "differences",
        "final",
        "not_compared",
        "platform",
        "rules",
        "unanswered",
        "violations",
    )

    def __init__(
        self,
        case: Case,
        platform: str,
        rules: Sequence[Mapping[str, Any]],
        absent: tuple[str, ...] = (),
    ) -> None:
        self.case = case
        self.platform = platform
        self.rules = rules
        # The fields the platform declared absent for the case's domain (its handshake).
        self.absent = absent
        self.not_compared: tuple[str, ...] = ()
        self.actual: Any = MISSING
        self.final: Outcome | None = None  # a crash or skip: nothing later changes it
        self.differences: list[Difference] = _NONE
        self.violations: list[SchemaViolation] = _NONE
        # Chunkings of one case mostly answer alike: judge each distinct answer once.
        self._judged: dict[str, Judged] | None = None
        # No rule applies to this case (and no field is declared absent): known at once
        # without rules, else lazily.
        self._exact_is_pass: bool | None = False if absent else None if rules else True
        # For the runner (runners.run.batches.run_cases): requests made and not yet answered,
        # plus one while its variants are still being made; 0 means the outcome is whole.
        self.unanswered = 1

    def add(self, variant: str | None, response: Mapping[str, Any]) -> None:
        case = self.case
        if (
            type(response) is OutputAsExpected
            and response["output"] is case.expected
            and self.final is None
            and self._exact_is_pass
        ):
            # The output's text was the expected value's (the runner asked the adapter
            # to check): that value, so a pass with no decoding, comparing or checks.
            if variant is None:
                self.actual = case.expected
            return
        platform = self.platform
        if variant is None:
            self.actual = _actual(response)
        if self.final is not None:
            return
        name = f" (chunking {variant})" if variant else ""
        if "skip" in response:
            # The platform says the case does not apply to it (protocol `skip`).
            reason = response["skip"].get("reason", "")
            self.final = Outcome(
                case.domain,
                case.id,
                case.content_hash(),
                platform,
                "skip",
                message=f"not applicable to {platform}{name}: {reason}",
                variant=variant,
            )
            return
        if "crash" in response:
            body = response["crash"]
            self.final = Outcome(
                case.domain,
                case.id,
                case.content_hash(),
                platform,
                "error",
                self.actual,
                message=f"{platform} crashed{name}: {body.get('message', '')}",
                detail=body.get("detail") or None,
                variant=variant,
                input=case.input,
            )
            return
        if (
            "output" in response
            and not case.expects_error
            and ABSENT not in response
            and self._exact_pass(response)
        ):
            return
        if case.expects_error and expected_error(case.error, response.get("error")):
            return
        trouble = not_i_json(response)
        if trouble is not None:
            self.actual = MISSING  # it cannot be written into the results
            self.final = Outcome(
                case.domain,
                case.id,
                case.content_hash(),
                platform,
                "fail",
                schema_errors=(replace(trouble, variant=variant),),
                message=f"{platform}{name}: {trouble.message}",
                variant=variant,
                input=case.input,
            )
            return
        answer = json.dumps(
            [response.get("output"), response.get("error"), response.get(ABSENT)],
            sort_keys=True,
            default=repr,
        )
        if self._judged is None:
            self._judged = {}
        if answer not in self._judged:
            self._judged[answer] = judge_response(
                case, response, self.rules, None, absent=self.absent
            )
        d, v, not_compared = self._judged[answer]
        if not_compared:
            self.not_compared = tuple(sorted({*self.not_compared, *not_compared}))
        if d:
            if self.differences is _NONE:
                self.differences = []
            self.differences.extend(replace(x, variant=variant) for x in d)
        if v:
            if self.violations is _NONE:
                self.violations = []
            self.violations.extend(replace(x, variant=variant) for x in v)

    def _exact_pass(self, response: Mapping[str, Any]) -> bool:
        """The output is exactly the expected one and no comparison rule could say otherwise.

        Such an output has no difference under any rule, and needs no output-schema check
        (the expected value was checked against the schema when its file was loaded) and
        no I-JSON check (its strings are the expected value's, which loading checked too).
        """
        if self._exact_is_pass is None:
            self._exact_is_pass = not rules_for(self.rules, self.case.input)
        if not self._exact_is_pass:
            return False
        case = self.case
        if case.expected_is_typeless:  # Python's == cannot mistake a type here: no walk
            return bool(case.expected == response["output"])
        return same_json(case.expected, response["output"])

    def outcome(self) -> Outcome:
        if self.final is not None:
            return self.final
        case = self.case
        differences, violations = self.differences, self.violations
        if self.not_compared and not differences and not violations:
            # The fields the platform has match; the ones it lacks were not compared.
            return Outcome(
                case.domain,
                case.id,
                case.content_hash(),
                self.platform,
                "partial",
                self.actual,
                input=case.input,
                absent=self.not_compared,
            )
        if differences is _NONE and violations is _NONE:  # a pass: nothing to copy
            return Outcome(
                case.domain,
                case.id,
                case.content_hash(),
                self.platform,
                "pass",
                self.actual,
                (),
                (),
                None,
                None,
                None,
                case.input,
            )
        status: Status = "fail" if differences or violations else "pass"
        return Outcome(
            case.domain,
            case.id,
            case.content_hash(),
            self.platform,
            status,
            self.actual,
            tuple(differences),
            tuple(violations),
            input=case.input,
            absent=self.not_compared,
        )


def judge(
    case: Case,
    platform: str,
    responses: Sequence[tuple[str | None, Mapping[str, Any]]],
    rules: Sequence[Mapping[str, Any]],
    absent: tuple[str, ...] = (),
) -> Outcome:
    """Combine the responses for a case and its variants (the original first) into one outcome."""
    judgement = Judgement(case, platform, rules, absent)
    for variant, response in responses:
        judgement.add(variant, response)
    return judgement.outcome()
