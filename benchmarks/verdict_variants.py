#!/usr/bin/env python3
"""Learned verdicts of other shapes beside the rules, out of fold on the same judged rows (issue 73, second round).

    benchmarks/verdict_variants.py DATASET.jsonl LEDGER.jsonl [DATASET.jsonl LEDGER.jsonl …]
                                   [--hold-out groups|properties] [--precision 0.975]

``benchmarks/learn_verdict.py`` measures the logistic regression refbot could ship *in place of* the rules. This
measures what else a learned verdict could be, with the same features (``bot.judge.features``), folds
(``bot.evaluation.folds``) and calibrated rules' verdicts:

- ``logistic`` / ``boosting``: a logistic regression, or gradient-boosted trees (scikit-learn's
  HistGradientBoostingClassifier, fixed seed), deciding alone;
- ``rules or logistic`` / ``rules or boosting``: the rules' verdict, and beside it the learned verdict accepting
  what the rules left — the learned model as a second chance, not a replacement.

Each fold's model is fitted without that fold; its threshold is chosen on the training rows' own out-of-fold
probabilities (five inner grouped folds) as the lowest at which they reach ``--precision`` — for the "rules or"
variants, the precision of the combined verdict. No figure is read on a row a model was fitted on.
"""

from __future__ import annotations

import argparse
import sys
import time
from collections.abc import Callable, Sequence
from dataclasses import replace
from pathlib import Path

import numpy as np
from sklearn.ensemble import HistGradientBoostingClassifier
from sklearn.linear_model import LogisticRegression
from sklearn.preprocessing import StandardScaler

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from bot.datamodel import Verdict  # noqa: E402
from bot.evaluation.crossval import row_features  # noqa: E402
from bot.evaluation.dataset import read_dataset  # noqa: E402
from bot.evaluation.folds import by_property, grouped_folds  # noqa: E402
from bot.evaluation.ledger import read_ledger  # noqa: E402
from bot.evaluation.metrics import roc_auc  # noqa: E402
from bot.judge.calibration import accepting_threshold, for_judge, rescored  # noqa: E402
from bot.judge.features import NAMES, vector  # noqa: E402
from bot.judge.learned import SEED  # noqa: E402

INNER_FOLDS = 5
MODELS: dict[str, Callable[[], object]] = {
    "logistic": lambda: LogisticRegression(C=1.0, max_iter=3000, random_state=SEED),
    "boosting": lambda: HistGradientBoostingClassifier(max_iter=150, learning_rate=0.05, max_leaf_nodes=8,
                                                       l2_regularization=1.0, random_state=SEED),
}


def fitted(kind: str, x: np.ndarray, y: np.ndarray) -> Callable[[np.ndarray], np.ndarray]:
    scaler = StandardScaler().fit(x)
    model = MODELS[kind]()
    model.fit(scaler.transform(x), y)
    return lambda rows: model.predict_proba(scaler.transform(rows))[:, 1]


def combined_threshold(rules: np.ndarray, labels: np.ndarray, probabilities: np.ndarray, precision: float) -> float:
    """The lowest threshold at which the rules' verdict or the learned one at it keeps ``precision``."""
    threshold = 1.01
    for candidate in sorted(set(np.round(probabilities, 6)), reverse=True):
        said = rules | (probabilities >= candidate)
        tp, fp = int((said & labels).sum()), int((said & ~labels).sum())
        if tp / max(1, tp + fp) < precision:
            break
        threshold = candidate
    return threshold


def out_of_fold(kind: str, combine: bool, x: np.ndarray, y: np.ndarray, rules: np.ndarray, asked: np.ndarray,
                fold: np.ndarray, inner: np.ndarray, precision: float, scores: np.ndarray
                ) -> tuple[np.ndarray, np.ndarray]:
    said, score = rules.copy(), scores.copy()
    for held in sorted(set(fold[asked])):
        train, test = asked[fold[asked] != held], asked[fold[asked] == held]
        if len(set(y[train])) < 2:
            continue
        inner_p = np.zeros(len(train))
        for part in sorted(set(inner[train])):
            inside = inner[train] != part
            if inside.all() or len(set(y[train][inside])) < 2:
                continue
            inner_p[~inside] = fitted(kind, x[train][inside], y[train][inside])(x[train][~inside])
        threshold = (combined_threshold(rules[train], y[train], inner_p, precision) if combine
                     else accepting_threshold(list(y[train]), list(inner_p), precision))
        p = fitted(kind, x[train], y[train])(x[test])
        score[test] = p
        said[test] = (rules[test] | (p >= threshold)) if combine else (p >= threshold)
    return said, score


def line(name: str, said: np.ndarray, score: np.ndarray, y: np.ndarray, index: Sequence[int]) -> str:
    labels, verdicts = y[index], said[index]
    tp, fp = int((verdicts & labels).sum()), int((verdicts & ~labels).sum())
    negatives = int((~labels).sum())
    return (f"   {name:<26} {len(index):>5} {int(labels.sum()):>5}  P {tp / max(1, tp + fp):.3f}  "
            f"R {tp / max(1, int(labels.sum())):.3f}  spec {1 - fp / max(1, negatives):.3f}  "
            f"AUC {roc_auc(list(labels), list(score[index])):.3f}")


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("pairs", nargs="+", type=Path, help="DATASET.jsonl LEDGER.jsonl pairs")
    parser.add_argument("--hold-out", choices=("groups", "properties"), default="groups")
    parser.add_argument("--folds", type=int, default=5)
    parser.add_argument("--precision", type=float, default=0.975)
    args = parser.parse_args()
    if len(args.pairs) % 2:
        parser.error("give DATASET.jsonl LEDGER.jsonl pairs")
    started = time.monotonic()
    rows, records = [], {}
    for dataset, ledger in zip(args.pairs[::2], args.pairs[1::2]):
        name = dataset.parent.name + "/" + dataset.stem
        judged = read_ledger(ledger)
        ours = [replace(row, id=f"{name}:{row.id}", kind=name) for row in read_dataset(dataset) if row.id in judged]
        for row in ours:
            records[row.id] = judged[row.id.split(":", 1)[1]]
        model, template = records[ours[0].id]["model"], records[ours[0].id]["template"]
        records.update(rescored({row.id: records[row.id] for row in ours}, {row.id: row.datatype for row in ours},
                                for_judge(model, template)))
        rows.extend(ours)
    values = [row_features(row, records[row.id]) for row in rows]
    asked = np.array([i for i, v in enumerate(values) if v is not None])
    x = np.array([vector(v) if v is not None else [0.0] * len(NAMES) for v in values])
    y = np.array([row.label for row in rows])
    rules = np.array([records[row.id].get("verdict") == Verdict.SUPPORTS.value for row in rows])
    scores = np.array([float(records[row.id]["calibrated"] if records[row.id].get("calibrated") is not None
                             else records[row.id].get("support", 0.0)) for row in rows])
    fold = np.array(grouped_folds(rows, args.folds) if args.hold_out == "groups" else by_property(rows))
    inner = np.array(grouped_folds(rows, INNER_FOLDS))
    groups: dict[str, list[int]] = {"all": list(range(len(rows)))}
    for key in ("kind", "language"):
        for value in sorted({str(getattr(row, key) or "—") for row in rows}):
            groups[value] = [i for i, row in enumerate(rows) if str(getattr(row, key) or "—") == value]
    print(f"{len(rows)} judged rows ({len(asked)} asked), {args.hold_out} held out "
          f"({len(set(fold))} folds), precision asked {args.precision}")
    variants = [("rules", None, False), ("logistic", "logistic", False), ("boosting", "boosting", False),
                ("rules or logistic", "logistic", True), ("rules or boosting", "boosting", True)]
    for name, kind, combine in variants:
        said, score = (rules, scores) if kind is None else out_of_fold(
            kind, combine, x, y, rules, asked, fold, inner, args.precision, scores)
        print(f"\n{name}")
        for group, index in groups.items():
            print(line(group, said, score, y, index))
    print(f"\n{time.monotonic() - started:.1f} s")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
