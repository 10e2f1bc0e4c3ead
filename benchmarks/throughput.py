#!/usr/bin/env python3
"""How many statements an hour `refbot run` checks with the embedded judge on this machine, where the time goes, and
how much memory it takes.

    benchmarks/throughput.py DEV_DIR [--limit N] [--checks 3] [--judge-model NAME] [--judge-dtype auto|bfloat16|float32]
                             [--threads N] [--workers N] [--seed 42]

``DEV_DIR`` is a real-pages dev set (``../shared/data/wtr-dev``), made into the world `benchmarks/real_pages.py`
builds: each statement unsourced under an invented item in an Oxigraph store, its page and two other rows' pages
served on loopback at their original paths, a search stand-in answering with them. Then, each a process of its own
started as an operator starts it, with the product's defaults (the embedded judge, its arithmetic chosen for this
CPU) and nothing from the caller's configuration:

1. ``refbot check QID --source web`` on ``--checks`` statements, one process each: the seconds from the command to
   its end, and to the moment the statement's check began (the process's start-up: imports, options, models);
2. ``refbot run --items FILE --source web`` over the first ``--limit`` items (all by default), one process: its
   seconds, statements per hour (from the command to its end, start-up included), each stage's mean seconds per
   statement from the run's trace (fetch, rank, judge; the rest of a statement's time as "other"), judgements
   asked per statement, and the process's peak memory (its maximum resident set, models included).

Printed with the CPU's flags and the arithmetic the judge chose (the trace's ``judge/@arithmetic``).
"""

from __future__ import annotations

import argparse
import os
import statistics
import subprocess
import sys
import tempfile
import time
from collections import Counter, defaultdict
from datetime import datetime
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
sys.path[:0] = [str(ROOT), str(Path(__file__).resolve().parent)]

from crashes import environment  # noqa: E402
from real_pages import build_world, place_urls, true_cases  # noqa: E402

STAGES = ("fetch", "rank", "judge")


def arguments() -> argparse.Namespace:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("dev", type=Path, metavar="DEV_DIR", help="dev.jsonl, pages.jsonl and pages/")
    parser.add_argument("--limit", type=int, metavar="N", help="the first N rows only")
    parser.add_argument("--checks", type=int, default=3, help="one-statement `refbot check` processes timed (3)")
    parser.add_argument("--judge-model", help="the embedded judge's model (default: refbot's)")
    parser.add_argument("--judge-dtype", choices=("auto", "bfloat16", "float32"),
                        help="the embedded judge's arithmetic (default: refbot's, auto)")
    parser.add_argument("--threads", type=int, help="CPU threads of the in-process judge (default: refbot's)")
    parser.add_argument("--workers", type=int, help="statements checked at once in the run (default: refbot's)")
    parser.add_argument("--seed", type=int, default=42, help="draws the distractor pages")
    return parser.parse_args()


def timed(command: list[str], cwd: Path, environ: dict[str, str]) -> tuple[int, float, int, str, float]:
    """``command`` run to its end: its exit status, seconds, peak resident memory (KiB), standard error and the
    moment it was started (seconds since the epoch)."""
    launched = time.time()
    began = time.monotonic()
    process = subprocess.Popen(command, cwd=cwd, env=environ, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE,
                               text=True, errors="replace")
    assert process.stderr is not None
    stderr = process.stderr.read()
    _, status, usage = os.wait4(process.pid, 0)
    process.returncode = os.waitstatus_to_exitcode(status)
    return process.returncode, time.monotonic() - began, usage.ru_maxrss, stderr, launched


def trace_of(reports: Path) -> Any:
    from lxml import etree

    traces = sorted(reports.glob("*.xml"), key=lambda path: path.stat().st_mtime)
    if not traces:
        raise SystemExit(f"throughput: no trace in {reports}")
    return etree.parse(str(traces[-1]))


def statements_of(tree: Any) -> list[dict[str, Any]]:
    """Each statement of a trace: its outcome, seconds, stage seconds and judgements asked."""
    from bot.output import trace as traces

    found = []
    for element in tree.iter(traces.tag("statement")):
        stages: dict[str, float] = defaultdict(float)
        for stage in element.findall(traces.tag("stage")):
            stages[stage.get("name")] += float(stage.get("seconds"))
        started = datetime.fromisoformat(element.get("started").replace("Z", "+00:00")).timestamp()
        found.append({"outcome": element.get("outcome"), "seconds": float(element.get("elapsed-s") or 0),
                      "started": started,
                      "stages": stages, "asked": int(element.get("judgements") or 0)})
    return found


def arithmetic_of(tree: Any) -> str:
    from bot.output import trace as traces

    judge = tree.getroot().find(f"{traces.tag('run')}/{traces.tag('judge')}")
    return judge.get("arithmetic") or "(not recorded)" if judge is not None else "(no judge in the trace)"


def main() -> int:
    args = arguments()
    from bot.judge.arithmetic import SHOWN, cpu_flags

    rows, pages, cases = true_cases(args.dev, args.limit)
    flags = cpu_flags()
    print(f"throughput: {len(cases)} statements on real pages; {os.cpu_count()} CPUs with "
          f"{' '.join(flag for flag in SHOWN if flag in flags) or 'no vector flags read'}", flush=True)
    with tempfile.TemporaryDirectory(prefix="refbot-throughput-") as folder:
        workdir = Path(folder)
        world, placed = build_world(workdir / "world", cases, rows, pages, args.seed)
        with world:
            place_urls(world)
            overrides = {**world.options(), "check_source": "web", "threads": args.threads,
                         "judge_backend": "transformers", "judge_model": args.judge_model,
                         "judge_dtype": args.judge_dtype, "check_workers": args.workers}
            environ = environment(overrides)
            environ.pop("MALLOC_CHECK_", None)  # glibc's heap checks cost time: this measures speed
            checks = []
            for number, case in enumerate(placed[: args.checks]):
                reports = workdir / f"check-{number}"
                code, seconds, peak, stderr, launched = timed(
                    [sys.executable, "-m", "bot.cli", "--quiet", "check", case.item, "--reports", str(reports)],
                    workdir, environ)
                if code not in (0, 1):  # 1: checked, nothing supported
                    print(f"throughput: refbot check {case.item} ended with status {code}:\n{stderr[-2000:]}")
                    return 1
                statement, = statements_of(trace_of(reports)) or [None]
                began = statement["started"] - launched if statement else 0.0
                checks.append((seconds, began, peak))
                print(f"  refbot check {case.item}: {seconds:.1f} s; its statement began {began:.0f} s after the "
                      f"command (the trace's second); peak {peak / 1024:.0f} MiB", flush=True)
            items = workdir / "items.txt"
            items.write_text("".join(f"{case.item}\n" for case in placed), encoding="utf-8")
            reports = workdir / "run"
            code, seconds, peak, stderr, launched = timed(
                [sys.executable, "-m", "bot.cli", "--quiet", "run", "--items", str(items), "--reports", str(reports),
                 "--ledger", str(workdir / "runs.sqlite")], workdir, environ)
            if code not in (0, 1):
                print(f"throughput: refbot run ended with status {code}:\n{stderr[-2000:]}")
                return 1
            tree = trace_of(reports)
    from bot.options import CheckOptions

    side_by_side = args.workers or CheckOptions().workers
    statements = statements_of(tree)
    count = len(statements)
    if not count:
        print("throughput: the run checked no statement")
        return 1
    print(f"judge arithmetic: {arithmetic_of(tree)}")
    if checks:
        print(f"refbot check, one statement ({len(checks)} processes): median "
              f"{statistics.median(c[0] for c in checks):.1f} s from the command to its end, its statement begun "
              f"{statistics.median(c[1] for c in checks):.0f} s after the command; peak "
              f"{max(c[2] for c in checks) / 1024:.0f} MiB")
    outcomes = Counter(statement["outcome"] for statement in statements)
    print(f"refbot run: {count} statements in {seconds:.0f} s: {count / seconds * 3600:,.0f} statements an hour "
          f"(start-up included; {side_by_side} statements side by side, so a stage's seconds include "
          f"waiting for the model the other holds); peak memory {peak / 1024:,.0f} MiB; outcomes "
          + ", ".join(f"{n} {outcome}" for outcome, n in outcomes.most_common()))
    mean = {stage: statistics.mean(s["stages"].get(stage, 0.0) for s in statements) for stage in STAGES}
    each = statistics.mean(s["seconds"] for s in statements)
    ranks = [s["stages"].get("rank", 0.0) for s in statements]
    print("| stage (mean per statement) | seconds |\n| --- | --- |")
    first = min(statement["started"] for statement in statements) - launched
    print(f"| start-up: the command to its first statement (the trace's seconds) | {first:.0f} |")
    print(f"| ranking | {mean['rank']:.2f} (median {statistics.median(ranks):.2f}, max {max(ranks):.2f}) |")
    print(f"| judging ({statistics.mean(s['asked'] for s in statements):.2f} judgements a statement) | "
          f"{mean['judge']:.2f} |")
    print(f"| fetching | {mean['fetch']:.2f} |")
    print(f"| other | {each - sum(mean.values()):.2f} |")
    print(f"| the statement in all | {each:.2f} |")
    return 0


if __name__ == "__main__":
    sys.exit(main())
