#!/usr/bin/env python3
"""Does `refbot check` ever die by a signal? Many `refbot check` processes in a row on real reference pages, each
watched for a death by a signal (SIGABRT from glibc's heap checks, SIGSEGV), with the interpreter's fault handler on.

    benchmarks/crashes.py DEV_DIR [--processes 300] [--at-once 2] [--limit N] [--keep DIR]
                          [--judge-model NAME] [--threads N] [--judge-dtype bfloat16|float32] [--seed 42]

``DEV_DIR`` is a real-pages dev set (``../shared/data/wtr-dev``), made into the world `benchmarks/real_pages.py`
builds: each statement unsourced under an invented item in an Oxigraph store, its page and two others served on
loopback at their original paths, a search stand-in answering with them. ``--processes`` runs of ``refbot check
QID --source web`` are started one after the other (``--at-once`` at a time), each a process of its own as an editor
or a scheduled job starts it, over the rows in turn, each with ``PYTHONFAULTHANDLER=1`` (a Python stack of every
thread when the process dies by a fatal signal) and ``MALLOC_CHECK_=3`` (glibc aborts at the first heap
inconsistency instead of carrying on). Printed: how many processes died by a signal (the target: 0), which signals,
how many ended with another error status, and the seconds a process took (median and max); each death's fault
handler output, with its statement, goes to ``--keep`` (default ``reports/crashes``) and its first frames are printed.
The judge is refbot's embedded one (transformers, in the process); ``--judge-model smollm2-135m`` makes each process
several times shorter (the same libraries and threads, a smaller model), for a count in hundreds on a small machine.
"""

from __future__ import annotations

import argparse
import os
import signal
import statistics
import subprocess
import sys
import tempfile
import time
from collections import Counter
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
sys.path[:0] = [str(ROOT), str(Path(__file__).resolve().parent)]

from real_pages import Case, build_world, place_urls, true_cases  # noqa: E402


def environment(overrides: dict[str, Any]) -> dict[str, str]:
    """The environment of one `refbot check`: the world's settings as REFBOT_ variables (nothing of the caller's
    REFBOT_ settings), the fault handler and glibc's heap checks on."""
    environ = {key: value for key, value in os.environ.items() if not key.startswith("REFBOT_")}
    for name, value in overrides.items():
        if value is None:
            continue
        text = ",".join(str(part) for part in value) if isinstance(value, (tuple, list)) else str(value)
        environ[f"REFBOT_{name.upper()}"] = text
    environ.update(PYTHONPATH=str(ROOT), PYTHONFAULTHANDLER="1", MALLOC_CHECK_="3")
    return environ


def arguments() -> argparse.Namespace:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("dev", type=Path, metavar="DEV_DIR", help="dev.jsonl, pages.jsonl and pages/")
    parser.add_argument("--processes", type=int, default=300, help="`refbot check` processes to start (300)")
    parser.add_argument("--at-once", type=int, default=2, help="processes running at the same time (2)")
    parser.add_argument("--limit", type=int, metavar="N", help="the first N rows only (each checked in turn)")
    parser.add_argument("--keep", type=Path, default=ROOT / "reports" / "crashes",
                        help="where each death's output is kept (reports/crashes)")
    parser.add_argument("--judge-model", help="the embedded judge's model (default: refbot's)")
    parser.add_argument("--threads", type=int, help="CPU threads of the in-process judge (default: refbot's)")
    parser.add_argument("--judge-dtype", choices=("bfloat16", "float32"),
                        help="the in-process judge's weights (default: refbot's)")
    parser.add_argument("--seed", type=int, default=42, help="draws the distractor pages")
    args = parser.parse_args()
    if args.processes < 1 or args.at_once < 1:
        parser.error("--processes and --at-once must be at least 1")
    return args


def main() -> int:
    args = arguments()
    rows, pages, cases = true_cases(args.dev, args.limit)
    args.keep.mkdir(parents=True, exist_ok=True)
    with tempfile.TemporaryDirectory(prefix="refbot-crashes-") as folder:
        world, placed = build_world(Path(folder) / "world", cases, rows, pages, args.seed)
        with world:
            place_urls(world)
            overrides = {**world.options(), "check_source": "web", "threads": args.threads,
                         "judge_backend": "transformers", "judge_model": args.judge_model,
                         "judge_dtype": args.judge_dtype, "check_reports": Path(folder) / "reports"}
            environ = environment(overrides)
            print(f"crashes: {len(placed)} statements on real pages; {args.processes} `refbot check` processes, "
                  f"{args.at_once} at a time (PYTHONFAULTHANDLER=1, MALLOC_CHECK_=3)", flush=True)
            ended: list[tuple[int, float, Case, str]] = []

            def one(number: int) -> None:
                case = placed[number % len(placed)]
                began = time.monotonic()
                done = subprocess.run([sys.executable, "-m", "bot.cli", "--quiet", "check", case.item], cwd=folder,
                                      env=environ, capture_output=True, text=True, errors="replace")
                seconds = time.monotonic() - began
                ended.append((done.returncode, seconds, case, done.stderr))
                if done.returncode < 0:
                    name = signal.Signals(-done.returncode).name
                    kept = args.keep / f"{number:04d}-{case.row['id']}-{name}.txt"
                    kept.write_text(f"refbot check {case.item} (row {case.row['id']}): died by {name}\n\n"
                                    f"{done.stderr}", encoding="utf-8")
                    print(f"[{len(ended)}/{args.processes}] row {case.row['id']}: DIED by {name} after "
                          f"{seconds:.1f} s; its output: {kept}", flush=True)
                elif len(ended) % 10 == 0:
                    print(f"[{len(ended)}/{args.processes}] {seconds:.1f} s", flush=True)

            with ThreadPoolExecutor(max_workers=args.at_once) as pool:
                list(pool.map(one, range(args.processes)))
    deaths = Counter(signal.Signals(-code).name for code, *_ in ended if code < 0)
    failed = Counter(code for code, *_ in ended if code > 0)
    seconds = [entry[1] for entry in ended]
    print(f"crashes: {len(ended)} processes; died by a signal: {sum(deaths.values())}"
          + (f" ({', '.join(f'{count} {name}' for name, count in deaths.items())})" if deaths else "")
          + f"; ended with an error status: {sum(failed.values())}"
          + (f" ({', '.join(f'{count} × {code}' for code, count in sorted(failed.items()))})" if failed else "")
          + f"; seconds a process: median {statistics.median(seconds):.1f}, max {max(seconds):.1f}")
    for code, _, case, stderr in ended:
        if code < 0:
            heads = ("Fatal Python", "Thread", "Current", "  File")
            frames = [line for line in stderr.splitlines() if line.startswith(heads)][:12]
            print(f"  row {case.row['id']} ({signal.Signals(-code).name}):\n    " + "\n    ".join(frames))
    for code, _, case, stderr in ended:
        if code > 0:
            print(f"  row {case.row['id']} exit {code}: {stderr.strip().splitlines()[-1] if stderr.strip() else ''}")
    return 1 if deaths else 0


if __name__ == "__main__":
    sys.exit(main())
