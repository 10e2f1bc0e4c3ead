#!/usr/bin/env python3
"""The GPU path's concurrency, shown with llama.cpp's server: how many of the judge's requests are in flight.

    benchmarks/inflight.py [--model qwen2.5-coder-1.5b] [--parallel 4] [--in-flight 1,4] [--workers 2]

Starts llama.cpp's OpenAI-compatible server (xllamacpp, ``scripts/llama_server.py``) with ``--parallel`` slots,
then checks the demo world's statements with the `openai` backend, once per ``--in-flight`` setting (the judge's
``in_flight``: requests one refbot process keeps at the server), ``--workers`` statements side by side. While
it runs, the server's ``/slots`` is read every 20 ms, and the benchmark prints how many slots were busy: the
most at once, the time-weighted mean, and the share of the time with two or more busy — with the wall time per
statement and whether every statement still ends as expected. vLLM batches the requests in flight the same
way (and caches their shared prefixes); on this 2-core CPU the slots share the cores, so the point is the
concurrency, not the speed.
"""

from __future__ import annotations

import argparse
import socket
import subprocess
import sys
import threading
import time
from pathlib import Path

import requests

ROOT = Path(__file__).resolve().parent.parent
sys.path[:0] = [str(ROOT)]

from bot.checking import plan_from  # noqa: E402
from bot.checking.batch import check_many  # noqa: E402
from bot.checking.items import read_item  # noqa: E402
from bot.demo.world import DemoWorld  # noqa: E402
from bot.options import load_options  # noqa: E402
from bot.selection import selection_rules  # noqa: E402
from bot.selection.unsourced import unsourced_statements  # noqa: E402
from bot.wiring import Wiring  # noqa: E402


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--model", default="qwen2.5-coder-1.5b", help="a GGUF file or a catalogue name")
    parser.add_argument("--parallel", type=int, default=4, help="the server's slots")
    parser.add_argument("--in-flight", default="1,4", help="the judge's in_flight settings to compare")
    parser.add_argument("--workers", type=int, default=2, help="statements checked side by side")
    parser.add_argument("--threads", type=int, default=2, help="the server's CPU threads")
    args = parser.parse_args()

    port = _free_port()
    server = subprocess.Popen([sys.executable, str(ROOT / "scripts" / "llama_server.py"), args.model, str(port),
                               "--parallel", str(args.parallel), "--ctx", str(4096 * args.parallel),
                               "--threads", str(args.threads)], stdout=subprocess.PIPE, stderr=subprocess.DEVNULL,
                              text=True)
    try:
        line = "-"
        while server.stdout is not None and line and "ready" not in line:
            line = server.stdout.readline()
        if "ready" not in line:
            print("the llama.cpp server did not start", file=sys.stderr)
            return 1
        url = f"http://127.0.0.1:{port}"
        print(f"llama.cpp server: {args.model}, {args.parallel} slots, {args.threads} threads; demo world, "
              f"{args.workers} statements side by side")
        print(f"{'in flight':>9} {'statements':>10} {'judgements':>10} {'s/stmt':>7} {'busy slots: most':>17} "
              f"{'mean':>5} {'≥2 busy':>8}  as expected")
        for in_flight in (int(value) for value in args.in_flight.split(",")):
            checks, wall, busy, expected = run(url, in_flight, args.workers)
            count = len(checks) or 1
            as_expected = sum(check.outcome.value == expected.get(check.statement.guid, {}).get("expected")
                              for check in checks)
            print(f"{in_flight:>9} {len(checks):>10} {sum(c.asked for c in checks):>10} {wall / count:>7.1f} "
                  f"{busy.most:>17} {busy.mean:>5.2f} {busy.share_two:>8.0%}  {as_expected} of {len(checks)}")
    finally:
        server.terminate()
        server.wait(timeout=30)
    return 0


def run(url: str, in_flight: int, workers: int):
    with DemoWorld() as world:
        expected = world.expected()
        items = sorted({case["item"] for case in expected.values()})
        options = load_options(ROOT / "tests" / "data" / "documents" / "empty.ini", environ={}, overrides={
            **world.options(), "judge_backend": "openai", "judge_url": f"{url}/v1", "judge_in_flight": in_flight,
            "check_workers": workers, "justify": False, "fetch_cache_days": 0})
        options = options.replaced(check_strategy="ranked")
        parts = Wiring(options)
        statements = [s for selection in unsourced_statements(parts.require_endpoint(), items,
                                                              selection_rules(options))
                      for s in selection.statements]
        services, tools = parts.services, parts.tools
        contexts = {item: read_item(services, options.wikidata.api_url, item, "", wiki=options.wikipedia.wiki,
                                    article_url=options.wikipedia.article_url,
                                    chunk_chars=options.wikipedia.chunk_chars) for item in items}
        busy = Busy(url)
        busy.start()
        started = time.monotonic()
        try:
            plan = plan_from(options.check, options.search, options.fetch.workers)
            checks = [check for _, check in check_many(((contexts[s.item], s) for s in statements), tools, plan,
                                                       workers=workers)]
        finally:
            wall = time.monotonic() - started
            busy.stop()
        return checks, wall, busy, expected


class Busy(threading.Thread):
    """Reads the server's /slots every ``every`` seconds and counts the slots processing a request."""

    def __init__(self, url: str, every: float = 0.02) -> None:
        super().__init__(daemon=True)
        self.url, self.every = url, every
        self.samples: list[int] = []
        self._done = threading.Event()

    def run(self) -> None:
        with requests.Session() as session:
            while not self._done.is_set():
                try:
                    slots = session.get(f"{self.url}/slots", timeout=5).json()
                    self.samples.append(sum(bool(slot.get("is_processing")) for slot in slots))
                except (requests.RequestException, ValueError, AttributeError):
                    pass
                self._done.wait(self.every)

    def stop(self) -> None:
        self._done.set()
        self.join()

    @property
    def most(self) -> int:
        return max(self.samples, default=0)

    @property
    def mean(self) -> float:
        return sum(self.samples) / len(self.samples) if self.samples else 0.0

    @property
    def share_two(self) -> float:
        return sum(busy >= 2 for busy in self.samples) / len(self.samples) if self.samples else 0.0


def _free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return int(probe.getsockname()[1])


if __name__ == "__main__":
    sys.exit(main())
