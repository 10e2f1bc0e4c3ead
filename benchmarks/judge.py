#!/usr/bin/env python3
"""Judge quality and cost on the development sets, as `refbot check` judges: property profiles, no files.

    benchmarks/judge.py SHARED_DATA_DIR [--sample 200] [--templates refbot,paper] [--sets trex-verify-hard-dev,...]
                        [--descriptions FILE.json] [--tag NAME]
                        [refbot eval options, e.g. --no-profiles, --judge openai --judge-url URL]

Runs `refbot eval` for each (set, template) — resumable, judgements under reports/benchmark/ — and prints one
line each: precision, recall, F1, ROC AUC, precision at recall 0.5, judgements/s, prompt tokens/judgement,
beside the published method and the label-match baseline on the same rows.
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from bot.cli import main as refbot  # noqa: E402

SETS = ("trex-verify-hard-dev", "wtr-dev", "biored-verify-hard", "biored-verify")


def _fmt(value):
    return "    -" if value is None else f"{value:5.3f}"


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("data", type=Path, help="the shared data directory holding each set's dev.jsonl")
    parser.add_argument("--sample", type=int, default=200, help="stratified sample size per set (0: all rows)")
    parser.add_argument("--templates", default="refbot,paper", help="comma-separated template ids")
    parser.add_argument("--sets", default=",".join(SETS), help="comma-separated data set names")
    parser.add_argument("--out", type=Path, default=ROOT / "reports" / "benchmark", help="where results go")
    parser.add_argument("--descriptions", type=Path,
                        help="predicate descriptions and contrasts overriding the property profiles (e.g. "
                             "benchmarks/biored-relations.json); default: none, as users run refbot")
    parser.add_argument("--tag", default="", help="added to the result file names, to keep variants apart")
    args, judge_options = parser.parse_known_args()
    lines = []
    for name in args.sets.split(","):
        for template in args.templates.split(","):
            stem = f"{name}-{template}{args.tag}-{args.sample or 'all'}"
            out = args.out / f"{stem}.jsonl"
            command = ["--quiet", "eval", str(args.data / name / "dev.jsonl"), "--template", template,
                       "--out", str(out), *judge_options]
            if args.descriptions:
                command += ["--descriptions", str(args.descriptions)]
            if args.sample:
                command += ["--sample", str(args.sample)]
            print(f"== {name}, template {template}", flush=True)
            code = refbot(command)
            if code != 0:
                return code
            summary = json.loads(out.with_suffix(".summary.json").read_text())
            micro = summary["metrics"]["micro average"]
            ours, published, match = (micro[s].get("all", {}) for s in ("refbot", "published", "label-match"))
            cost, scores = summary["cost"], summary["scores"]
            lines.append(
                f"{name:19} {template + args.tag:16} {cost['judgements']:5d}  P {_fmt(ours.get('precision'))} "
                f"R {_fmt(ours.get('recall'))} F1 {_fmt(ours.get('f1'))}  AUC {_fmt(scores['roc_auc'])} "
                f"P@R.5 {_fmt(scores['precision_at_recall_0.5'])}  {cost['judgements_per_s'] or 0:6.3f} j/s "
                f"{cost['mean_prompt_tokens']:5.0f} prompt tok  | published P {_fmt(published.get('precision'))} "
                f"R {_fmt(published.get('recall'))} F1 {_fmt(published.get('f1'))} | label-match P "
                f"{_fmt(match.get('precision'))} R {_fmt(match.get('recall'))} F1 {_fmt(match.get('f1'))}")
    print("\n" + "\n".join(lines))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
