"""What judging a partial answer costs, next to an exact pass decoded (bench/README.md,
"Partial answers").

    python bench/partial_answers.py [--rounds N]

Every permission-policy case that expects an output, judged by ``Judgement`` as the
runner judges a decoded answer: once answered in full (the exact-pass path), once
answered without ``rule_index`` and ``audit`` with those fields declared absent (the
partial path: the declared fields taken out of a copy of the expected output, the diff,
and the output-schema check with the expected values standing in).
"""

from __future__ import annotations

import argparse
import copy
import sys
import timeit
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from runners.judge.outcomes import Judgement  # noqa: E402
from runners.vectors.load import load_vector_file  # noqa: E402

ABSENT = ("/rule_index", "/audit")


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--rounds", type=int, default=5)
    args = parser.parse_args()
    vf = load_vector_file(ROOT / "vectors" / "permission-policy.json")
    cases = [c for c in vf.cases if not c.expects_error]
    full = [{"id": c.id, "output": copy.deepcopy(c.expected)} for c in cases]
    lacking = []
    for c in cases:
        output = copy.deepcopy(c.expected)
        for field in ABSENT:
            output.pop(field[1:])
        lacking.append({"id": c.id, "output": output})

    def judged(absent: tuple[str, ...], answers: list[dict]) -> None:
        for case, answer in zip(cases, answers, strict=True):
            judgement = Judgement(case, "bench", (), absent)
            judgement.add(None, answer)
            judgement.outcome().to_json()

    for name, absent, answers in (
        ("exact pass, nothing declared", (), full),
        ("partial, two fields declared", ABSENT, lacking),
    ):
        number = 50
        best = min(
            timeit.repeat(
                lambda a=absent, b=answers: judged(a, b),
                number=number,
                repeat=args.rounds,
            )
        )
        print(f"{name}: {best / number / len(cases) * 1e6:.1f} us per case ({len(cases)} cases)")


if __name__ == "__main__":
    main()
