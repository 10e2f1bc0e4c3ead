#!/usr/bin/env python3
"""The embedded judge's backends side by side on this CPU: transformers (bf16, fp32) and llama.cpp (xllamacpp's
server with the Q4_K_M GGUF, through the OpenAI-compatible backend).

    benchmarks/backends.py [DATASET.jsonl] [--rows 12] [--threads 2] [--backends transformers-bf16,...]

For each backend, in a process of its own: the load time, the `refbot` template's judgement on the first
``--rows`` rows of a labelled data set (WTR's dev split by default: real paragraphs; or the demo world's
pages when no path is given) — seconds per judgement and prompt tokens per second — then a justification
generated for three of them (generated tokens per second), and the peak memory (RSS; the server's for
llama.cpp). The scores of each backend are printed beside the first one's, so a faster backend that judges
differently shows it. Quality on whole dev sets is `refbot eval … --judge-dtype float32` or
`--judge openai --judge-url …` (see benchmarks/README.md).
"""

from __future__ import annotations

import argparse
import json
import os
import resource
import socket
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path[:0] = [str(ROOT)]

BACKENDS = ("transformers-bf16", "transformers-fp32", "llama.cpp-q4km")


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("dataset", nargs="?", type=Path)
    parser.add_argument("--rows", type=int, default=12)
    parser.add_argument("--threads", type=int, default=2)
    parser.add_argument("--backends", default=",".join(BACKENDS))
    parser.add_argument("--one", help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.one:
        print(json.dumps(measure(args.one, args.dataset, args.rows, args.threads)))
        return 0
    results = {}
    for name in args.backends.split(","):
        command = [sys.executable, __file__, "--one", name, "--rows", str(args.rows), "--threads", str(args.threads)]
        done = subprocess.run(command + ([str(args.dataset)] if args.dataset else []), capture_output=True,
                              text=True, timeout=3600)
        if done.returncode != 0:
            print(f"{name}: failed\n{done.stderr[-2000:]}")
            continue
        results[name] = json.loads(done.stdout.strip().splitlines()[-1])
    first = next(iter(results.values()), None)
    print(f"{'backend':<20} {'load s':>7} {'s/judgement':>12} {'prompt tok/s':>13} {'gen tok/s':>10} {'peak MB':>8} "
          f"{'mean |Δ support|':>17} {'same verdicts':>14}")
    for name, result in results.items():
        deltas = [abs(a - b) for a, b in zip(result["supports"], first["supports"])]
        same = sum((a >= 0.5) == (b >= 0.5) for a, b in zip(result["supports"], first["supports"]))
        print(f"{name:<20} {result['load_s']:>7.1f} {result['per_judgement_s']:>12.2f} "
              f"{result['prompt_tokens_per_s']:>13.0f} {result['generated_tokens_per_s']:>10.1f} "
              f"{result['peak_mb']:>8.0f} {sum(deltas) / max(len(deltas), 1):>17.3f} "
              f"{same:>8} of {len(deltas)}")
    return 0


def measure(name: str, dataset: Path | None, rows: int, threads: int) -> dict:
    from bot.judge.engine import Judge
    from bot.judge.prompts import template_by_id

    cases = _cases(dataset, rows)
    server = None
    started = time.monotonic()
    if name.startswith("transformers"):
        from bot import modelstore
        from bot.judge.transformers_backend import TransformersBackend

        path = modelstore.resolve("qwen2.5-coder-1.5b", modelstore.default_cache(), transformers=True)
        backend = TransformersBackend(path, threads=threads, dtype="float32" if name.endswith("fp32") else "bfloat16")
    else:
        from bot.judge.openai_backend import OpenAIBackend, make_session

        port = _free_port()
        server = subprocess.Popen([sys.executable, str(ROOT / "scripts" / "llama_server.py"), "qwen2.5-coder-1.5b",
                                   str(port), "--parallel", "1", "--ctx", "4096", "--threads", str(threads)],
                                  stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True)
        assert server.stdout is not None and server.stdout.readline().strip() == "ready"
        backend = OpenAIBackend(make_session(), f"http://127.0.0.1:{port}/v1", context_tokens=4096)
    load_s = time.monotonic() - started
    template = template_by_id("refbot")
    judge = Judge(backend, template, justify=False)
    judge.judge(*cases[0])  # warm-up: first-call allocations are not the steady state
    supports, seconds, tokens = [], 0.0, 0
    for claim, snippet in cases:
        judgement = judge.judge(claim, snippet)
        supports.append(judgement.support)
        seconds += judgement.latency_s
        tokens += judgement.prompt_tokens
    generated, generating = 0, 0.0
    for claim, snippet in cases[:3]:
        explained = judge.explain(claim, snippet)
        generated += explained.completion_tokens
        generating += explained.seconds
    peak_kb = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
    if server is not None:
        peak_kb = max(peak_kb, _server_peak_kb(server.pid))
        server.terminate()
        server.wait(timeout=30)
    return {"load_s": load_s, "per_judgement_s": seconds / len(cases), "prompt_tokens_per_s": tokens / seconds,
            "generated_tokens_per_s": generated / generating if generating else 0.0, "peak_mb": peak_kb / 1024,
            "supports": supports}


def _cases(dataset: Path | None, rows: int) -> list:
    from bot.evaluation.dataset import read_dataset

    if dataset is not None:
        return [(row.claim, row.text[:1500]) for row in read_dataset(dataset)[:rows]]
    from bot.datamodel import Claim
    from bot.documents.paragraphs import extract

    pages = sorted((ROOT / "bot" / "demo" / "data" / "sites").rglob("*.html"))
    paragraphs = [p.text for page in pages for p in extract(page.read_bytes(), "text/html", page.as_uri()).paragraphs]
    return [(Claim("Marta Novotná", "award received", "Purkyně Prize for Chemistry"), text)
            for text in paragraphs[:rows]]


def _free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


def _server_peak_kb(pid: int) -> int:
    try:
        for line in Path(f"/proc/{pid}/status").read_text().splitlines():
            if line.startswith("VmHWM:"):
                return int(line.split()[1])
    except OSError:
        pass
    return 0


if __name__ == "__main__":
    os.environ.setdefault("TOKENIZERS_PARALLELISM", "false")
    sys.exit(main())
