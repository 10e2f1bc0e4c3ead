#!/usr/bin/env python3
"""The judge's throughput against any OpenAI-compatible endpoint: judgements a second, and the statements an hour
that makes, with 1 to 64 requests in flight.

    benchmarks/judge_throughput.py [--url URL [URL …] | --transformers [--dtype float32]] [--model NAME]
                                   [--in-flight 1,2,4,8,16,32,64] [--judgements 64] [--per-statement 3.0]
                                   [--echo | --no-echo]

With ``--url`` it measures the servers given (one vLLM endpoint, several, or `vllm serve --data-parallel-size N`);
without, it starts llama.cpp's server (``scripts/llama_server.py``) with ``--model`` (the small test model) and
as many slots as the largest in-flight setting, up to ``--parallel``; with ``--transformers``, the embedded judge in
this process (``--model``, default the judge model; ``--dtype``; ``--threads``). Each judgement is refbot's own
(``bot.judge.engine.Judge.judge``: the yes/no question and, for a property with contrasts, the relation comparison)
on a distinct claim and paragraph (invented people and prizes, so that no two share more than the prompt's start);
``--judgements`` of them per setting, ``in_flight`` at once (threads, as a worker's checks send them). Statements an
hour = judgements a second × 3600 / ``--per-statement`` (judgements a statement needs: 3 is the soak's mean).
Against vLLM it also prints the share of prompt tokens its prefix cache served in each setting (its /metrics
counters ``vllm:prefix_cache_hits_total`` / ``…_queries_total``, summed over the servers).
"""

from __future__ import annotations

import argparse
import socket
import subprocess
import sys
import time
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import requests

ROOT = Path(__file__).resolve().parent.parent
sys.path[:0] = [str(ROOT)]

from bot.datamodel import Claim  # noqa: E402
from bot.options import Options  # noqa: E402
from bot.wiring import Wiring  # noqa: E402

PRIZES = ["Purkyně Prize", "Brno Innovation Award", "Tispra Medal", "Gorbelha Prize", "Martel Fellowship"]
RELATIONS = ["received", "was nominated for", "was a finalist for", "won", "declined"]


def pairs(count: int, start: int = 0) -> list[tuple[Claim, str]]:
    """``count`` distinct claims with their paragraphs, from the ``start``-th (each setting gets its own: a server's
    cache of an earlier setting's prompts would flatter the later one)."""
    found = []
    for number in range(start, start + count):
        person = f"Ada Novak-{number:04d}"
        prize = PRIZES[number % len(PRIZES)]
        verb = RELATIONS[(number // len(PRIZES)) % len(RELATIONS)]
        text = (f"{person}, a chemist born in {1900 + number % 90}, {verb} the {prize} in {1950 + number % 60} for "
                f"work on catalysis; the jury cited her {number % 7 + 2} papers on surface reactions.")
        found.append((Claim(person, "award received", prize), text))
    return found


def prefix_cache(urls: list[str]) -> tuple[float, float] | None:
    """vLLM's prefix-cache counters (tokens hit, tokens queried) summed over ``urls``; None where a server has no
    such metrics (llama.cpp)."""
    hits = queries = 0.0
    for url in urls:
        root = url[: -len("/v1")] if url.endswith("/v1") else url
        try:
            text = requests.get(f"{root}/metrics", timeout=10).text
        except requests.RequestException:
            return None
        counters = {name: 0.0 for name in ("vllm:prefix_cache_hits_total", "vllm:prefix_cache_queries_total")}
        for line in text.splitlines():
            name = line.split("{", 1)[0].split(" ", 1)[0]
            if name in counters:
                counters[name] += float(line.rsplit(" ", 1)[1])
        if not any(f"{name}{{" in text or f"{name} " in text for name in counters):
            return None
        hits += counters["vllm:prefix_cache_hits_total"]
        queries += counters["vllm:prefix_cache_queries_total"]
    return hits, queries


def start_server(model: str, slots: int, threads: int) -> tuple[subprocess.Popen, str]:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    server = subprocess.Popen([sys.executable, str(ROOT / "scripts" / "llama_server.py"), model, str(port),
                               "--parallel", str(slots), "--ctx", str(4096 * slots), "--threads", str(threads)],
                              stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True)
    line = "-"
    while server.stdout is not None and line and "ready" not in line:
        line = server.stdout.readline()
    if "ready" not in line:
        server.kill()
        raise SystemExit("judge_throughput: the llama.cpp server did not start")
    return server, f"http://127.0.0.1:{port}/v1"


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--url", nargs="+", help="OpenAI-compatible servers of one model (default: start llama.cpp)")
    parser.add_argument("--model", default="", help="the served model's name; without --url: a GGUF or catalogue "
                                                    "name to serve (smollm2-135m)")
    parser.add_argument("--in-flight", default="1,2,4,8,16,32,64")
    parser.add_argument("--judgements", type=int, default=64)
    parser.add_argument("--per-statement", type=float, default=3.0)
    parser.add_argument("--parallel", type=int, default=8, help="llama.cpp's slots at most (without --url)")
    parser.add_argument("--threads", type=int, default=2, help="llama.cpp's CPU threads (without --url)")
    parser.add_argument("--transformers", action="store_true", help="the embedded judge, in this process")
    parser.add_argument("--dtype", choices=("bfloat16", "float32"), default="bfloat16",
                        help="the embedded judge's weights (with --transformers)")
    parser.add_argument("--echo", action=argparse.BooleanOptionalAction, default=True,
                        help="[judge] echo: relations by echoed prompt log-probabilities (default) or first tokens")
    args = parser.parse_args()
    settings = [int(n) for n in args.in_flight.split(",")]

    server = None
    urls = args.url or []
    if not urls and not args.transformers:
        server, url = start_server(args.model or "smollm2-135m", min(max(settings), args.parallel), args.threads)
        urls = [url]
    try:
        if args.transformers:
            options = Options.flat(judge_backend="transformers", judge_model=args.model or "qwen2.5-coder-1.5b",
                                   judge_dtype=args.dtype, threads=args.threads, judge_in_flight=1)
        else:
            options = Options.flat(judge_backend="openai", judge_url=" ".join(urls), judge_in_flight=1,
                                   judge_echo=args.echo, **({"judge_model": args.model} if args.url and args.model
                                                            else {}))
        rows = []
        for index, in_flight in enumerate(settings):
            work = pairs(args.judgements + 1, index * (args.judgements + 1))
            parts = Wiring(options.replaced(judge_in_flight=max(1, in_flight // max(1, len(urls)))))
            judge = parts.judge
            judge.judge(*work[0])  # the system prompt cached, the connection open: not what is measured
            cached_before = prefix_cache(urls)
            started = time.monotonic()
            with ThreadPoolExecutor(max_workers=in_flight) as pool:
                judgements = list(pool.map(lambda pair: judge.judge(*pair), work[1:]))
            wall = time.monotonic() - started
            rate = len(judgements) / wall
            asked = sum(1 for j in judgements if j.prompt_tokens > 0)
            cached_after = prefix_cache(urls)
            hit_rate = None
            if cached_before is not None and cached_after is not None and cached_after[1] > cached_before[1]:
                hit_rate = (cached_after[0] - cached_before[0]) / (cached_after[1] - cached_before[1])
            rows.append((in_flight, rate, wall, asked, hit_rate))
            shown = "" if hit_rate is None else f", prefix cache served {hit_rate:.0%} of the prompt tokens"
            print(f"  {in_flight:>2} in flight: {len(judgements)} judgements ({asked} asked) in {wall:.1f} s = "
                  f"{rate:.2f}/s{shown}", flush=True)
        model = parts.judge.model_id
    finally:
        if server is not None:
            server.kill()
            server.wait()
    where = ", ".join(urls) or f"this process ({args.dtype}, {args.threads} threads)"
    print(f"\njudge {model} at {where}; echo {'on' if args.echo else 'off'}; "
          f"{args.per_statement:g} judgements a statement\n")
    print("| in flight | judgements/s | statements/h | prefix cache hit rate |\n| --- | --- | --- | --- |")
    for in_flight, rate, _, _, hit_rate in rows:
        print(f"| {in_flight} | {rate:.2f} | {rate * 3600 / args.per_statement:,.0f} | "
              f"{'–' if hit_rate is None else f'{hit_rate:.0%}'} |")
    return 0


if __name__ == "__main__":
    sys.exit(main())
