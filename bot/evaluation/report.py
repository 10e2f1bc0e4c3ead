"""The evaluation table in the published paper's layout, with the two baselines beside refbot's judge, then how
refbot's verdicts split, how well its score is calibrated, and how precise its support is by path and kind of row."""

from __future__ import annotations

from typing import Any

from bot.evaluation.metrics import Confusion
from bot.evaluation.runner import Evaluation


def _number(value: float | None) -> str:
    return "   -  " if value is None else f"{value:6.3f}"


def _scores(confusion: Confusion | None) -> str:
    if confusion is None:
        return f"{'':>6} {'-':>6} {'-':>6}"
    return f"{_number(confusion.precision)} {_number(confusion.recall)} {_number(confusion.f1)}"


def format_table(evaluation: Evaluation) -> str:
    groups = [group for systems in evaluation.groups.values() for group in systems["refbot"]]
    width = max(len(name) for name in ["micro average", *groups]) + 2
    header = (f"{'':{width}} {'n':>5} {'TP':>5} {'TN':>5} {'FP':>5} {'FN':>5} {'P':>6} {'R':>6} {'F1':>6}"
              f" | {'published P':>11} {'R':>6} {'F1':>6} | {'label-match P':>13} {'R':>6} {'F1':>6}")
    lines = [f"model {evaluation.model}, template {evaluation.template!r}: "
             f"{len(evaluation.judged_rows)} of {len(evaluation.rows)} statements judged", "", header,
             "-" * len(header)]
    for name, systems in evaluation.groups.items():
        if not systems["refbot"]:
            continue
        lines.append(f"by {name}" if name != "micro average" else "")
        for group, confusion in systems["refbot"].items():
            label = "micro average" if name == "micro average" else f"  {group}"
            published = systems["published"].get(group)
            lines.append(
                f"{label:{width}} {confusion.total:5d} {confusion.tp:5d} {confusion.tn:5d} {confusion.fp:5d} "
                f"{confusion.fn:5d} {_scores(confusion)} | {'':5}{_scores(published)} | "
                f"{'':7}{_scores(systems['label-match'].get(group))}")
    scores, cost = evaluation.scores(), evaluation.cost()
    rate = cost["judgements_per_s"]
    with_verdict = sum(row.paper_verdict is not None for row in evaluation.judged_rows)
    agreeing, compared = evaluation.parse_agreement()
    if compared:
        lines += ["", f"published answers re-read by refbot's parser: {agreeing} of {compared} give the published "
                      "verdict"]
    if with_verdict < len(evaluation.judged_rows):
        lines += ["", f"published: verdicts recorded for {with_verdict} of {len(evaluation.judged_rows)} rows; "
                      "its scores cover those rows only"]
    lines += [
        "",
        f"support score: ROC AUC {_number(scores['roc_auc']).strip()}, "
        f"precision at recall 0.5 {_number(scores['precision_at_recall_0.5']).strip()}, best F1 "
        f"{_number(scores['best_f1']).strip()} at threshold {_number(scores['best_f1_threshold']).strip()}",
        "ROC AUC within each relation: " + ", ".join(f"{relation} {_number(auc).strip()}"
                                                     for relation, auc in scores["roc_auc_by_relation"].items()),
        *_verdict_lines(evaluation),
        *_calibration_lines(evaluation.calibration()),
        *_path_lines(evaluation.by_path()),
        *_kind_lines(evaluation),
        "",
        f"cost: {'-' if rate is None else f'{rate:.3f}'} judgements/s, {cost['mean_latency_s']:.2f} s each, "
        f"{cost['mean_prompt_tokens']:.0f} prompt + {cost['mean_completion_tokens']:.1f} completion tokens "
        f"per judgement; {cost['unparseable']} unparseable, {cost['split_snippets']} snippets split to fit",
    ]
    return "\n".join(lines)


def _verdict_lines(evaluation: Evaluation) -> list[str]:
    overall = evaluation.groups["micro average"]["refbot"].get("all", Confusion())
    lines = ["", f"specificity {_number(overall.specificity).strip()}, F1 supported {_number(overall.f1).strip()}, "
                 f"F1 unsupported {_number(overall.f1_unsupported).strip()}, "
                 f"macro F1 {_number(overall.macro_f1).strip()}", ""]
    splits = evaluation.verdicts()
    classes = list(splits["all"])
    lines.append(f"{'verdicts':22}" + "".join(f"{name.replace('_', ' '):>15}" for name in classes))
    for name, split in splits.items():
        lines.append(f"  {name.replace('_', ' '):20}" + "".join(f"{split[verdict]:15d}" for verdict in classes))
    return lines


def _calibration_lines(calibration: dict[str, Any]) -> list[str]:
    score = {"support": "raw support (no calibrated one)", "calibrated": "calibrated support"}.get(
        calibration["score"], f"calibrated support ({calibration['calibrated_judgements']} judgements; the raw "
                              "support elsewhere)")
    lines = ["", f"calibration: ECE {_number(calibration['ece']).strip()} of the {score}, "
                 f"{len(calibration['bins'])} equal-width bins",
             f"ROC AUC of the raw support {_number(calibration['roc_auc_support']).strip()}, of the calibrated "
             f"support {_number(calibration['roc_auc_calibrated']).strip()}",
             f"  {'score':12} {'n':>5} {'mean score':>11} {'supported':>10}"]
    for bucket in calibration["bins"]:
        if bucket["n"]:
            lines.append(f"  {bucket['low']:.1f}-{bucket['high']:.1f}{'':5} {bucket['n']:5d} "
                         f"{bucket['mean_score']:11.3f} {bucket['fraction_supported']:10.3f}")
    return lines


def _path_lines(paths: dict[str, dict[str, Any]]) -> list[str]:
    lines = ["", f"{'supported by how the text writes the value':44} {'n':>5} {'supported':>10} {'true':>5} "
                 f"{'precision':>10}"]
    for path, row in paths.items():
        lines.append(f"  {path:42} {row['statements']:5d} {row['supported']:10d} {row['true']:5d} "
                     f"{_number(row['precision']):>10}")
    return lines


def _kind_lines(evaluation: Evaluation) -> list[str]:
    kinds = evaluation.by_kind()
    if not kinds:
        return []
    classes = [name for name in next(iter(kinds.values())) if name != "n"]
    width = max(len("verdicts by kind"), *(len(kind) + 2 for kind in kinds))
    header = "".join(f"{name.replace('_', ' '):>15}" for name in classes)
    lines = ["", f"{'verdicts by kind':{width}} {'n':>5}{header}"]
    for kind, row in kinds.items():
        lines.append(f"  {kind:{width - 2}} {row['n']:5d}" + "".join(f"{_number(row[name]):>15}" for name in classes))
    wrong = evaluation.wrong_values_contradicted()
    if wrong["n"]:
        lines.append(f"wrong values reported as contradicted: {wrong['contradicted']} of {wrong['n']} "
                     f"({_number(wrong['share']).strip()})")
    return lines
