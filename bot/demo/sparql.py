"""Oxigraph's SPARQL server on loopback, loaded with Turtle: the demo world's store, and the tests' too."""

from __future__ import annotations

import shutil
import subprocess
import sys
import time
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

from bot.errors import ConfigError, ServiceError


@dataclass
class Oxigraph:
    process: subprocess.Popen
    port: int

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.port}/query"

    def stop(self) -> None:
        self.process.terminate()
        try:
            self.process.wait(timeout=10)
        except subprocess.TimeoutExpired:
            self.process.kill()


def oxigraph_binary() -> str:
    found = shutil.which("oxigraph") or str(Path(sys.executable).parent / "oxigraph")
    if not Path(found).exists():
        raise ConfigError("the Oxigraph SPARQL server is not installed",
                          hint="install refbot with its demo extra: pip install -e '.[demo]' (scripts/setup does)")
    return found


def _dies_with_parent() -> Callable[[], None] | None:
    """On Linux, a function the child runs before exec: the kernel sends it SIGTERM when its parent dies, so a
    server is not left behind by a demo or a test that was killed."""
    if not sys.platform.startswith("linux"):
        return None
    import ctypes
    import signal

    prctl = ctypes.CDLL(None, use_errno=True).prctl  # looked up now: the child only calls it
    set_parent_death_signal = 1  # PR_SET_PDEATHSIG

    def arrange() -> None:
        prctl(set_parent_death_signal, signal.SIGTERM)
    return arrange


# The truthy triples the Query Service derives from best-rank statements (``wdt:``), for a store written as
# statements only (``p:``/``ps:``, each best-rank statement typed ``wikibase:BestRank``, as WDQS's RDF has them).
TRUTHY = """PREFIX wikibase: <http://wikiba.se/ontology#>
INSERT { ?item ?direct ?value } WHERE {
  ?property wikibase:claim ?claim ; wikibase:statementProperty ?statementProperty ; wikibase:directClaim ?direct .
  ?item ?claim ?statement .
  ?statement a wikibase:BestRank ; ?statementProperty ?value .
}"""


def start_oxigraph(turtle: Path, store: Path, port: int, *, truthy: bool = False) -> Oxigraph:
    """Load ``turtle`` into a store at ``store`` (with ``truthy``: and derive the ``wdt:`` triples of its best-rank
    statements) and serve it read-only on 127.0.0.1:``port``."""
    import requests

    binary = oxigraph_binary()
    loaded = subprocess.run([binary, "load", "--location", str(store), "--file", str(turtle)],
                            capture_output=True, text=True)
    if loaded.returncode == 0 and truthy:
        loaded = subprocess.run([binary, "update", "--location", str(store), "--update", TRUTHY],
                                capture_output=True, text=True)
    if loaded.returncode != 0:
        raise ServiceError(f"could not load {turtle.name}: {loaded.stderr.strip()[-300:]}", service="Oxigraph",
                           url=str(store))
    process = subprocess.Popen([binary, "serve-read-only", "--location", str(store), "--bind", f"127.0.0.1:{port}"],
                               stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, preexec_fn=_dies_with_parent())
    server = Oxigraph(process, port)
    deadline = time.monotonic() + 30
    while time.monotonic() < deadline:
        if process.poll() is not None:
            error = process.stderr.read().decode() if process.stderr else ""
            raise ServiceError(f"Oxigraph exited: {error.strip()[-300:]}", service="Oxigraph", url=server.url)
        try:
            requests.get(server.url, params={"query": "ASK {}"}, timeout=1)
            return server
        except requests.RequestException:
            time.sleep(0.1)
    process.kill()
    raise ServiceError("Oxigraph did not start within 30 s", service="Oxigraph", url=server.url)
