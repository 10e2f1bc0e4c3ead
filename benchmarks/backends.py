#!/usr/bin/env python3
"""The judge model through each backend, side by side on this machine: transformers in the process (bf16, fp32),
llama.cpp (xllamacpp's server with the Q4_K_M GGUF, and with the weights the others compute: the Q4_K_M's tensors
dequantised and rounded to bf16 as the transformers copy was made, written once as a float32 GGUF) and vLLM
(`refbot serve-judge`'s server from `.venv-vllm`, its weights' type chosen as serve-judge chooses it: bf16 where the
CPU multiplies it natively, else float32), the last two through the `openai` backend, vLLM both ways it scores
relations: by echoed prompt log-probabilities (`[judge] echo = true`) and by the first token (`echo = false`, which
its prefix cache serves).

    benchmarks/backends.py [DATASET …] [--rows N] [--backends transformers-bf16,…] [--out DIR] [--threads 2]

DATASET: `refbot eval`'s data (a JSON Lines file or a folder with dev.jsonl: ../shared/data/wtr-dev,
../shared/data/trex-verify-hard-dev); without one, the demo world's paragraphs. Every row is judged as `refbot
eval` judges it (the `refbot` template, the shipped calibration of Qwen2.5-Coder-1.5B, its threshold), by each
backend in a process of its own. Each backend's judgements go to DIR/BACKEND.jsonl as they are made, and a row
already there is not judged again (a run that stops goes on where it was). Printed:

- per backend: the load time, seconds per judgement, prompt tokens read per second (less those a prefix cache
  served), the peak memory (RSS; the server's for llama.cpp and vLLM, its engine processes included), and for
  vLLM the share of prompt tokens its prefix cache served (from its /metrics);
- per pair of backends and data set: the rows judged by both, how many got the same verdict (target 98 %), and the
  largest difference in support, with its row.
"""

from __future__ import annotations

import argparse
import itertools
import json
import os
import resource
import socket
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path[:0] = [str(ROOT)]

MODEL = "qwen2.5-coder-1.5b"
BACKENDS = ("transformers-bf16", "transformers-fp32", "llama.cpp-q4km", "llama.cpp-f32", "vllm", "vllm-first-token")
DEFAULT = ("transformers-fp32", "llama.cpp-q4km", "vllm", "vllm-first-token")


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("datasets", nargs="*", type=Path)
    parser.add_argument("--rows", type=int, default=0, help="the first N rows of each data set (default: all)")
    parser.add_argument("--threads", type=int, default=2)
    parser.add_argument("--backends", default=",".join(DEFAULT), help=f"any of {', '.join(BACKENDS)}")
    parser.add_argument("--out", type=Path, default=Path(tempfile.gettempdir()) / "refbot-backends",
                        help="where each backend's judgements go (kept between runs)")
    parser.add_argument("--one", help=argparse.SUPPRESS)
    args = parser.parse_args()
    names = [name.strip() for name in args.backends.split(",") if name.strip()]
    unknown = [name for name in names if name not in BACKENDS]
    if unknown:
        parser.error(f"unknown backend {', '.join(unknown)}: choose from {', '.join(BACKENDS)}")
    args.out.mkdir(parents=True, exist_ok=True)
    cases = _cases(args.datasets, args.rows)
    if args.one:
        print(json.dumps(measure(args.one, cases, args.out / f"{args.one}.jsonl", args.threads)))
        return 0
    speeds = {}
    for name in names:
        command = [sys.executable, __file__, "--one", name, "--rows", str(args.rows), "--threads", str(args.threads),
                   "--out", str(args.out), *map(str, args.datasets)]
        done = subprocess.run(command, stdout=subprocess.PIPE, text=True, timeout=6 * 3600)
        if done.returncode != 0:
            print(f"{name}: failed (exit status {done.returncode}; its error is above)", flush=True)
            continue
        speeds[name] = json.loads(done.stdout.strip().splitlines()[-1])
        print(f"{name}: {speeds[name]['judged']} judged now, {len(cases)} in all", flush=True)
    print()
    if any(name.startswith("vllm") for name in speeds):
        from bot.judge.vllm_server import cpu_dtype

        print(f"vLLM's weights on this CPU: {cpu_dtype()}")
    print(f"{'backend':<22} {'load s':>7} {'s/judgement':>12} {'prompt tok/s':>13} {'peak MB':>8} {'cache hits':>11}")
    for name, speed in speeds.items():
        hits = f"{speed['cache_hit_rate']:.0%}" if speed.get("cache_hit_rate") is not None else "–"
        print(f"{name:<22} {speed['load_s']:>7.1f} {speed['per_judgement_s']:>12.2f} "
              f"{speed['prompt_tokens_per_s']:>13.0f} {speed['peak_mb']:>8.0f} {hits:>11}")
    print()
    print(agreement(names, cases, args.out))
    return 0


def agreement(names: list[str], cases: list[tuple], out: Path) -> str:
    """Per pair of backends and per data set: the same verdict on how many rows, the largest support difference."""
    judged = {name: _judged(out / f"{name}.jsonl") for name in names}
    sets = sorted({key.split("#", 1)[0] for key, _, _ in cases})
    lines = [f"{'pair':<46} {'data set':<26} {'rows':>5} {'same verdict':>13} {'largest |Δ support|':>20}  row"]
    for first, second in itertools.combinations(names, 2):
        for data in [*sets, "all"]:
            keys = [key for key, _, _ in cases if (data == "all" or key.startswith(f"{data}#"))
                    and key in judged[first] and key in judged[second]]
            if not keys or (data == "all" and len(sets) == 1):
                continue
            same = sum(judged[first][key]["verdict"] == judged[second][key]["verdict"] for key in keys)
            widest = max(keys, key=lambda key: abs(judged[first][key]["support"] - judged[second][key]["support"]))
            delta = abs(judged[first][widest]["support"] - judged[second][widest]["support"])
            lines.append(f"{first + ' / ' + second:<46} {data:<26} {len(keys):>5} "
                         f"{f'{same / len(keys):.1%} ({same})':>13} {delta:>20.3f}  {widest.split('#', 1)[1]}")
    return "\n".join(lines)


def measure(name: str, cases: list[tuple], path: Path, threads: int) -> dict:
    """Judge every row not in ``path`` yet with this backend, appending each judgement to ``path``."""
    from bot.judge.calibration import for_judge
    from bot.judge.engine import Judge
    from bot.judge.naming import Naming
    from bot.judge.prompts import template_by_id
    from judge_throughput import prefix_cache  # benchmarks/ is this script's own folder

    done = _judged(path)
    todo = [case for case in cases if case[0] not in done]
    if not todo:  # every row judged in an earlier run: nothing to load
        return {"judged": 0, "load_s": 0.0, "per_judgement_s": 0.0, "prompt_tokens_per_s": 0.0, "peak_mb": 0.0,
                "cache_hit_rate": None}
    server = None
    started = time.monotonic()
    if name.startswith("transformers"):
        from bot import modelstore
        from bot.judge.transformers_backend import TransformersBackend

        backend = TransformersBackend(modelstore.resolve(MODEL, modelstore.default_cache(), transformers=True),
                                      threads=threads, dtype="float32" if name.endswith("fp32") else "bfloat16")
    else:
        from bot.judge.openai_backend import OpenAIBackend, make_session

        port = _free_port()
        if name.startswith("llama.cpp"):
            weights = str(_same_weights_gguf()) if name.endswith("f32") else MODEL
            server = subprocess.Popen([sys.executable, str(ROOT / "scripts" / "llama_server.py"), weights, str(port),
                                       "--parallel", "1", "--ctx", "4096", "--threads", str(threads)],
                                      stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True)
            assert server.stdout is not None and server.stdout.readline().strip() == "ready"
        else:
            server = _start_vllm(port)
        backend = OpenAIBackend(make_session(), f"http://127.0.0.1:{port}/v1", context_tokens=4096,
                                echo=not name.endswith("first-token"))
    load_s = time.monotonic() - started
    template = template_by_id("refbot")
    # One calibration for every backend (the one fitted for this model): a server names the model its own way.
    judge = Judge(backend, template, calibration=for_judge(MODEL, template.id), justify=False, naming=Naming())
    judge.judge(todo[0][1], todo[0][2])  # warm-up: first-call allocations are not the steady state
    before = prefix_cache([f"http://127.0.0.1:{port}/v1"]) if name.startswith("vllm") else None
    seconds, tokens = 0.0, 0
    with path.open("a", encoding="utf-8") as ledger:
        for key, claim, snippet in todo:
            judgement = judge.judge(claim, snippet)
            seconds += judgement.latency_s
            tokens += judgement.prompt_tokens
            ledger.write(json.dumps({"key": key, "verdict": judgement.verdict.value, "support": judgement.support,
                                     "seconds": judgement.latency_s, "prompt_tokens": judgement.prompt_tokens}) + "\n")
            ledger.flush()
    hit_rate = None
    after = prefix_cache([f"http://127.0.0.1:{port}/v1"]) if before is not None else None
    if before is not None and after is not None and after[1] > before[1]:
        hit_rate = (after[0] - before[0]) / (after[1] - before[1])  # tokens found / tokens looked up
    peak_kb = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
    if server is not None:
        peak_kb = max(peak_kb, _group_peak_kb(server.pid))
        if name.startswith("vllm"):
            from bot.judge import vllm_server

            vllm_server.stop(server)
        else:
            server.terminate()
            server.wait(timeout=30)
    return {"judged": len(todo), "load_s": load_s, "per_judgement_s": seconds / len(todo),
            "prompt_tokens_per_s": tokens / seconds if seconds else 0.0, "peak_mb": peak_kb / 1024,
            "cache_hit_rate": hit_rate}


def _same_weights_gguf() -> Path:
    """The judge model's GGUF with the weights transformers and vLLM compute: each tensor of the Q4_K_M file
    dequantised and rounded to bf16 (as `refbot models fetch --transformers` made the transformers copy), stored as
    float32 so that llama.cpp multiplies them unquantised. Written once beside the model (6 GB)."""
    import gguf
    import numpy as np

    from bot import modelstore

    source = modelstore.resolve(MODEL, modelstore.default_cache())
    target = source.parent / "benchmark-same-weights-f32.gguf"
    if target.is_file():
        return target
    reader = gguf.GGUFReader(source)
    partial = target.with_suffix(".partial")
    writer = gguf.GGUFWriter(partial, arch=str(reader.get_field(gguf.Keys.General.ARCHITECTURE).contents()))
    written_by_writer = (gguf.Keys.General.ARCHITECTURE, gguf.Keys.General.FILE_TYPE)
    for field in reader.fields.values():
        if field.name.startswith("GGUF.") or field.name in written_by_writer:
            continue
        kind = field.types[0]
        writer.add_key_value(field.name, field.contents(), kind,
                             sub_type=field.types[-1] if kind == gguf.GGUFValueType.ARRAY else None)
    writer.add_file_type(gguf.LlamaFileType.ALL_F32)

    def weights(tensor) -> np.ndarray:
        values = gguf.quants.dequantize(tensor.data, tensor.tensor_type).astype(np.float32)
        bits = values.view(np.uint32)  # to bf16, round to nearest even, kept as float32
        bits = (bits + np.uint32(0x7FFF) + ((bits >> np.uint32(16)) & np.uint32(1))) & np.uint32(0xFFFF0000)
        return bits.view(np.float32)

    for tensor in reader.tensors:
        shape = tuple(int(n) for n in reversed(tensor.shape))  # numpy's order
        writer.add_tensor_info(tensor.name, shape, np.dtype(np.float32), int(np.prod(shape)) * 4,
                               gguf.GGMLQuantizationType.F32)
    writer.write_header_to_file()
    writer.write_kv_data_to_file()
    writer.write_ti_data_to_file()
    for tensor in reader.tensors:
        writer.write_tensor_data(weights(tensor).reshape(tuple(int(n) for n in reversed(tensor.shape))))
    writer.close()
    partial.rename(target)
    return target


def _start_vllm(port: int) -> subprocess.Popen[bytes]:
    """`refbot serve-judge`'s server for the judge model: bf16 on the CPU (eager: no minutes of compiling)."""
    import requests

    from bot import modelstore
    from bot.judge import vllm_server

    path = modelstore.resolve(MODEL, modelstore.default_cache(), transformers=True)
    spec = vllm_server.ServerSpec(python=vllm_server.find_python(None, os.environ),
                                  model=vllm_server.model_directory(path, MODEL), name=MODEL, port=port,
                                  context=4096, device=vllm_server.device(), eager=True, in_flight=4)
    log_path = Path(tempfile.gettempdir()) / f"refbot-backends-vllm-{port}.log"
    with open(log_path, "ab") as log:
        process = vllm_server.start(spec, log=log, environ=os.environ)
    with requests.Session() as session:
        vllm_server.wait_ready(process, spec, session, timeout_s=900, log_path=log_path)
    return process


def _judged(path: Path) -> dict[str, dict]:
    if not path.is_file():
        return {}
    rows = (json.loads(line) for line in path.read_text(encoding="utf-8").splitlines() if line.strip())
    return {row["key"]: row for row in rows}


def _cases(datasets: list[Path], rows: int) -> list[tuple]:
    """(key, claim, text) per row; the key names the data set and the row's id."""
    from bot.evaluation.dataset import read_dataset

    cases = []
    for dataset in datasets:
        path = dataset / "dev.jsonl" if dataset.is_dir() else dataset
        name = (dataset if dataset.is_dir() else dataset.parent).name
        read = read_dataset(path)
        for row in read[:rows] if rows else read:
            cases.append((f"{name}#{row.id}", row.claim, row.text))
    if datasets:
        return cases
    from bot.datamodel import Claim
    from bot.documents.paragraphs import extract

    pages = sorted((ROOT / "bot" / "demo" / "data" / "sites").rglob("*.html"))
    paragraphs = [p.text for page in pages for p in extract(page.read_bytes(), "text/html", page.as_uri()).paragraphs]
    claim = Claim("Marta Novotná", "award received", "Purkyně Prize for Chemistry")
    return [(f"demo#{number}", claim, text) for number, text in enumerate(paragraphs[:rows or None])]


def _free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


def _group_peak_kb(pid: int) -> int:
    """The largest peak RSS among the server's process and its children (vLLM's engine runs in a child)."""
    peaks = []
    for proc in Path("/proc").iterdir():
        if not proc.name.isdigit():
            continue
        try:
            status = (proc / "status").read_text()
            if proc.name != str(pid) and os.getpgid(int(proc.name)) != os.getpgid(pid):
                continue
        except (OSError, ProcessLookupError):
            continue
        peaks += [int(line.split()[1]) for line in status.splitlines() if line.startswith("VmHWM:")]
    return max(peaks, default=0)


if __name__ == "__main__":
    os.environ.setdefault("TOKENIZERS_PARALLELISM", "false")
    sys.exit(main())
