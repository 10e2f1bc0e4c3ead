"""The one place that wires refbot's parts: each part built once, on first use, and a part being built (a model
loading) holds up only what needs it."""

from __future__ import annotations

import threading

import pytest
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


def test_the_embedded_judge_is_named_at_once_and_loads_in_a_thread_of_its_own():
    from bot import modelstore
    from bot.judge.arithmetic import arithmetic
    from bot.judge.loading import LoadingBackend
    from bot.judge.prompts import REFBOT
    from bot.judge.transformers_backend import TransformersBackend
    from bot.datamodel import Claim

    path = modelstore.resolve("smollm2-135m", modelstore.default_cache(), transformers=True)
    parts = Wiring(Options.flat(judge_model="smollm2-135m", threads=2))
    backend = parts.backend
    assert isinstance(backend, LoadingBackend)
    chosen = arithmetic("auto")
    assert backend.arithmetic == chosen
    assert backend.model_id == TransformersBackend(path, dtype=chosen.dtype).model_id
    assert parts.judge.model_id == backend.model_id, "the judge and its calibration are named before the model loads"
    messages = REFBOT.messages(Claim("Marie Curie", "award received", "Nobel Prize in Physics"),
                               "In 1903 Marie Curie shared the Nobel Prize in Physics with Pierre Curie.")
    loaded = TransformersBackend(path, dtype=chosen.dtype, threads=2)
    assert backend.choose(messages, ("yes", "no")).probabilities == \
        pytest.approx(loaded.choose(messages, ("yes", "no")).probabilities, abs=1e-4)
