#!/usr/bin/env python3
"""Which order of the judge's prompt a server's prefix cache serves better: the paragraph first (refbot's: the
yes/no question and the relation comparisons about one paragraph share system prompt + paragraph) or the statement
first (system prompt + claim + question, then the paragraph: the yes/no questions about one statement share that).

    benchmarks/prefix_order.py DEV_DIR --upstream URL [--limit N] [--model NAME] [--requests FILE]
                               [--blocks 16,32] [--cache-tokens N]

1. The workload: `benchmarks/real_pages.py DEV_DIR --limit N --judge openai` (the real `refbot check` of each
   statement, its real page and two other statements' pages served on loopback) through a recording proxy on
   127.0.0.1 in front of ``--upstream`` (an OpenAI-compatible server of the judge model: vLLM, or llama.cpp's
   server), with refbot's ``[judge] echo`` (``--no-echo``: false). Every request goes to
   ``--requests`` (JSON Lines; given an existing file, the workload is not run again). Where the upstream is vLLM,
   its own prefix-cache counters (/metrics) over the workload are printed beside the simulation, to check it.
2. Both orders replayed through a simulated prefix cache as vLLM keeps it: the prompt cut in blocks of ``--blocks``
   tokens (vLLM's CPU build: 32, its GPU default: 16), a request served the longest run of leading blocks an
   earlier request computed (never its last token) — except a request for prompt log-probabilities (``echo``),
   which vLLM computes in full and only writes to the cache —, least recently used blocks dropped past
   ``--cache-tokens``
   (refbot serve-judge's 2 GiB CPU KV cache holds ~37,000 tokens of Qwen2.5-Coder-1.5B in float32). The
   statement-first order rewrites each yes/no question (and the retry and justification requests built on it):
   ``Claim: …`` and the question, then ``Text: "…"``; the summaries the relation comparison continues keep the
   paragraph first in both orders (a summary that read the claim first would be a summary of the claim).

Printed per block size: requests by kind, prompt tokens, and the share of prompt tokens the cache serves in each
order, of all and of those looked up in the cache (what vLLM's counters measure), and the tokens the model reads.
"""

from __future__ import annotations

import argparse
import json
import subprocess
import sys
import tempfile
import threading
from collections import OrderedDict
from collections.abc import Iterable
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any

import requests

ROOT = Path(__file__).resolve().parent.parent
sys.path[:0] = [str(ROOT)]

QUESTION = "Does the text state this claim? Answer yes or no."
CLAIM_AFTER_TEXT = '"\n\nClaim: '


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("dev_dir", type=Path)
    parser.add_argument("--upstream", help="the judge model's OpenAI-compatible server, e.g. http://127.0.0.1:8000/v1")
    parser.add_argument("--limit", type=int, default=20, help="statements of DEV_DIR checked (20)")
    parser.add_argument("--model", default="qwen2.5-coder-1.5b",
                        help="the served model (its name on the server and its tokenizer in refbot's model cache)")
    parser.add_argument("--requests", type=Path, default=Path(tempfile.gettempdir()) / "refbot-prefix-order.jsonl")
    parser.add_argument("--blocks", default="16,32")
    parser.add_argument("--cache-tokens", type=int, default=37_000)
    parser.add_argument("--no-echo", action="store_true",
                        help="the workload with [judge] echo = false (relations by the first token)")
    args = parser.parse_args()

    measured = None
    if not (args.requests.is_file() and args.requests.stat().st_size):
        if not args.upstream:
            parser.error(f"{args.requests} holds no requests yet: give --upstream to record them")
        measured = record(args)
    recorded = [json.loads(line) for line in args.requests.read_text(encoding="utf-8").splitlines() if line.strip()]
    tokenizer = _tokenizer(args.model)
    kinds: dict[str, int] = {}
    sent, first = [], []
    for request in recorded:
        kind = request_kind(request)
        kinds[kind] = kinds.get(kind, 0) + 1
        reads = not (request["body"].get("echo") and request["body"].get("logprobs") is not None)
        sent.append((tokens(tokenizer, request), reads))
        first.append((tokens(tokenizer, statement_first(request)), reads))
    print(f"{len(recorded)} requests: " + ", ".join(f"{kind} {count}" for kind, count in sorted(kinds.items())))
    print(f"prompt tokens: paragraph first {sum(len(ids) for ids, _ in sent):,}, statement first "
          f"{sum(len(ids) for ids, _ in first):,}; requests past the cache (echo) {sum(not r for _, r in sent)}")
    if measured is not None:
        print(f"vLLM's own counters over the workload (paragraph first): {measured[0]:,.0f} of {measured[1]:,.0f} "
              f"prompt tokens from its cache ({measured[0] / max(measured[1], 1):.1%})")
    print(f"{'block':>5} {'order':<16} {'from the cache':>15} {'of those looked up':>19} {'tokens read':>12}")
    for block in (int(b) for b in args.blocks.split(",")):
        for name, stream in (("paragraph first", sent), ("statement first", first)):
            hits = simulate(stream, block, args.cache_tokens)
            total = sum(len(ids) for ids, _ in stream)
            looked_up = sum(len(ids) for ids, reads in stream if reads)  # vLLM's prefix_cache_queries
            print(f"{block:>5} {name:<16} {hits / total:>15.1%} {hits / max(looked_up, 1):>19.1%} "
                  f"{total - hits:>12,}")
    return 0


def record(args: argparse.Namespace) -> tuple[float, float] | None:
    """Run the workload through a recording proxy; vLLM's (hits, queries) over it, or None (not vLLM)."""
    from judge_throughput import prefix_cache  # benchmarks/ is this script's own folder

    upstream = args.upstream.rstrip("/")
    root = upstream[: -len("/v1")] if upstream.endswith("/v1") else upstream
    lock = threading.Lock()
    out = args.requests.open("w", encoding="utf-8")

    class Proxy(BaseHTTPRequestHandler):
        def log_message(self, *_: Any) -> None:
            pass

        def _forward(self, method: str) -> None:
            body = self.rfile.read(int(self.headers.get("Content-Length") or 0))
            path = self.path[len("/v1"):] if self.path.startswith("/v1") else self.path
            if method == "POST" and path in ("/chat/completions", "/completions"):
                with lock:
                    out.write(json.dumps({"path": path, "body": json.loads(body)}) + "\n")
                    out.flush()
            # the OpenAI routes under /v1; vLLM's /tokenize and /detokenize (refbot renders chat prompts with them)
            # and llama.cpp's /apply-template at the server's root
            target = (upstream if self.path.startswith("/v1") else root) + path
            answer = requests.request(method, target, data=body or None, timeout=600,
                                      headers={"Content-Type": self.headers.get("Content-Type", "application/json")})
            self.send_response(answer.status_code)
            self.send_header("Content-Type", answer.headers.get("Content-Type", "application/json"))
            self.send_header("Content-Length", str(len(answer.content)))
            self.end_headers()
            self.wfile.write(answer.content)

        def do_GET(self) -> None:
            self._forward("GET")

        def do_POST(self) -> None:
            self._forward("POST")

    server = ThreadingHTTPServer(("127.0.0.1", 0), Proxy)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    before = prefix_cache([upstream])
    with tempfile.TemporaryDirectory() as scratch:
        subprocess.run([sys.executable, str(ROOT / "benchmarks" / "real_pages.py"), str(args.dev_dir),
                        "--limit", str(args.limit), "--variant", "true", "--judge", "openai",
                        "--judge-url", f"http://127.0.0.1:{server.server_address[1]}/v1",
                        "--judge-model", args.model, "--out", str(Path(scratch) / "rows.jsonl"),
                        *(["--no-echo"] if args.no_echo else [])], check=True)
    after = prefix_cache([upstream])
    server.shutdown()
    out.close()
    if before is None or after is None:
        return None
    return after[0] - before[0], after[1] - before[1]


def request_kind(request: dict) -> str:
    if request["path"] == "/completions":
        return "relation comparison"
    user = [m["content"] for m in request["body"]["messages"] if m["role"] == "user"]
    if user and CLAIM_AFTER_TEXT in user[0]:
        return "yes/no" if len(request["body"]["messages"]) <= 2 else "yes/no follow-up"
    return "other"


def statement_first(request: dict) -> dict:
    """The request with each yes/no question about a paragraph put before it; anything else as it was."""
    if request["path"] != "/chat/completions":
        return request
    messages = []
    for message in request["body"]["messages"]:
        content = message["content"]
        if message["role"] == "user" and content.startswith('Text: "') and CLAIM_AFTER_TEXT in content:
            # 'Text: "…"\n\nClaim: …\n\nDoes the text state this claim? …' → the claim and question, then the text
            text, _, claim_and_question = content[len('Text: "'):].rpartition(CLAIM_AFTER_TEXT)
            asked = claim_and_question.replace(QUESTION, QUESTION.replace("the text", "the text below"))
            content = f'Claim: {asked}\n\nText: "{text}"'
        messages.append({**message, "content": content})
    return {**request, "body": {**request["body"], "messages": messages}}


def tokens(tokenizer: Any, request: dict) -> list[int]:
    body = request["body"]
    if request["path"] == "/completions":
        return list(tokenizer(body["prompt"], add_special_tokens=body.get("add_special_tokens", True))["input_ids"])
    return list(tokenizer.apply_chat_template(body["messages"], add_generation_prompt=True, tokenize=True,
                                              return_dict=True)["input_ids"])


def simulate(stream: Iterable[tuple[list[int], bool]], block: int, capacity_tokens: int) -> int:
    """Prompt tokens served from a prefix cache of ``block``-token blocks, least recently used dropped first; each
    request with whether it may read the cache (it writes it in any case)."""
    cache: OrderedDict[int, None] = OrderedDict()
    capacity = max(1, capacity_tokens // block)
    served = 0
    for ids, reads in stream:
        chain, keys = 0, []
        for start in range(0, len(ids) - len(ids) % block, block):
            chain = hash((chain, tuple(ids[start:start + block])))
            keys.append(chain)
        usable = (len(ids) - 1) // block  # the last token is always computed
        found = 0
        while reads and found < min(usable, len(keys)) and keys[found] in cache:
            found += 1
        served += found * block
        for key in keys:
            cache[key] = None
            cache.move_to_end(key)
        while len(cache) > capacity:
            cache.popitem(last=False)
    return served


def _tokenizer(model: str) -> Any:
    from transformers import AutoTokenizer

    from bot import modelstore

    return AutoTokenizer.from_pretrained(str(modelstore.resolve(model, modelstore.default_cache(),
                                                                transformers=True)))


if __name__ == "__main__":
    sys.exit(main())
