"""Curators first under a crowd: however many anonymous readers loop on a run's report pages, a signed-in curator's
queue page and decision are answered at once — their requests are taken first, and the readers' never hold every
thread (``bot.review.lanes``); readers beyond the line are told to come back by waitress itself. A made-up session
cookie is a reader's."""

from __future__ import annotations

import statistics
import threading
import time
from typing import Any

import pytest
import requests
from lxml import etree

from bot.demo.wikibase import Account
from bot.demo.world import DemoWorld
from test_review_service import CURATOR, PASSWORD, sign_in, start_service

SLOW_S = 0.4  # what a report page takes here (a large run's: put together in memory and rendered)


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
                    answers.append(http.get(url, timeout=60).status_code)
                except requests.RequestException:
                    answers.append(0)

    threads = [threading.Thread(target=read, daemon=True) for _ in range(readers)]
    for thread in threads:
        thread.start()
    return threads


def _curator_times(service: Any, http: requests.Session, rounds: int) -> list[float]:
    """Seconds for each of the curator's queue pages and decisions (rejections: no wiki edit), ``rounds`` each."""
    seconds = []
    for _ in range(rounds):
        began = time.perf_counter()
        page = http.get(f"{service.url}/run/{service.run_id}/queue", timeout=60)
        seconds.append(time.perf_counter() - began)
        fields = {field.get("name"): field.get("value")
                  for field in etree.HTML(page.text).xpath("//form[@class='decide']/input")}
        if not fields.get("guid"):
            break
        began = time.perf_counter()
        decided = http.post(f"{service.url}/run/{service.run_id}/decide", timeout=60,
                            data={**fields, "decision": "rejected"})
        seconds.append(time.perf_counter() - began)
        assert decided.status_code == 200 and "Not recorded" not in decided.text, decided.text[:500]
    return seconds


@pytest.mark.parametrize("cookie", ["", "made-up-session-cookie-0123456789abcdefghijklmnopq"])
def test_a_curators_pages_are_answered_at_once_while_a_crowd_loops_on_report_pages(
        world, tmp_path, monkeypatch, cookie):
    _slow_reports(monkeypatch)
    service = start_service(world, tmp_path, lanes=True, threads=4, service_reports_at_once=1)
    stop, answers = threading.Event(), []
    try:
        crowd = _crowd(f"{service.url}/run/{service.run_id}/", 24, stop, answers, cookie)
        while len(answers) < 20:
            time.sleep(0.05)
        curator = requests.Session()
        began = time.perf_counter()
        sign_in(curator, service, CURATOR, PASSWORD)  # in the middle of the crowd
        signing_in_s = time.perf_counter() - began
        seconds = _curator_times(service, curator, 3)
    finally:
        stop.set()
        for thread in crowd:
            thread.join(60)
        service.stop()
    assert len(seconds) >= 4 and signing_in_s < 3.0, signing_in_s
    assert max(seconds) < 1.0 and statistics.median(seconds) < 0.5, seconds
    assert 503 in answers and 200 in answers, "readers beyond the line are told to come back; the others are served"


def test_without_the_lanes_the_same_crowd_keeps_a_curator_waiting(world, tmp_path, monkeypatch):
    """The measure above is one the crowd would fail without the lanes: waitress's one queue, the same crowd."""
    from bot.review import limits

    monkeypatch.setattr(limits, "WAIT_S", 2.0)  # (readers give up their wait for a turn sooner: a shorter test)
    _slow_reports(monkeypatch)
    service = start_service(world, tmp_path, lanes=False, threads=4, service_reports_at_once=1)
    stop, answers = threading.Event(), []
    try:
        curator = requests.Session()
        sign_in(curator, service, CURATOR, PASSWORD)
        crowd = _crowd(f"{service.url}/run/{service.run_id}/", 24, stop, answers)
        while len(answers) < 5:
            time.sleep(0.05)
        seconds = _curator_times(service, curator, 1)
    finally:
        stop.set()
        for thread in crowd:
            thread.join(120)
        service.stop()
    assert max(seconds) > 1.0, seconds
