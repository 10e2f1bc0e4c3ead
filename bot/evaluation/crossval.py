"""Out-of-fold figures of a learned verdict beside the rules', on the same judged rows.

Each fold's rows are decided by a verdict fitted on the other folds only (``bot.judge.learned.fit``), so no figure
is read on a row the verdict learned from. Folds are grouped (``bot.evaluation.folds``): no fact, subject or text on
both sides; ``by_property`` holds whole properties out instead. A row the model was not asked about (the text does
not write the value) keeps the rules' verdict in both columns: what is compared is what the rules make of the
model's answers.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from bot.datamodel import Verdict
from bot.evaluation.dataset import LabelledStatement
from bot.evaluation.folds import by_property, grouped_folds
from bot.evaluation.metrics import roc_auc
from bot.judge.features import features, vector
from bot.judge.learned import fit

INNER_FOLDS = 5  # the training rows' own folds, on which a fold's verdict chooses its threshold


@dataclass(frozen=True)
class Decided:
    """One judged row, decided by the rules and out of fold by the learned verdict."""

    row: LabelledStatement
    fold: int
    rules: bool  # the rules' verdict: supported
    rules_score: float  # the rules' support (the calibrated one where there is one)
    learned: bool
    learned_score: float | None  # None: the model was not asked; the rules' verdict stands


def row_features(row: LabelledStatement, record: Mapping[str, Any]) -> dict[str, float] | None:
    """The features of a row's judgement. A row whose value is an item by its id and gives no datatype is an item's:
    in a run every value has its datatype, and a verdict must not learn which data set lacks one."""
    datatype = row.datatype or ("wikibase-item" if row.object_id else None)
    return features(record, subject=row.claim.subject, text=row.text, datatype=datatype, language=row.language)


def cross_validate(rows: Sequence[LabelledStatement], records: Mapping[str, Mapping[str, Any]], *, folds: int = 5,
                   hold_out: str = "groups", precision: float = 0.95, model: str = "", template: str = ""
                   ) -> list[Decided]:
    """Every judged row of ``rows`` decided out of fold. ``hold_out``: "groups" (``folds`` grouped folds) or
    "properties" (each property in turn)."""
    judged = [row for row in rows if row.id in records]
    fold_of = grouped_folds(judged, folds) if hold_out == "groups" else by_property(judged)
    values = [row_features(row, records[row.id]) for row in judged]
    decided: list[Decided] = []
    inner = grouped_folds(judged, INNER_FOLDS) if len(judged) >= INNER_FOLDS else [0] * len(judged)
    for fold in sorted(set(fold_of)):
        train = [(vector(v), row.label, i) for row, v, f, i in zip(judged, values, fold_of, inner)
                 if f != fold and v is not None]
        labels = [label for _, label, _ in train]
        # the threshold is chosen on the training rows out of their own (inner) folds
        learned = fit([x for x, _, _ in train], labels, model=model, template=template, precision=precision,
                      folds=[i for _, _, i in train]) if len(set(labels)) == 2 else None
        for row, v, f in zip(judged, values, fold_of):
            if f != fold:
                continue
            record = records[row.id]
            rules = record.get("verdict") == Verdict.SUPPORTS.value
            calibrated = record.get("calibrated")
            rules_score = float(calibrated if calibrated is not None else record.get("support", 0.0))
            if v is None or learned is None:
                decided.append(Decided(row, f, rules, rules_score, rules, None))
                continue
            option, probability = learned.decide(v)
            decided.append(Decided(row, f, rules, rules_score, option == "a", probability))
    return decided


@dataclass(frozen=True)
class Figures:
    rows: int
    positives: int
    precision: float | None
    recall: float | None
    specificity: float | None
    auc: float | None


def figures(decided: Sequence[Decided], system: str) -> Figures:
    """Precision, recall, specificity and ROC AUC of ``system`` ("rules" or "learned") on ``decided``."""
    labels = [d.row.label for d in decided]
    said = [d.rules if system == "rules" else d.learned for d in decided]
    scores = [d.rules_score if system == "rules" or d.learned_score is None else d.learned_score
              for d in decided]
    tp = sum(1 for label, s in zip(labels, said) if label and s)
    fp = sum(1 for label, s in zip(labels, said) if not label and s)
    positives = sum(labels)
    negatives = len(labels) - positives
    return Figures(len(labels), positives, tp / (tp + fp) if tp + fp else None,
                   tp / positives if positives else None,
                   (negatives - fp) / negatives if negatives else None, roc_auc(labels, scores))


def by(decided: Sequence[Decided], key: Callable[[LabelledStatement], str | None]) -> dict[str, list[Decided]]:
    groups: dict[str, list[Decided]] = {}
    for d in decided:
        groups.setdefault(key(d.row) or "—", []).append(d)
    return dict(sorted(groups.items()))


def table(decided: Sequence[Decided], key: Callable[[LabelledStatement], str | None], heading: str) -> list[str]:
    """Lines comparing the rules and the learned verdict, overall and by ``key``."""
    def cell(value: float | None) -> str:
        return "  —  " if value is None else f"{value:.3f}"

    lines = [f"{heading:<24} {'rows':>5} {'true':>5}   rules: P     R     spec  AUC     learned: P     R     spec  AUC"]
    for name, part in [("all", list(decided)), *by(decided, key).items()]:
        r, learned = figures(part, "rules"), figures(part, "learned")
        lines.append(f"{name[:24]:<24} {r.rows:>5} {r.positives:>5}   " + " ".join(
            cell(x) for x in (r.precision, r.recall, r.specificity, r.auc)) + "     " + " ".join(
            cell(x) for x in (learned.precision, learned.recall, learned.specificity, learned.auc)))
    return lines
