"""The evaluation table in the published paper's layout, with the two baselines beside refbot's judge."""

from __future__ import annotations

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
        f"cost: {'-' if rate is None else f'{rate:.3f}'} judgements/s, {cost['mean_latency_s']:.2f} s each, "
        f"{cost['mean_prompt_tokens']:.0f} prompt + {cost['mean_completion_tokens']:.1f} completion tokens "
        f"per judgement; {cost['unparseable']} unparseable, {cost['split_snippets']} snippets split to fit",
    ]
    return "\n".join(lines)
