#!/usr/bin/env python3
"""Learn a verdict from `refbot eval` judgements of several labelled data sets, and measure it honestly (issue 73).

    benchmarks/learn_verdict.py DATASET.jsonl LEDGER.jsonl [DATASET.jsonl LEDGER.jsonl …] [--folds 5]
                                [--precision 0.95] [--out FILE.json]

Each LEDGER is the ``--out`` of ``refbot eval DATASET`` with the same judge. The rows of all the data sets are
pooled; every figure printed is out of fold (``bot.evaluation.crossval``): grouped folds over the pool, so that no
fact (one fact in six languages), subject or text is on both sides, then each property held out in turn, since the
held-out sets use properties the pool lacks. The rules' verdicts (the calibration refbot ships, applied as `refbot
eval` applies it) are scored on the same rows beside it.

``--out`` writes the verdict fitted on every row, with the data's sha256, the rows and the figures, for the judge
to load; the fit itself is deterministic (``bot.judge.learned.SEED``, no random folds).
"""

from __future__ import annotations

import argparse
import hashlib
import json
import sys
import time
from dataclasses import replace
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from bot.evaluation.crossval import cross_validate, figures, row_features, table  # noqa: E402
from bot.evaluation.dataset import read_dataset  # noqa: E402
from bot.evaluation.folds import grouped_folds  # noqa: E402
from bot.evaluation.ledger import read_ledger  # noqa: E402
from bot.judge.calibration import for_judge, rescored  # noqa: E402
from bot.judge.features import vector  # noqa: E402
from bot.judge.learned import fit  # noqa: E402


def sha256(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("pairs", nargs="+", type=Path, help="DATASET.jsonl LEDGER.jsonl pairs")
    parser.add_argument("--folds", type=int, default=5)
    parser.add_argument("--precision", type=float, default=0.95)
    parser.add_argument("--out", type=Path, help="write the verdict fitted on every row here")
    args = parser.parse_args()
    if len(args.pairs) % 2:
        parser.error("give DATASET.jsonl LEDGER.jsonl pairs")
    started = time.monotonic()
    rows, records, model, template, sources = [], {}, "", "", []
    for dataset, ledger in zip(args.pairs[::2], args.pairs[1::2]):
        name = dataset.parent.name + "/" + dataset.stem
        judged = read_ledger(ledger)
        ours = [replace(row, id=f"{name}:{row.id}", kind=name) for row in read_dataset(dataset)
                if row.id in judged]
        for row in ours:
            record = judged[row.id.split(":", 1)[1]]
            model, template = record["model"], record["template"]
            records[row.id] = record
        datatypes = {row.id: row.datatype for row in ours}
        records.update(rescored({row.id: records[row.id] for row in ours}, datatypes, for_judge(model, template)))
        rows.extend(ours)
        sources.append(f"{name} ({len(ours)} rows, sha256 {sha256(dataset)[:16]})")
    print(f"{len(rows)} judged rows of {len(sources)} data set(s), judge {model}, template {template!r}")
    decided = cross_validate(rows, records, folds=args.folds, precision=args.precision, model=model,
                             template=template)
    for key, heading in ((lambda row: row.kind, "data set"), (lambda row: row.language, "language")):
        print()
        print("\n".join(table(decided, key, heading)))
    held_out = cross_validate(rows, records, hold_out="properties", precision=args.precision, model=model,
                              template=template)
    print(f"\nEach of {len({d.fold for d in held_out})} properties held out in turn:")
    print("\n".join(table(held_out, lambda row: row.kind, "data set")))
    if args.out:
        fold_of = grouped_folds(rows, args.folds)
        values = [(row_features(row, records[row.id]), row.label, fold) for row, fold in zip(rows, fold_of)]
        train = [(vector(v), label, fold) for v, label, fold in values if v is not None]
        grouped, properties = figures(decided, "learned"), figures(held_out, "learned")
        learned = fit([x for x, _, _ in train], [label for _, label, _ in train], model=model, template=template,
                      precision=args.precision, folds=[fold for _, _, fold in train],
                      fitted_on=f"benchmarks/learn_verdict.py on {len(train)} asked rows of " + "; ".join(sources)
                      + f"; out of {args.folds} grouped folds P {grouped.precision:.3f} R {grouped.recall:.3f} "
                      f"AUC {grouped.auc:.3f}; properties held out P {properties.precision:.3f} "
                      f"R {properties.recall:.3f} AUC {properties.auc:.3f}")
        args.out.write_text(json.dumps(learned.to_json(), indent=1) + "\n", encoding="utf-8")
        print(f"\nwritten: {args.out} ({args.out.stat().st_size} bytes)")
    print(f"\n{time.monotonic() - started:.1f} s")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
