"""Curators first under a crowd: however many anonymous readers loop on a run's report pages, a signed-in curator's
requests are taken by the service's threads before every reader's request that was waiting when theirs arrived
(``bot.review.lanes``); a curator signs in in the middle of the crowd; readers beyond the line are told to come back
by waitress itself. A made-up session cookie is a reader's. What is asserted is the order the threads take requests
in, recorded by the dispatcher itself — not seconds (benchmarks/review_queue.py --readers measures those)."""

from __future__ import annotations

import threading
import time
from typing import Any

import pytest
import requests
from lxml import etree

from bot.demo.wikibase import Account
from bot.demo.world import DemoWorld
from bot.review.lanes import Lanes
from test_review_service import CURATOR, PASSWORD, sign_in, start_service

SLOW_S = 0.4  # what a report page takes here (a large run's: put together in memory and rendered)


class Recorded(Lanes):
    """The lanes, recording each request as it is added and as a thread takes it: (event, serial, curator's)."""

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.events: list[tuple[str, int, bool]] = []
        self.added = 0
        self.really = self.is_curator

    def add_task(self, task: Any) -> None:
        request = task.requests[0]
        curator = self.really(request.headers) and request.path.startswith("/run/")
        with self.lock:
            request.refbot_serial = serial = self.added  # (on the request itself: ids of freed objects come back)
            self.added += 1
            self.events.append(("added", serial, curator))
        super().add_task(task)

    def _next(self) -> tuple[Any, str]:
        task, lane = super()._next()
        if task is not None:
            request = task.requests[0]
            curator = self.really(request.headers) and request.path.startswith("/run/")
            self.events.append(("taken", getattr(request, "refbot_serial", -1), curator))
        return task, lane


class EveryoneAReader(Recorded):
    """The same dispatcher told that nobody is a curator: the order a single queue would give."""

    def __init__(self, is_curator: Any, **kwargs: Any) -> None:
        super().__init__(lambda headers: False, **{**kwargs, "waiting": 64})  # (a line the curator fits in)
        self.really = is_curator


def overtaken(events: list[tuple[str, int, bool]]) -> list[int]:
    """For each of the curator's requests: how many readers' requests that were waiting when it arrived were taken
    before it."""
    counts = []
    for index, (event, serial, curator) in enumerate(events):
        if event != "added" or not curator:
            continue
        waiting = {other for kind, other, _ in events[:index] if kind == "added"} - {
            other for kind, other, _ in events[:index] if kind == "taken"}
        taken_at = next(at for at, (kind, other, _) in enumerate(events) if kind == "taken" and other == serial)
        counts.append(sum(1 for kind, other, reader in events[index:taken_at]
                          if kind == "taken" and other in waiting and not reader))
    return counts


@pytest.fixture
def world(tmp_path):
    with DemoWorld(workdir=tmp_path, accounts={CURATOR: Account({}, groups=(), password=PASSWORD)}) as running:
        yield running


def _slow_reports(monkeypatch: Any) -> None:
    from bot.review import actions

    real = actions.report_page

    def slow(*args: Any, **kwargs: Any) -> Any:
        time.sleep(SLOW_S)
        return real(*args, **kwargs)

    monkeypatch.setattr(actions, "report_page", slow)


def _crowd(url: str, readers: int, stop: threading.Event, answers: list[int], cookie: str = "") -> list[Any]:
    def read() -> None:
        with requests.Session() as http:
            if cookie:
                http.cookies.set("refbot_service", cookie, domain="127.0.0.1", path="/")
            while not stop.is_set():
                try:
                    answers.append(http.get(url, timeout=120).status_code)
                except requests.RequestException:
                    answers.append(0)

    threads = [threading.Thread(target=read, daemon=True) for _ in range(readers)]
    for thread in threads:
        thread.start()
    return threads


def _decide(service: Any, http: requests.Session, rounds: int) -> int:
    """The curator's queue pages and decisions (rejections: no wiki edit), ``rounds`` each; how many were recorded."""
    recorded = 0
    for _ in range(rounds):
        page = http.get(f"{service.url}/run/{service.run_id}/queue", timeout=120)
        fields = {field.get("name"): field.get("value")
                  for field in etree.HTML(page.text).xpath("//form[@id='decide-form']/input")}
        if not fields.get("guid"):
            break
        decided = http.post(f"{service.url}/run/{service.run_id}/decide", timeout=120,
                            data={**fields, "decision": "rejected"})
        assert decided.status_code == 200 and "Not recorded" not in decided.text, decided.text[:500]
        recorded += 1
    return recorded


def _under_a_crowd(world: Any, tmp_path: Any, dispatcher: type[Recorded], cookie: str = "", readers: int = 24,
                   rounds: int = 2) -> tuple[Any, list[int]]:
    service = start_service(world, tmp_path, lanes=dispatcher, threads=4, service_reports_at_once=1)
    stop, answers = threading.Event(), []
    crowd: list[Any] = []
    try:
        crowd = _crowd(f"{service.url}/run/{service.run_id}/", readers, stop, answers, cookie)
        while len(answers) < 10:
            time.sleep(0.05)
        curator = requests.Session()
        landed = sign_in(curator, service, CURATOR, PASSWORD, f"/run/{service.run_id}/queue")  # mid-crowd
        assert landed.status_code == 200 and CURATOR in etree.HTML(landed.text).xpath("string(//span[@id='account'])")
        assert _decide(service, curator, rounds) == rounds
    finally:
        stop.set()
        for thread in crowd:
            thread.join(120)
        service.stop()
    dispatcher_used = service.dispatcher
    return dispatcher_used, answers


@pytest.mark.parametrize("cookie", ["", "made-up-session-cookie-0123456789abcdefghijklmnopq"])
def test_a_curators_requests_are_taken_before_every_readers_request_waiting_when_they_arrive(
        world, tmp_path, monkeypatch, cookie):
    _slow_reports(monkeypatch)
    lanes, answers = _under_a_crowd(world, tmp_path, Recorded, cookie)
    counts = overtaken(lanes.events)
    assert len(counts) >= 4, "the curator's queue pages and decisions (and the pages they lead back to)"
    assert counts == [0] * len(counts), counts
    assert 503 in answers and 200 in answers, "readers beyond the line are told to come back; the others are served"


def test_in_one_queue_the_same_crowd_overtakes_a_curator(world, tmp_path, monkeypatch):
    """The measure above is one a single queue fails: the same crowd, the same dispatcher told nobody is a
    curator."""
    _slow_reports(monkeypatch)
    lanes, _ = _under_a_crowd(world, tmp_path, EveryoneAReader, readers=8, rounds=1)
    counts = overtaken(lanes.events)
    assert counts and max(counts) > 0, counts
