#!/usr/bin/env python3
"""Run llama.cpp's OpenAI-compatible server (xllamacpp) on 127.0.0.1 until killed.

    scripts/llama_server.py MODEL.gguf PORT [--parallel N] [--ctx TOKENS] [--threads N]

Prints ``ready`` once the server answers. The tests start it as a child process (so they can kill it
mid-run); `refbot eval --judge openai --judge-url http://127.0.0.1:PORT/v1` talks to it like to vLLM.
"""

from __future__ import annotations

import argparse
import signal
import sys
import time
from pathlib import Path

import requests


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("model", help="a GGUF file or a catalogue name (see `refbot models list`)")
    parser.add_argument("port", type=int)
    parser.add_argument("--parallel", type=int, default=2)
    parser.add_argument("--ctx", type=int, default=4096, help="total context, shared by the parallel slots")
    parser.add_argument("--threads", type=int, default=2)
    args = parser.parse_args()

    import xllamacpp

    sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
    from bot import modelstore

    params = xllamacpp.CommonParams()
    params.model.path = str(modelstore.resolve(args.model, modelstore.default_cache()))
    params.hostnames = ["127.0.0.1"]
    params.port = args.port
    params.n_ctx = args.ctx
    params.n_parallel = args.parallel
    params.cpuparams.n_threads = args.threads
    params.cpuparams_batch.n_threads = args.threads
    server = xllamacpp.Server(params)  # noqa: F841  (serves while referenced)
    deadline = time.monotonic() + 60
    while time.monotonic() < deadline:
        try:
            if requests.get(f"http://127.0.0.1:{args.port}/health", timeout=1).ok:
                break
        except requests.RequestException:
            time.sleep(0.1)
    print("ready", flush=True)
    signal.sigwait({signal.SIGTERM, signal.SIGINT})
    sys.exit(0)


if __name__ == "__main__":
    main()
