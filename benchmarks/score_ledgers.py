#!/usr/bin/env python3
"""Score `refbot eval` ledgers as they were recorded, side by side: for judges of different refbot versions.

    benchmarks/score_ledgers.py DATASET.jsonl NAME=LEDGER.jsonl [NAME=LEDGER.jsonl …] [--kinds]

`refbot eval` refuses a ledger written with other settings (and decides its judgements again with today's
calibration); this script reads each ledger's verdicts as recorded, so that the judge of an earlier version (a git
worktree's `refbot eval --out before.jsonl`) and today's are compared on the same rows: the rows of DATASET that
every ledger judged. It prints, per ledger: P, R, specificity, F1 of each class, ROC AUC of the score the verdict
was decided on, expected calibration error, seconds and prompt tokens per judgement; with ``--kinds``, the share of
each kind of row (``benchmarks/production_dev.py``) called supported and contradicted.
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from bot.evaluation.metrics import Confusion, expected_calibration_error, roc_auc  # noqa: E402


def read(path: Path) -> dict[str, dict]:
    records = {}
    for line in path.read_text(encoding="utf-8").split("\n"):
        if line.strip():
            record = json.loads(line)
            records[record["id"]] = record
    return records


def score(record: dict) -> float:
    calibrated = record.get("calibrated")
    return float(calibrated if calibrated is not None else record["support"])


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("dataset", type=Path)
    parser.add_argument("ledgers", nargs="+", help="NAME=LEDGER.jsonl")
    parser.add_argument("--kinds", action="store_true", help="break down by the rows' kind")
    args = parser.parse_args()
    rows = {}
    for line in args.dataset.read_text(encoding="utf-8").split("\n"):
        if line.strip():
            row = json.loads(line)
            rows[str(row["id"])] = row
    ledgers = {name: read(Path(path)) for name, path in (item.split("=", 1) for item in args.ledgers)}
    common = [key for key in rows if all(key in records for records in ledgers.values())]
    print(f"{len(common)} rows of {args.dataset.name} judged in every ledger "
          f"({sum(bool(rows[key]['label']) for key in common)} supported)")
    print(f"{'':12} {'P':>6} {'R':>6} {'spec':>6} {'F1+':>6} {'F1-':>6} {'AUC':>6} {'ECE':>6} "
          f"{'undec':>5} {'contr':>5} {'s/judg':>7} {'tokens':>7}")
    for name, records in ledgers.items():
        chosen = [records[key] for key in common]
        labels = [bool(rows[key]["label"]) for key in common]
        confusion = Confusion.of((label, record["verdict"] == "a") for label, record in zip(labels, chosen))
        scores = [score(record) for record in chosen]
        auc, ece = roc_auc(labels, scores), expected_calibration_error(labels, scores)
        undecided = sum(record["verdict"] == "b" for record in chosen)
        contradicted = sum(record["verdict"] == "contradicts" for record in chosen)
        seconds = sum(float(record["latency_s"]) for record in chosen) / len(chosen)
        tokens = sum(int(record["prompt_tokens"]) for record in chosen) / len(chosen)

        def shown(value: float | None) -> str:
            return f"{value:6.3f}" if value is not None else "     -"
        print(f"{name:12} {shown(confusion.precision)} {shown(confusion.recall)} {shown(confusion.specificity)} "
              f"{shown(confusion.f1)} {shown(confusion.f1_unsupported)} {shown(auc)} {shown(ece)} {undecided:5d} "
              f"{contradicted:5d} {seconds:7.2f} {tokens:7.0f}")
        if args.kinds:
            kinds: dict[str, list[str]] = {}
            for key, record in zip(common, chosen):
                kinds.setdefault(rows[key].get("kind") or "-", []).append(record["verdict"])
            for kind, verdicts in sorted(kinds.items()):
                print(f"  {kind:22} n {len(verdicts):4d}  supported {verdicts.count('a') / len(verdicts):.3f}  "
                      f"contradicted {verdicts.count('contradicts') / len(verdicts):.3f}  "
                      f"undecided {verdicts.count('b') / len(verdicts):.3f}")


if __name__ == "__main__":
    main()
