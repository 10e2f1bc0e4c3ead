"""Confusion counts, precision/recall/F1, ROC AUC and precision at a recall, per group and overall."""

from __future__ import annotations

from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass
from typing import TypeVar

Row = TypeVar("Row")


@dataclass(frozen=True)
class Confusion:
    tp: int = 0
    tn: int = 0
    fp: int = 0
    fn: int = 0

    @classmethod
    def of(cls, pairs: Iterable[tuple[bool, bool]]) -> "Confusion":
        """From (label, predicted) pairs."""
        tp = tn = fp = fn = 0
        for label, predicted in pairs:
            if predicted and label:
                tp += 1
            elif predicted:
                fp += 1
            elif label:
                fn += 1
            else:
                tn += 1
        return cls(tp, tn, fp, fn)

    @property
    def total(self) -> int:
        return self.tp + self.tn + self.fp + self.fn

    @property
    def precision(self) -> float | None:
        return self.tp / (self.tp + self.fp) if self.tp + self.fp else None

    @property
    def recall(self) -> float | None:
        return self.tp / (self.tp + self.fn) if self.tp + self.fn else None

    @property
    def f1(self) -> float | None:
        p, r = self.precision, self.recall
        if p is None or r is None or p + r == 0:
            return None
        return 2 * p * r / (p + r)

    def as_dict(self) -> dict[str, float | int | None]:
        return {"tp": self.tp, "tn": self.tn, "fp": self.fp, "fn": self.fn, "precision": self.precision,
                "recall": self.recall, "f1": self.f1}


def grouped(rows: Sequence[Row], key: Callable[[Row], str | None],
            pair: Callable[[Row], tuple[bool, bool] | None]) -> dict[str, Confusion]:
    """A confusion per group; rows whose key or pair is ``None`` are left out."""
    groups: dict[str, list[tuple[bool, bool]]] = {}
    for row in rows:
        group, value = key(row), pair(row)
        if group is not None and value is not None:
            groups.setdefault(group, []).append(value)
    return {group: Confusion.of(values) for group, values in sorted(groups.items())}


def roc_auc(labels: Sequence[bool], scores: Sequence[float]) -> float | None:
    """Area under the ROC curve of the support score; ``None`` when only one class is present."""
    if len(set(labels)) < 2:
        return None
    from sklearn.metrics import roc_auc_score

    return float(roc_auc_score(labels, scores))


def precision_at_recall(labels: Sequence[bool], scores: Sequence[float], recall: float = 0.5) -> float | None:
    """The best precision over thresholds whose recall is at least ``recall``."""
    if not any(labels):
        return None
    from sklearn.metrics import precision_recall_curve

    precisions, recalls, _ = precision_recall_curve(labels, scores)
    reachable = [p for p, r in zip(precisions, recalls) if r >= recall]
    return float(max(reachable)) if reachable else None


def label_match(object_label: str, text: str) -> bool:
    """The trivial baseline: the object's label occurs in the text (case-insensitive)."""
    return object_label.casefold() in text.casefold()


def best_f1(labels: Sequence[bool], scores: Sequence[float]) -> tuple[float, float] | None:
    """(F1, threshold) of the threshold on the support score that gives the best F1: where an operator
    could set ``--threshold`` on this data."""
    if not any(labels):
        return None
    from sklearn.metrics import precision_recall_curve

    precisions, recalls, thresholds = precision_recall_curve(labels, scores)
    best = max(range(len(thresholds)),
               key=lambda i: 2 * precisions[i] * recalls[i] / (precisions[i] + recalls[i] or 1))
    p, r = precisions[best], recalls[best]
    return float(2 * p * r / (p + r or 1)), float(thresholds[best])
