"""Confusion counts, precision/recall/F1 of both classes, ROC AUC and precision at a recall, per group and overall;
how verdicts split, how well the score is calibrated, and how precise support is by the way the text writes the
value."""

from __future__ import annotations

import re
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
        return _f1(self.precision, self.recall)

    @property
    def specificity(self) -> float | None:
        """The unsupported statements not called supported: a judge that calls everything supported scores 0."""
        return self.tn / (self.tn + self.fp) if self.tn + self.fp else None

    @property
    def f1_unsupported(self) -> float | None:
        """F1 of the unsupported class: its precision is that of "not supported" (any other verdict than a)."""
        precision = self.tn / (self.tn + self.fn) if self.tn + self.fn else None
        return _f1(precision, self.specificity)

    @property
    def macro_f1(self) -> float | None:
        supported, unsupported = self.f1, self.f1_unsupported
        return None if supported is None or unsupported is None else (supported + unsupported) / 2

    def as_dict(self) -> dict[str, float | int | None]:
        return {"tp": self.tp, "tn": self.tn, "fp": self.fp, "fn": self.fn, "precision": self.precision,
                "recall": self.recall, "f1": self.f1, "specificity": self.specificity,
                "f1_unsupported": self.f1_unsupported, "macro_f1": self.macro_f1}


def _f1(precision: float | None, recall: float | None) -> float | None:
    if precision is None or recall is None or precision + recall == 0:
        return None
    return 2 * precision * recall / (precision + recall)


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


# What each verdict means for the report, in the order it is shown: only "a" counts as supported, "b" is the
# calibrated judge's undecided band.
VERDICT_CLASSES = {"a": "supported", "b": "undecided", "contradicts": "contradicted", "c": "not_supported",
                   "unparseable": "unparseable"}


def verdict_split(verdicts: Iterable[str]) -> dict[str, int]:
    """How many verdicts fall in each class, every class named (0 when none does)."""
    split = dict.fromkeys(VERDICT_CLASSES.values(), 0)
    for verdict in verdicts:
        split[VERDICT_CLASSES[verdict]] += 1
    return split


def shares(split: dict[str, int]) -> dict[str, float | None]:
    """Counts as fractions of their total (None for an empty split)."""
    total = sum(split.values())
    return {name: count / total if total else None for name, count in split.items()}


@dataclass(frozen=True)
class ReliabilityBin:
    """Scores in [low, high) (the last bin holds 1.0 too), how many, their mean, and the fraction truly supported."""

    low: float
    high: float
    n: int
    mean_score: float | None
    fraction_supported: float | None

    def as_dict(self) -> dict[str, float | int | None]:
        return {"low": self.low, "high": self.high, "n": self.n, "mean_score": self.mean_score,
                "fraction_supported": self.fraction_supported}


def reliability(labels: Sequence[bool], scores: Sequence[float], bins: int = 10) -> list[ReliabilityBin]:
    """Equal-width bins over [0, 1], empty ones included (sklearn's calibration_curve drops them)."""
    members: list[list[tuple[bool, float]]] = [[] for _ in range(bins)]
    for label, score in zip(labels, scores):
        members[min(int(score * bins), bins - 1)].append((label, score))
    return [ReliabilityBin(index / bins, (index + 1) / bins, len(pairs),
                           sum(score for _, score in pairs) / len(pairs) if pairs else None,
                           sum(label for label, _ in pairs) / len(pairs) if pairs else None)
            for index, pairs in enumerate(members)]


def expected_calibration_error(labels: Sequence[bool], scores: Sequence[float], bins: int = 10) -> float | None:
    """The bins' gaps between mean score and fraction supported, weighted by their share of the statements: how
    far a score of 0.8 is from meaning "supported 8 times in 10"."""
    if not labels:
        return None
    error = 0.0
    for bucket in reliability(labels, scores, bins):
        if bucket.mean_score is not None and bucket.fraction_supported is not None:
            error += abs(bucket.mean_score - bucket.fraction_supported) * bucket.n / len(labels)
    return error


# How a text writes the value, for grouping: a linked item's name ("more general item Q515: city") by the link.
NOT_WRITTEN = "not written"


def written_path(written: str) -> str:
    if not written:
        return NOT_WRITTEN
    return re.sub(r"\s+Q[1-9][0-9]*$", "", written.split(":", 1)[0].strip())


def precision_by_path(rows: Iterable[tuple[str, bool, bool]]) -> dict[str, dict[str, float | int | None]]:
    """From (written, label, supported) triples: per path, its statements, the supported verdicts among them, the
    true ones among those, and their precision; the support of a text that does not write the value is apart."""
    paths: dict[str, list[tuple[bool, bool]]] = {}
    for written, label, supported in rows:
        paths.setdefault(written_path(written), []).append((label, supported))
    table: dict[str, dict[str, float | int | None]] = {}
    for path, pairs in sorted(paths.items(), key=lambda item: (item[0] == NOT_WRITTEN, item[0])):
        confusion = Confusion.of(pairs)
        table[path] = {"statements": confusion.total, "supported": confusion.tp + confusion.fp,
                       "true": confusion.tp, "precision": confusion.precision}
    return table


def split_by_kind(rows: Iterable[tuple[str, str]]) -> dict[str, dict[str, int]]:
    """From (kind, verdict) pairs: the verdict split of each kind."""
    kinds: dict[str, list[str]] = {}
    for kind, verdict in rows:
        kinds.setdefault(kind, []).append(verdict)
    return {kind: verdict_split(verdicts) for kind, verdicts in sorted(kinds.items())}


def wrong_values_contradicted(splits: dict[str, dict[str, int]]) -> tuple[int, int]:
    """(contradicted, all) over the kinds that put a wrong value in the statement ("wrong-value:date"…): how often
    the judge saw the text give another value rather than merely not find the statement's."""
    wrong = [split for kind, split in splits.items() if kind.startswith("wrong-value")]
    return sum(split["contradicted"] for split in wrong), sum(sum(split.values()) for split in wrong)
