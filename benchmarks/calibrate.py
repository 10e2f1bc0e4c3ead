#!/usr/bin/env python3
"""Fit the judge's calibration on `refbot eval` judgements of labelled development data (issue 31).

    benchmarks/calibrate.py DATASET.jsonl LEDGER.jsonl [DATASET.jsonl LEDGER.jsonl …] [--out FILE] [--folds 5]

Each LEDGER is the ``--out`` of ``refbot eval DATASET``. The rows where the model was asked (a text that does not
write the value is never support and is not asked; a contradiction is decided on another claim) give their raw
support and label; isotonic regression (scikit-learn) maps the raw support to the fraction supported, pooled and per
kind of value with enough rows (``bot.judge.calibration.fit``), and the accepting threshold is the lowest
calibrated score whose rows reach precision 0.95. ``--out`` writes it (``bot/judge/calibration.json`` is what
refbot ships); without it the fit is only printed.

Fitted and measured on the same rows, the figures flatter the calibration, so the script also prints them
cross-validated: each of ``--folds`` folds (by statement, seeded) judged with a calibration fitted on the others.
"""

from __future__ import annotations

import argparse
import json
import random
import sys
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from bot.judge.calibration import Calibration, fit, kind_of, rescored  # noqa: E402


@dataclass(frozen=True)
class Row:
    id: str
    label: bool
    kind: str
    support: float
    asked: bool
    verdict: str
    record: dict


def read_rows(pairs: Sequence[tuple[Path, Path]]) -> tuple[list[Row], str, str]:
    rows: dict[str, Row] = {}
    model = template = ""
    for dataset, ledger in pairs:
        datatypes = {}
        for line in dataset.read_text(encoding="utf-8").split("\n"):
            if line.strip():
                record = json.loads(line)
                datatypes[str(record["id"])] = record.get("datatype")
        for line in ledger.read_text(encoding="utf-8").split("\n"):
            if not line.strip():
                continue
            record = json.loads(line)
            if record["id"] not in datatypes:
                continue
            model, template = record["model"], record["template"]
            asked = record.get("calibrated") is not None
            rows[record["id"]] = Row(record["id"], bool(record["label"]), kind_of(datatypes[record["id"]]),
                                     float(record["support"]), asked, record["verdict"], record)
    return list(rows.values()), model, template


def fitted(rows: Sequence[Row], model: str, template: str, precision: float, where: str) -> Calibration:
    asked = [row for row in rows if row.asked]
    return fit([row.label for row in asked], [row.support for row in asked], [row.kind for row in asked],
               model=model, template=template, precision=precision, fitted_on=where)


def verdicts(rows: Sequence[Row], calibration: Calibration) -> list[tuple[bool, str, float]]:
    """(label, verdict, calibrated score) per row, decided as `refbot eval` decides them with this calibration
    (``bot.judge.calibration.rescored``); rows the model was not asked about score 0."""
    decided = rescored({row.id: row.record for row in rows}, {row.id: _datatype(row.kind) for row in rows},
                       calibration)
    return [(row.label, decided[row.id]["verdict"], decided[row.id].get("calibrated") or 0.0) for row in rows]


def _datatype(kind: str) -> str | None:
    from bot.judge.calibration import KINDS

    return next((datatype for datatype, k in KINDS.items() if k == kind), None)


def describe(judged: Sequence[tuple[bool, str, float]]) -> str:
    from bot.evaluation.metrics import expected_calibration_error

    tp = sum(label and verdict == "a" for label, verdict, _ in judged)
    fp = sum(not label and verdict == "a" for label, verdict, _ in judged)
    positives = sum(label for label, _, _ in judged)
    negatives = len(judged) - positives
    undecided = sum(verdict == "b" for _, verdict, _ in judged)
    precision = tp / (tp + fp) if tp + fp else float("nan")
    recall = tp / positives if positives else float("nan")
    specificity = (negatives - fp) / negatives if negatives else float("nan")
    ece = expected_calibration_error([label for label, _, _ in judged], [score for _, _, score in judged])
    return (f"P {precision:.3f}  R {recall:.3f}  specificity {specificity:.3f}  undecided {undecided}  "
            f"ECE {ece:.3f}  ({len(judged)} rows, {positives} supported)")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("files", nargs="+", type=Path, help="DATASET.jsonl LEDGER.jsonl pairs")
    parser.add_argument("--out", type=Path, help="write the calibration here (bot/judge/calibration.json ships)")
    parser.add_argument("--precision", type=float, default=0.95)
    parser.add_argument("--folds", type=int, default=5)
    parser.add_argument("--seed", type=int, default=42)
    args = parser.parse_args()
    if len(args.files) % 2:
        parser.error("give DATASET.jsonl LEDGER.jsonl pairs")
    pairs = list(zip(args.files[::2], args.files[1::2]))
    rows, model, template = read_rows(pairs)
    where = ", ".join(f"{dataset.parent.name}/{dataset.name}" for dataset, _ in pairs)
    calibration = fitted(rows, model, template, args.precision, where)
    asked = sum(row.asked for row in rows)
    print(f"{len(rows)} rows ({asked} asked) judged by {model} with {template!r}; curves: "
          f"{', '.join(sorted(calibration.curves))}; accept at {calibration.accept:.3f}, undecided from "
          f"{calibration.undecided:.3f}")
    uncalibrated = [(row.label, row.verdict if not row.asked else ("a" if row.support >= 0.5 else "c"),
                     row.support if row.asked else 0.0) for row in rows]
    print(f"raw support, threshold 0.5:  {describe(uncalibrated)}")
    print(f"calibrated (fitted on all):  {describe(verdicts(rows, calibration))}")
    order = list(range(len(rows)))
    random.Random(args.seed).shuffle(order)
    held: list[tuple[bool, str, float]] = []
    for fold in range(args.folds):
        held_out = set(order[fold::args.folds])
        test = [rows[i] for i in sorted(held_out)]
        train = [rows[i] for i in order if i not in held_out]
        held += verdicts(test, fitted(train, model, template, args.precision, where))
    print(f"calibrated ({args.folds}-fold held out): {describe(held)}")
    if args.out:
        args.out.write_text(json.dumps(calibration.to_json(), indent=1) + "\n", encoding="utf-8")
        print(f"wrote {args.out}")


if __name__ == "__main__":
    main()
