"""The one place that wires refbot's parts: each part built once, on first use, and a part being built (a model
loading) holds up only what needs it."""

from __future__ import annotations

import threading
from concurrent.futures import ThreadPoolExecutor

import bot.wiring as wiring
from bot.options import Options
from bot.wiring import Wiring


def test_a_model_loading_holds_up_only_what_needs_it_and_loads_once(monkeypatch):
    loading, release = threading.Event(), threading.Event()
    loads = []

    def slow_model(judge):  # the judge's model takes its time to load
        loads.append(judge.model)
        loading.set()
        assert release.wait(30)
        return object()

    monkeypatch.setattr(wiring, "make_backend", slow_model)
    parts = Wiring(Options.flat(sparql_endpoint="http://127.0.0.1:9/sparql", contact="tests@example.org"))
    with ThreadPoolExecutor(3) as pool:
        first = pool.submit(lambda: parts.backend)
        assert loading.wait(30)
        second = pool.submit(lambda: parts.backend)
        # while the model loads, the other parts are built and given at once
        assert parts.endpoint is not None and parts.http is not None and parts.fetcher is not None
        assert not first.done() and not second.done()
        release.set()
        assert first.result(30) is second.result(30) is parts.backend
    assert len(loads) == 1, "two threads asking for the model while it loads load it once"
