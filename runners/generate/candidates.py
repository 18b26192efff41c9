"""Candidate vectors: what ``generate`` found, kept apart until a maintainer promotes them.

``vectors/candidates/<domain>.json`` is a normal vector file (same schema, the
domain's comparison rules and variants), so ``validate --vectors
vectors/candidates`` and ``fmt`` work on it; the loader and the pytest plugin skip
a ``candidates`` folder unless it is named explicitly, so unreviewed candidates
never change what ``validate``, ``run`` or ``pytest`` see by default.
"""

from __future__ import annotations

import hashlib
import json
from pathlib import Path
from typing import Any

import hypothesis

from .._output import write_atomically
from ..exceptions import HarnessError
from ..vectors.format import canonical
from ..vectors.load import CANDIDATES_DIR, VECTORS_DIR, i_json_problems, load_vector_file
from .search import Finding

PLACEHOLDER = "Generated, not yet reviewed: "
GENERATED = "generated"
GENERATED_MEANING = "found by hanzo-conformance generate (differential or property search)"


def candidates_dir(vectors_dir: Path = VECTORS_DIR) -> Path:
    return vectors_dir / CANDIDATES_DIR


def _key(case: dict[str, Any]) -> str:
    return json.dumps(case["input"], sort_keys=True, ensure_ascii=False)


def _read(path: Path) -> dict[str, Any]:
    document: dict[str, Any] = json.loads(path.read_text(encoding="utf-8"))
    return document


def _header(domain: str, vectors_dir: Path) -> dict[str, Any]:
    """A candidates file starts with the domain file's comparison rules and variants."""
    doc: dict[str, Any] = {
        "domain": domain,
        "version": 1,
        "description": (
            f"Candidates for {domain} found by hanzo-conformance generate: review each "
            "(fix the contract or the platform), then hanzo-conformance promote."
        ),
        "tags": {GENERATED: GENERATED_MEANING},
    }
    main = vectors_dir / f"{domain}.json"
    if main.is_file():
        source = _read(main)
        doc["tags"] = {GENERATED: GENERATED_MEANING, **source.get("tags", {})}
        for key in ("comparison", "variants"):
            if key in source:
                doc[key] = source[key]
    doc["cases"] = []
    return doc


def not_a_vector_input(finding: Finding) -> str | None:
    """Why no vector may hold the finding's input (it is not I-JSON), if none may.

    Such a finding is the domain's strategy drawing outside what the contract
    covers (e.g. 2^53 + 1, which JS reads as 2^53), not a platform bug: it is
    reported as that and never written as a candidate.
    """
    problems = i_json_problems(finding.input)
    if not problems:
        return None
    pointer, problem = problems[0]
    module = finding.domain.replace("-", "_")
    return (
        f"no vector may hold this input: at {pointer or '/'} {problem}; "
        f"strategies/{module}.py should not draw it"
    )


def as_case(finding: Finding, seed: int, clauses: set[str]) -> dict[str, Any] | None:
    """The candidate case for a finding, or None when it has no reference answer to expect."""
    reference = finding.reference
    if finding.input is None or reference is None or "crash" in reference:
        return None
    body = json.dumps(finding.input, sort_keys=True, ensure_ascii=False)
    digest = hashlib.sha256(body.encode("utf-8")).hexdigest()[:10]
    what = (
        "platforms disagree with the reference"
        if finding.kind == "disagreement"
        else f"property {finding.name} fails"
    )
    reasons = "; ".join(f"{p}: {r}" for p, r in finding.reasons.items())
    case: dict[str, Any] = {
        "id": f"gen-{digest}",
        "description": f"{PLACEHOLDER}{what}. {reasons}"[:600],
        "tags": [GENERATED],
        "source": {
            "kind": "generated",
            "ref": (
                f"hanzo-conformance generate --seed {seed} (Hypothesis "
                f"{hypothesis.__version__}, {finding.kind} {finding.name}); "
                f"disagreed: {', '.join(finding.platforms)}"
            ),
        },
        "clauses": sorted(clauses) or ["UNKNOWN-1"],
        "input": finding.input,
    }
    if "error" in reference:
        case["error"] = reference["error"]["code"]
    else:
        case["expected"] = reference["output"]
    return case


def write_candidate(
    case: dict[str, Any], domain: str, vectors_dir: Path = VECTORS_DIR, folder: Path | None = None
) -> Path | None:
    """Add ``case`` to the domain's candidates file (in ``folder``, by default
    ``vectors_dir``'s candidates/); None if an equal case already exists."""
    folder = candidates_dir(vectors_dir) if folder is None else folder
    path = folder / f"{domain}.json"
    existing = [vectors_dir / f"{domain}.json", path]
    for source in existing:
        if source.is_file() and any(_key(c) == _key(case) for c in _read(source)["cases"]):
            return None
    doc = _read(path) if path.is_file() else _header(domain, vectors_dir)
    doc["cases"].append(case)
    folder.mkdir(parents=True, exist_ok=True)
    write_atomically(path, canonical(doc))
    return path


def promote(
    domain: str,
    candidate_id: str,
    new_id: str,
    description: str,
    clauses: list[str] | None = None,
    vectors_dir: Path = VECTORS_DIR,
) -> Path:
    """Move a reviewed candidate into ``vectors/<domain>.json`` under a real id and description.

    Both files must validate before and after (nothing is written otherwise); the
    candidate leaves its file, which is removed when it holds no more cases.
    """
    source = candidates_dir(vectors_dir) / f"{domain}.json"
    target = vectors_dir / f"{domain}.json"
    if not source.is_file():
        raise HarnessError(f"no candidates for {domain} ({source})")
    if not target.is_file():
        raise HarnessError(f"no vector file for {domain} ({target})")
    load_vector_file(source)  # raises VectorFileError naming every problem
    if description.startswith(PLACEHOLDER) or not description.strip():
        raise HarnessError("promote needs a reviewed --description of why the case exists")
    candidates = _read(source)
    matches = [c for c in candidates["cases"] if c["id"] == candidate_id]
    if not matches:
        known = ", ".join(c["id"] for c in candidates["cases"]) or "none"
        raise HarnessError(f"no candidate {candidate_id!r} in {source} (candidates: {known})")
    case = dict(matches[0])
    document = _read(target)
    if any(c["id"] == new_id for c in document["cases"]):
        raise HarnessError(f"id {new_id!r} is already used in {target}")
    case["id"] = new_id
    case["description"] = description
    if clauses:
        case["clauses"] = clauses
    document["cases"].append(case)
    for tag in case["tags"]:
        # A candidate's tags are the domain file's, plus "generated": declare it there.
        if tag not in document.get("tags", {}):
            declared = candidates.get("tags", {}).get(tag, GENERATED_MEANING)
            document["tags"] = {**document.get("tags", {}), tag: declared}
    text = canonical(document)
    staged = target.with_suffix(".promote.tmp")
    try:  # a failed write (a full disk) leaves no partial staged file either
        staged.write_text(text, encoding="utf-8")
        load_vector_file(staged)
    finally:
        staged.unlink(missing_ok=True)
    write_atomically(target, text)
    candidates["cases"] = [c for c in candidates["cases"] if c["id"] != candidate_id]
    if candidates["cases"]:
        write_atomically(source, canonical(candidates))
    else:
        source.unlink()
    return target
