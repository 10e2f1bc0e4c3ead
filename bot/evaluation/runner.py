"""``refbot eval``: judge labelled statements, resumably, and score the judge beside two baselines."""

from __future__ import annotations

import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

from bot.judge.loading import wait_for_model
from bot.judge.answers import parse_option
from bot.datamodel import Verdict
from bot.evaluation.dataset import LabelledStatement
from bot.evaluation.ledger import LedgerWriter, check_same_judge, judgement_record, read_ledger
from bot.evaluation.metrics import (Confusion, best_f1, expected_calibration_error, grouped, label_match,
                                    precision_at_recall, precision_by_path, reliability, roc_auc, shares,
                                    split_by_kind, verdict_split, wrong_values_contradicted)

if TYPE_CHECKING:  # a type only: ledgers are scored without importing the judge
    from bot.judge.engine import Judge


@dataclass
class Evaluation:
    rows: list[LabelledStatement]
    records: dict[str, dict[str, Any]]
    judged_now: int
    seconds: float
    model: str
    template: str
    groups: dict[str, dict[str, dict[str, Confusion]]] = field(default_factory=dict)

    def __post_init__(self) -> None:
        judged = [row for row in self.rows if row.id in self.records]
        predictions: dict[str, Callable[[LabelledStatement], tuple[bool, bool] | None]] = {
            "refbot": lambda row: (row.label, self.records[row.id]["verdict"] == Verdict.SUPPORTS.value),
            "published": lambda row: None if row.paper_verdict is None else (row.label, row.paper_verdict),
            "label-match": lambda row: (row.label, label_match(row.claim.object, row.text)),
        }
        keys: dict[str, Callable[[LabelledStatement], str | None]] = {
            "concept pair": lambda row: row.concept_pair,
            "relation": lambda row: row.relation,
            "datatype": lambda row: row.datatype,
            "language": lambda row: row.language,
            "micro average": lambda row: "all",
        }
        self.groups = {name: {system: grouped(judged, key, predict) for system, predict in predictions.items()}
                       for name, key in keys.items()}
        self.judged_rows = judged

    def scores(self) -> dict[str, Any]:
        """Ranking quality of the support score, overall and within each relation.

        Within a relation the base rate of true claims is fixed, so a judge that merely prefers one relation's
        label cannot score there: the per-relation AUC shows whether the judge reads the text.
        """
        def ranking(rows: list[LabelledStatement]) -> tuple[float | None, float | None]:
            labels = [row.label for row in rows]
            support = [float(self.records[row.id]["support"]) for row in rows]
            return roc_auc(labels, support), precision_at_recall(labels, support)

        overall_auc, overall_precision = ranking(self.judged_rows)
        best = best_f1([row.label for row in self.judged_rows],
                       [float(self.records[row.id]["support"]) for row in self.judged_rows])
        by_relation: dict[str, list[LabelledStatement]] = {}
        for row in self.judged_rows:
            by_relation.setdefault(row.relation, []).append(row)
        return {"roc_auc": overall_auc, "precision_at_recall_0.5": overall_precision,
                "best_f1": best[0] if best else None, "best_f1_threshold": best[1] if best else None,
                "roc_auc_by_relation": {relation: ranking(rows)[0] for relation, rows in sorted(by_relation.items())}}

    def verdicts(self) -> dict[str, dict[str, int]]:
        """How the verdicts split (supported, undecided, contradicted, not supported, unparseable), over all
        statements and over each label's."""
        def split(label: bool | None) -> dict[str, int]:
            return verdict_split(self.records[row.id]["verdict"] for row in self.judged_rows
                                 if label is None or row.label is label)
        return {"all": split(None), "labelled_supported": split(True), "labelled_unsupported": split(False)}

    def calibration(self) -> dict[str, Any]:
        """How well the score the verdict is decided on (the calibrated support where there is one) matches how
        often statements so scored are supported: its expected calibration error and reliability table, and the
        ROC AUC of the raw and the calibrated score."""
        records = [self.records[row.id] for row in self.judged_rows]
        labels = [row.label for row in self.judged_rows]
        decided = [decision_score(record) for record in records]
        calibrated = sum(record.get("calibrated") is not None for record in records)
        score = "support" if not calibrated else "calibrated" if calibrated == len(records) else \
            "calibrated, else support"
        return {"score": score, "calibrated_judgements": calibrated,
                "ece": expected_calibration_error(labels, decided),
                "bins": [bucket.as_dict() for bucket in reliability(labels, decided)],
                "roc_auc_support": roc_auc(labels, [float(record["support"]) for record in records]),
                "roc_auc_calibrated": roc_auc(labels, decided) if calibrated else None}

    def by_path(self) -> dict[str, dict[str, float | int | None]]:
        """The precision of "supported" by how the text writes the value ("not written": it does not)."""
        return precision_by_path((str(self.records[row.id].get("written") or ""), row.label,
                                  self.records[row.id]["verdict"] == Verdict.SUPPORTS.value)
                                 for row in self.judged_rows)

    def _kind_splits(self) -> dict[str, dict[str, int]]:
        return split_by_kind((row.kind, self.records[row.id]["verdict"]) for row in self.judged_rows if row.kind)

    def by_kind(self) -> dict[str, dict[str, float | int | None]]:
        """Per kind of row (rows without one left out): n and the share of each verdict class."""
        return {kind: {"n": sum(split.values()), **shares(split)} for kind, split in self._kind_splits().items()}

    def wrong_values_contradicted(self) -> dict[str, float | int | None]:
        """Of the rows whose value was replaced by a wrong one, those the judge found another value for."""
        contradicted, wrong = wrong_values_contradicted(self._kind_splits())
        return {"contradicted": contradicted, "n": wrong, "share": contradicted / wrong if wrong else None}

    def parse_agreement(self) -> tuple[int, int]:
        """(agreeing, compared): rows whose recorded published answer, read by refbot's parser, gives the
        published verdict (only option a counts as support)."""
        rows = [row for row in self.judged_rows if row.paper_answer is not None and row.paper_verdict is not None]
        agreeing = sum((parse_option(row.paper_answer or "") == "a") == row.paper_verdict for row in rows)
        return agreeing, len(rows)

    def cost(self) -> dict[str, float | int | None]:
        records = [self.records[row.id] for row in self.judged_rows]
        count = len(records) or 1
        latency = sum(float(r["latency_s"]) for r in records)
        return {
            "judgements": len(records),
            "judged_in_this_run": self.judged_now,
            "judgements_per_s": (self.judged_now / self.seconds) if self.judged_now and self.seconds else
            (len(records) / latency if latency else None),
            "mean_latency_s": latency / count,
            "mean_prompt_tokens": sum(int(r["prompt_tokens"]) for r in records) / count,
            "mean_completion_tokens": sum(int(r["completion_tokens"]) for r in records) / count,
            "unparseable": sum(r["verdict"] == Verdict.UNPARSEABLE.value for r in records),
            "split_snippets": sum(int(r.get("parts", 1)) > 1 for r in records),
        }

    def summary(self) -> dict[str, Any]:
        return {
            "model": self.model,
            "template": self.template,
            "rows": len(self.rows),
            "metrics": {name: {system: {group: confusion.as_dict() for group, confusion in table.items()}
                               for system, table in systems.items()}
                        for name, systems in self.groups.items()},
            "scores": self.scores(),
            "verdicts": self.verdicts(),
            "calibration": self.calibration(),
            "by_path": self.by_path(),
            "by_kind": self.by_kind(),
            "wrong_values_contradicted": self.wrong_values_contradicted(),
            "published_answers_parsed": dict(zip(("agreeing", "compared"), self.parse_agreement())),
            "cost": self.cost(),
        }


def decision_score(record: dict[str, Any]) -> float:
    """The score a ledger record's verdict was decided on: the calibrated support, else the raw one."""
    calibrated = record.get("calibrated")
    return float(record["support"] if calibrated is None else calibrated)


def evaluate(rows: Sequence[LabelledStatement], build_judge: Callable[[], Judge], out: Path, *, template: str,
             settings: dict[str, Any], on_judged: Callable[[int, int], None] | None = None) -> Evaluation:
    """Judge every row not already in ``out``; each judgement is appended to ``out`` as soon as it exists.

    The judge is built only when rows are left, so a finished run is re-scored without a model or a server.
    ``settings`` (threshold, descriptions…) must match those of the judgements already in ``out``. If the
    judge fails part-way, the judgements made so far are already saved and the error propagates.
    """
    done = read_ledger(out)
    todo = [row for row in rows if row.id not in done]
    if not todo:
        earlier = {row.id: done[row.id] for row in rows}
        model = next(iter(earlier.values()))["model"] if earlier else "-"
        check_same_judge(earlier, model, template, out, settings)
        return Evaluation(list(rows), done, 0, 0.0, model, template)
    judge = build_judge()
    check_same_judge(done, judge.model_id, judge.template.id, out, settings)
    wait_for_model(judge.backend)  # the seconds measured are the judgements'
    by_id = {row.id: row for row in todo}
    started = time.monotonic()
    judged = 0
    writer = LedgerWriter(out)
    try:
        tasks = ((row.id, row.claim, row.text) for row in todo)
        for statement_id, judgement in judge.judge_all(tasks):
            record = judgement_record(statement_id, by_id[statement_id].label, judgement, settings)
            writer.append(record)
            done[statement_id] = record
            judged += 1
            if on_judged:
                on_judged(judged, len(todo))
    finally:
        writer.close()
    return Evaluation(list(rows), done, judged, time.monotonic() - started, judge.model_id, judge.template.id)
