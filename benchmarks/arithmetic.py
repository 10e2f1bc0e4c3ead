#!/usr/bin/env python3
"""How far the judge's numbers move with the arithmetic they are computed in, on this CPU: the same weights served
by vLLM (`refbot serve-judge --dtype D`) and run in-process by transformers, each in float32 and in bfloat16.

    benchmarks/arithmetic.py ../shared/data/trex-verify-hard-dev [--rows 40] [--model smollm2-135m]
                             [--dtypes float32,bfloat16]

For each of the data set's first ``--rows`` texts, with the statement's relation and its contrasts as refbot's
property catalogue states them, the judge's two summary prefixes (``Judge.summary_prefixes``) and its questions:

- **first token vs echo**: one server computes the log-probability of a relation's first token two ways — as the
  generated token's (``[judge] echo = false``: one request, max_tokens 1, the top 20 log-probabilities) and as the
  echoed prompt's (``echo = true``: the prefix and the continuation sent as one prompt). The same number, computed
  in batches of other shapes. Counted where the echoed first token is among the generated top 20.
- **ranking**: whether the two ways put the same relation first (by first tokens), and the gap between the two
  best relations, which says how far the numbers may move before a ranking could change.
- **server vs in-process**: the echoed log-probability of a relation's whole phrase (what ``echo = true`` sums),
  P(yes) of the yes/no question and the judge's support (``Judge.judge``: P(yes) and the relations' shares), from
  vLLM and from transformers in the same arithmetic.
- **bfloat16 vs float32**: the same quantities from the same implementation in the two arithmetics: how far bf16
  is from the float32 answer.

Printed: for each arithmetic and quantity, how many numbers, median, 95th percentile and largest absolute
difference. The tests' tolerances (``tests/conftest.py``) come from these figures.
"""

from __future__ import annotations

import argparse
import json
import math
import statistics
import subprocess
import sys
import tempfile
import time
from collections import defaultdict
from collections.abc import Iterator
from contextlib import contextmanager
from itertools import zip_longest
from dataclasses import dataclass
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path[:0] = [str(ROOT)]

from bot import modelstore  # noqa: E402
from bot.datamodel import Claim  # noqa: E402
from bot.evaluation.dataset import LabelledStatement, read_dataset  # noqa: E402
from bot.judge.engine import Judge  # noqa: E402
from bot.judge.openai_backend import OpenAIBackend, make_session  # noqa: E402
from bot.judge.prompts import REFBOT, summary_continuation  # noqa: E402
from bot.judge.transformers_backend import TransformersBackend  # noqa: E402
from bot.properties import PropertyProfiles  # noqa: E402


@dataclass(frozen=True)
class Case:
    """One text with a statement whose relation has contrasts: the prefixes the judge's comparison continues and
    the continuations, one per relation (its main phrase)."""

    id: str
    claim: Claim
    text: str
    messages: list
    prefixes: list[tuple[str, bool]]
    continuations: tuple[str, ...]


def cases(dataset: Path, rows: int, backend: TransformersBackend) -> list[Case]:
    """The first ``rows`` distinct texts whose statement refbot compares with other relations, with the prefixes
    the judge reads for them on ``backend`` (its chat template)."""
    judge = Judge(backend, REFBOT, justify=False)
    by_relation: dict[str, list[LabelledStatement]] = defaultdict(list)
    for row in read_dataset(dataset, profiles=PropertyProfiles()):
        if row.claim.alternatives:
            by_relation[row.relation].append(row)
    found: list[Case] = []
    seen: set[str] = set()
    for row in (row for group in zip_longest(*by_relation.values()) for row in group if row is not None):
        claim = row.claim
        if row.text in seen:
            continue
        seen.add(row.text)
        relations = [claim.relation, *claim.alternatives]
        continuations = tuple(summary_continuation(claim, relation) for relation in relations)
        found.append(Case(row.id, claim, row.text, REFBOT.messages(claim, row.text),
                          judge.summary_prefixes(claim, row.text), continuations))
        if len(found) == rows:
            break
    return found


@contextmanager
def served(model: str, dtype: str, port: int, log: Path) -> Iterator[str]:
    """`refbot serve-judge --dtype DTYPE` as the tests start it; its URL while it runs."""
    process = subprocess.Popen(
        [sys.executable, "-m", "bot.cli", "serve-judge", "--model", model, "--eager", "--port", str(port),
         "--context", "2048", "--kv-cache", "1", "--in-flight", "4", "--dtype", dtype, "--log", str(log),
         "--ready-timeout", "900"], stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True, cwd=ROOT)
    try:
        assert process.stdout is not None
        lines = []
        for line in process.stdout:
            if not line.strip():
                break
            lines.append(line)
        if process.poll() is not None or not lines:
            raise SystemExit(f"refbot serve-judge --dtype {dtype} ended ({process.wait()}): see {log}")
        yield f"http://127.0.0.1:{port}/v1"
    finally:
        process.terminate()
        process.wait(timeout=90)


def measure(url: str, model: str, local: TransformersBackend, found: list[Case]) -> dict[str, list[float]]:
    """Differences between ways of computing one number (absolute), and per-case figures (ranking, gaps)."""
    session = make_session()
    echoing = OpenAIBackend(session, url)
    out: dict[str, list[float]] = defaultdict(list)
    judges = Judge(echoing, REFBOT, justify=False), Judge(local, REFBOT, justify=False)
    for case in found:
        support_served, support_local = (judge.judge(case.claim, case.text).support for judge in judges)
        out["support: vLLM − transformers"].append(abs(support_served - support_local))
        out["values:support"].append(support_served)
        yes_served = echoing.choose(case.messages, ("yes", "no")).probabilities.get("yes", math.nan)
        yes_local = local.choose(case.messages, ("yes", "no")).probabilities.get("yes", math.nan)
        out["P(yes): vLLM − transformers"].append(abs(yes_served - yes_local))
        out["values:P(yes)"].append(yes_served)
        for prefix, rendered in case.prefixes:
            extra = {"add_special_tokens": False} if rendered else {}
            generated = session.post(f"{url}/completions", json={
                "model": model, "prompt": prefix, "max_tokens": 1, "temperature": 0.0, "logprobs": 20,
                **extra}, timeout=300).json()["choices"][0]["logprobs"]["top_logprobs"][0]
            firsts_echo: dict[str, float] = {}  # by first token: relations whose phrases begin alike tie
            firsts_generated: dict[str, float | None] = {}
            for continuation in case.continuations:
                answer = session.post(f"{url}/completions", json={
                    "model": model, "prompt": prefix + continuation, "max_tokens": 1, "temperature": 0.0,
                    "echo": True, "logprobs": 1, **extra}, timeout=300).json()["choices"][0]["logprobs"]
                inside = [index for index, offset in enumerate(answer["text_offset"])
                          if len(prefix) <= offset < len(prefix) + len(continuation)]
                token, echoed = answer["tokens"][inside[0]], answer["token_logprobs"][inside[0]]
                firsts_echo[token] = echoed
                out[f"values:first:{case.id}:{prefix[-40:]}:{token}"].append(echoed)
                firsts_generated[token] = generated.get(token)
                if token in generated:
                    out["first token: generated − echoed"].append(abs(generated[token] - echoed))
                whole = sum(answer["token_logprobs"][index] for index in inside)
                mine = sum(local.continuation_logprobs(prefix, [continuation], rendered=rendered).logprobs[0])
                out["phrase log-probability: vLLM − transformers"].append(abs(whole - mine))
                out[f"values:phrase:{case.id}:{prefix[-40:]}:{continuation}"].append(whole)
            known = {token: value for token, value in firsts_generated.items() if value is not None}
            if len(known) >= 2 and len(known) == len(firsts_echo):  # relations told apart by their first word
                ranked_echo = sorted(firsts_echo, key=lambda token: -firsts_echo[token])
                ranked_generated = sorted(known, key=lambda token: -known[token])
                out["ranking by first token: same order"].append(float(ranked_echo == ranked_generated))
                out["ranking by first token: gap of the two best"].append(
                    firsts_echo[ranked_echo[0]] - firsts_echo[ranked_echo[1]])
    return out


def summary(values: list[float]) -> str:
    ordered = sorted(value for value in values if not math.isnan(value))
    if not ordered:
        return "none"
    p95 = ordered[min(len(ordered) - 1, math.ceil(0.95 * len(ordered)) - 1)]
    return f"n {len(ordered):4d}  median {statistics.median(ordered):.4f}  p95 {p95:.4f}  max {ordered[-1]:.4f}"


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("dataset", type=Path, help="a JSON Lines data set (a folder: its dev.jsonl)")
    parser.add_argument("--rows", type=int, default=40, help="distinct texts measured (40)")
    parser.add_argument("--model", default="smollm2-135m", help="the catalogue model served and loaded")
    parser.add_argument("--dtypes", default="float32,bfloat16")
    parser.add_argument("--port", type=int, default=8731)
    parser.add_argument("--json", type=Path, help="also write every figure here")
    args = parser.parse_args()
    dataset = args.dataset / "dev.jsonl" if args.dataset.is_dir() else args.dataset
    path = modelstore.resolve(args.model, modelstore.default_cache(), transformers=True)
    flags = set(next((line.split(":", 1)[1].split() for line in Path("/proc/cpuinfo").read_text().splitlines()
                      if line.startswith("flags")), []))
    print(f"CPU: {sorted(flags & {'avx2', 'avx512f', 'avx512_bf16', 'amx_bf16', 'amx_tile'})}; model {args.model}")
    by_dtype: dict[str, dict[str, list[float]]] = {}
    found: list[Case] = []
    for dtype in args.dtypes.split(","):
        local = TransformersBackend(path, dtype=dtype, threads=2)
        found = found or cases(dataset, args.rows, local)
        started = time.monotonic()
        with served(args.model, dtype, args.port, Path(tempfile.gettempdir()) / f"refbot-arith-{dtype}.log") as url:
            by_dtype[dtype] = measure(url, args.model, local, found)
        print(f"\n== {dtype} ({len(found)} texts, {time.monotonic() - started:.0f} s)")
        for name, values in by_dtype[dtype].items():
            if not name.startswith("values:"):
                print(f"  {name:45} {summary(values)}")
    if {"float32", "bfloat16"} <= set(by_dtype):
        wide, narrow = by_dtype["float32"], by_dtype["bfloat16"]
        print("\n== bfloat16 − float32 (vLLM, the same numbers)")
        for kind, name in (("first", "first token's log-probability"), ("phrase", "phrase log-probability")):
            shifts = [abs(narrow[key][0] - wide[key][0]) for key in wide
                      if key.startswith(f"values:{kind}:") and key in narrow]
            print(f"  {name:45} {summary(shifts)}")
        for kind in ("P(yes)", "support"):
            moved = [abs(a - b) for a, b in zip(narrow[f"values:{kind}"], wide[f"values:{kind}"])]
            print(f"  {kind:45} {summary(moved)}")
    if args.json:
        args.json.write_text(json.dumps(by_dtype, indent=1))
    return 0


if __name__ == "__main__":
    sys.exit(main())
