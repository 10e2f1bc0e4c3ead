"""Shared stand-ins: a real llama.cpp server with a real small model, started on 127.0.0.1 by the tests."""

from __future__ import annotations

import os
import shutil
import socket
import subprocess
import sys
import time
from collections.abc import Iterator
from concurrent.futures import ThreadPoolExecutor, wait
from dataclasses import dataclass
from pathlib import Path

import pytest
import requests

from bot import modelstore
from bot.judge.vllm_server import cpu_dtype

ROOT = Path(__file__).resolve().parent.parent
DATA = Path(__file__).resolve().parent / "data"
SHARED = Path(os.environ.get("REFBOT_SHARED", ROOT.parent / "shared"))


def free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return int(probe.getsockname()[1])


@pytest.fixture(scope="session")
def smollm_gguf() -> Path:
    try:
        return modelstore.resolve("smollm2-135m", modelstore.default_cache())
    except modelstore.ModelError as error:
        pytest.fail(f"{error} — the model tests need it")


@dataclass
class LlamaServer:
    process: subprocess.Popen
    port: int

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.port}/v1"

    def kill(self) -> None:
        self.process.kill()
        self.process.wait(timeout=30)


def start_llama_server(model: Path, *, parallel: int = 2, ctx: int = 4096, port: int | None = None) -> LlamaServer:
    port = port or free_port()
    process = subprocess.Popen(
        [sys.executable, str(ROOT / "scripts" / "llama_server.py"), str(model), str(port),
         "--parallel", str(parallel), "--ctx", str(ctx)],
        stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True)
    deadline = time.monotonic() + 90
    while time.monotonic() < deadline:
        if process.poll() is not None:
            raise RuntimeError(f"llama.cpp server exited with {process.returncode}")
        try:
            if requests.get(f"http://127.0.0.1:{port}/health", timeout=1).ok:
                return LlamaServer(process, port)
        except requests.RequestException:
            time.sleep(0.2)
    process.kill()
    raise RuntimeError("llama.cpp server did not start within 90 s")


@pytest.fixture(scope="session")
def llama_server(smollm_gguf: Path):
    server = start_llama_server(smollm_gguf)
    yield server
    server.kill()


@pytest.fixture
def private_llama_server(smollm_gguf: Path):
    """A server of the test's own, which it may kill."""
    server = start_llama_server(smollm_gguf, parallel=1)
    yield server
    if server.process.poll() is None:
        server.kill()


VLLM_PYTHON = ROOT / ".venv-vllm" / "bin" / "python"
# The arithmetic the tests' vLLM servers compute in: `serve-judge --dtype auto` as production runs it (bfloat16 where
# the CPU multiplies it natively, float32 elsewhere), or the one REFBOT_TEST_VLLM_DTYPE forces, so that one machine
# runs the tests in both.
VLLM_DTYPE = os.environ.get("REFBOT_TEST_VLLM_DTYPE", "auto")


def pytest_configure(config: pytest.Config) -> None:
    if VLLM_DTYPE not in ("auto", "float32", "bfloat16"):
        raise pytest.UsageError(f"REFBOT_TEST_VLLM_DTYPE={VLLM_DTYPE!r}: use auto (the default), float32 or bfloat16")


@dataclass(frozen=True)
class Tolerance:
    """How far one of the judge's numbers may move between two computations of the same weights in one arithmetic:
    by another implementation (vLLM against transformers), in a batch of another shape (a generated token's
    log-probability against the same token's echoed in a prompt), on another server.

    In float32 they agree to 1e-4. In bfloat16 each computation rounds its activations to 8 significant bits, in an
    order its kernels choose by the CPU (AVX512-BF16, AMX) and the batch's shape, and lands within a measured
    distance of the float32 answer; two computations then lie within twice that distance of each other.
    ``benchmarks/arithmetic.py`` measures both (benchmarks/README.md has the figures these come from)."""

    token: float  # one token's log-probability
    phrase: float  # a relation's phrase: its tokens' log-probabilities summed
    probability: float  # P(yes), the judge's support


TOLERANCES = {
    # measured (vLLM against transformers, 40 texts): 1e-4 in a log-probability, 8e-4 in P(yes) and the support
    "float32": Tolerance(token=0.01, phrase=0.01, probability=0.005),
    # measured, bfloat16 against float32 (40 texts, AVX512-BF16): a token 0.197 at most (p95 0.110), a phrase 0.298
    # (p95 0.216), P(yes) and the support 0.022; twice each, rounded up. Seen between two bfloat16 computations: a
    # token 0.046 (generated against echoed; 0.093 on an AMX core), a phrase 0.373, P(yes) 0.023.
    "bfloat16": Tolerance(token=0.4, phrase=0.6, probability=0.05),
}


@dataclass
class VllmServer:
    """vLLM serving SmolLM2-135M (a Llama) on 127.0.0.1, started by `refbot serve-judge`; ``judge_lines``: what it
    printed for refbot.ini."""

    process: subprocess.Popen
    port: int
    judge_lines: str
    log: Path
    dtype: str  # the weights' arithmetic: "float32" or "bfloat16"

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.port}/v1"

    def metric(self, name: str) -> float:
        """A counter from vLLM's Prometheus /metrics, summed over its labels."""
        text = requests.get(f"http://127.0.0.1:{self.port}/metrics", timeout=10).text
        return sum(float(line.rsplit(" ", 1)[1]) for line in text.splitlines()
                   if line.startswith(name + "{") or line.startswith(name + " "))

    def stop(self) -> int:
        """Stop it as a service manager would (SIGTERM to refbot serve-judge); its exit status."""
        if self.process.poll() is None:
            self.process.terminate()
        return self.process.wait(timeout=90)


def start_vllm_server(log: Path, *, port: int | None = None, context: int = 2048) -> VllmServer:
    if not VLLM_PYTHON.is_file():
        pytest.skip(f"no vLLM environment at {VLLM_PYTHON}: `scripts/setup --vllm` could not make it here")
    port = port or free_port()
    process = subprocess.Popen(
        [sys.executable, "-m", "bot.cli", "serve-judge", "--model", "smollm2-135m", "--eager", "--port", str(port),
         "--context", str(context), "--kv-cache", "1", "--in-flight", "4", "--log", str(log),
         "--ready-timeout", "900", "--dtype", VLLM_DTYPE],
        stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True, cwd=ROOT)
    lines = []
    for line in process.stdout:  # printed once the server lists the model
        if not line.strip():
            break
        lines.append(line)
    if process.poll() is not None or not lines:
        process.kill()
        raise RuntimeError(f"refbot serve-judge ended ({process.wait()}): see {log}")
    return VllmServer(process, port, "".join(lines), log, cpu_dtype() if VLLM_DTYPE == "auto" else VLLM_DTYPE)


@pytest.fixture(scope="session")
def vllm_servers(tmp_path_factory) -> Iterator[tuple[VllmServer, VllmServer]]:
    """Two vLLM servers, started side by side: most of a start is one process importing vLLM, so the second costs
    little wall time beside the first (the tests of several endpoints and of a restart need two)."""
    folder = tmp_path_factory.mktemp("vllm")
    with ThreadPoolExecutor(max_workers=2) as pool:
        starting = [pool.submit(start_vllm_server, folder / f"vllm-{n}.log") for n in (1, 2)]
        wait(starting)
    started = [future.result() for future in starting if future.exception() is None]
    if len(started) < 2:
        for server in started:
            server.stop()
        raise next(future.exception() for future in starting if future.exception() is not None)
    yield started[0], started[1]
    for server in started:
        server.stop()


@pytest.fixture(scope="session")
def vllm_server(vllm_servers) -> VllmServer:
    return vllm_servers[0]


@pytest.fixture(scope="session")
def wikidata_world(tmp_path_factory):
    """An Oxigraph SPARQL endpoint on 127.0.0.1 with tests/data/wikidata-world.ttl; yields its query URL."""
    from servers import start_oxigraph

    server = start_oxigraph(DATA / "wikidata-world.ttl", tmp_path_factory.mktemp("oxigraph"), free_port())
    yield server.url
    server.stop()


@pytest.fixture
def recording_server():
    """A local HTTP server answering from ``server.script``; the test sets the script."""
    from servers import RecordingServer, Reply

    server = RecordingServer(lambda request: Reply(404, "no script"))
    yield server
    server.close()


@pytest.fixture(scope="session")
def postgres():
    """A PostgreSQL server on 127.0.0.1 (Debian's postgresql-15), for the session."""
    from databases import start_postgres

    server = start_postgres()
    yield server
    server.stop()


@pytest.fixture(scope="session")
def mariadb():
    """A MariaDB server on 127.0.0.1 (Debian's mariadb-server), as Toolforge's ToolsDB, for the session."""
    from databases import start_mariadb

    server = start_mariadb()
    yield server
    server.stop()


@pytest.fixture(params=["sqlite", "postgresql", "mariadb"])
def ledger_target(request, tmp_path):
    """Where a test's ledger lives, once on each database refbot keeps one in: a new SQLite file, or a new empty
    database on the session's PostgreSQL or MariaDB server (its URL)."""
    import uuid

    from databases import create_database

    if request.param == "sqlite":
        return tmp_path / "runs.sqlite"
    server = request.getfixturevalue("postgres" if request.param == "postgresql" else "mariadb")
    return create_database(server, f"refbot_{uuid.uuid4().hex[:12]}")


@pytest.fixture(scope="session")
def redis_server():
    """A Redis server on 127.0.0.1 (Debian's redis-server), for the session: the workers' broker."""
    from databases import start_redis

    server = start_redis()
    yield server
    server.stop()


@pytest.fixture
def http() -> Iterator[requests.Session]:
    with requests.Session() as session:
        session.trust_env = False  # no proxy from the environment for 127.0.0.1
        yield session


@pytest.fixture(scope="module")
def browser(tmp_path_factory) -> Iterator[object]:
    chromium = shutil.which("chromium") or shutil.which("chromium-browser")
    chromedriver = shutil.which("chromedriver")
    if chromium is None or chromedriver is None:
        pytest.skip("Debian's chromium and chromium-driver are needed (scripts/setup --test installs them)")
    from selenium import webdriver
    from selenium.webdriver.chrome.service import Service

    options = webdriver.ChromeOptions()
    options.binary_location = chromium
    for flag in ("--headless=new", "--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage", "--no-proxy-server",
                 "--disable-extensions", "--no-first-run", "--window-size=1280,2000",
                 f"--user-data-dir={tmp_path_factory.mktemp('chromium-profile')}"):
        options.add_argument(flag)
    driver = webdriver.Chrome(service=Service(executable_path=chromedriver), options=options)
    driver.set_page_load_timeout(30)
    try:
        yield driver
    finally:
        driver.quit()
