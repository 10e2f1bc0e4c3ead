"""Stopping refbot's web servers: from another thread while requests flow, with requests in hand, with one stuck,
and from the command line by Ctrl-C or a service manager's SIGTERM.

waitress's own way to stop from another thread (``pull_trigger(close_all)``) queues the thunk, then writes to the
trigger's pipe: when a request thread wakes the loop in between, the pipe is closed before the write, which fails
with EBADF or lands in whatever reused the descriptor. These tests widen that window on purpose."""

from __future__ import annotations

import logging
import os
import signal
import subprocess
import sys
import threading
import time
from pathlib import Path
from typing import Any

import pytest
import requests
from waitress import trigger as waitress_trigger

from bot.review.stoppable import StoppableServer
from test_review_browser import GUIDS, CURATOR, ReviewServer, imported, review_options
from test_review_colleagues import form, post

ROOT = Path(__file__).resolve().parent.parent
LARGE = 40 * 1024 * 1024  # over waitress's 16 MiB high watermark: the request thread waits for the loop to send it


class App:
    """A WSGI application with a fast page, a page that waits to be released, and a large page."""

    def __init__(self) -> None:
        self.entered = threading.Event()
        self.release = threading.Event()

    def __call__(self, environ: dict[str, Any], start_response: Any) -> Any:
        path = environ["PATH_INFO"]
        if path == "/held":
            self.entered.set()
            self.release.wait(30)
            body = [b"released"]
        elif path == "/large":
            self.entered.set()
            body = (b"x" * (1024 * 1024) for _ in range(LARGE // (1024 * 1024)))
        else:
            body = [b"ok"]
        start_response("200 OK", [("Content-Type", "text/plain")])
        return body


def serving(app: Any, **settings: Any) -> tuple[StoppableServer, threading.Thread]:
    server = StoppableServer(app, host="127.0.0.1", port=0, threads=4, **settings)
    thread = threading.Thread(target=server.run, daemon=True, name="test-server-loop")
    thread.start()
    return server, thread


@pytest.fixture
def late_pulls(monkeypatch) -> list[str]:
    """Every wake-up of a server loop is slowed, the stopping thread's most (descheduled between queueing and
    writing); a write to a trigger already closed is recorded (the thread's name) instead of made."""
    closed: list[str] = []
    original = waitress_trigger.trigger._physical_pull

    def late_pull(self: Any) -> None:
        name = threading.current_thread().name
        time.sleep(0.01 if name.startswith("waitress-") else 0.3)
        if self._closed:
            closed.append(name)
            return
        original(self)

    monkeypatch.setattr(waitress_trigger.trigger, "_physical_pull", late_pull)
    return closed


def test_a_stop_asked_while_request_threads_wake_the_loop_never_writes_to_a_closed_pipe(late_pulls):
    server, thread = serving(App())
    answered: list[int] = []
    ended = threading.Event()

    def load() -> None:
        with requests.Session() as http:
            while not ended.is_set():
                try:
                    answered.append(http.get(f"http://127.0.0.1:{server.port}/", timeout=10).status_code)
                except requests.ConnectionError:
                    return

    clients = [threading.Thread(target=load, daemon=True) for _ in range(3)]
    for client in clients:
        client.start()
    while len(answered) < 30:
        time.sleep(0.01)
    server.stop()
    thread.join(30)
    ended.set()
    for client in clients:
        client.join(30)
    assert not thread.is_alive(), "the server did not stop"
    assert late_pulls == [], f"written to the closed trigger by {late_pulls}"
    assert set(answered) == {200}
    assert not server.server.task_dispatcher.threads, "request threads left"
    with pytest.raises(requests.ConnectionError):
        requests.get(f"http://127.0.0.1:{server.port}/", timeout=5)


def test_the_requests_in_hand_are_answered_in_full_and_no_new_one_is_taken_once_a_stop_is_asked():
    app = App()
    server, thread = serving(app)
    held: list[requests.Response] = []
    client = threading.Thread(target=lambda: held.append(
        requests.get(f"http://127.0.0.1:{server.port}/held", timeout=30)), daemon=True)
    client.start()
    assert app.entered.wait(10)
    server.stop()
    deadline = time.monotonic() + 5
    while True:  # the loop stops listening at once
        try:
            requests.get(f"http://127.0.0.1:{server.port}/", timeout=2)
        except requests.ConnectionError:
            break
        assert time.monotonic() < deadline, "a new request was still answered after the stop"
        time.sleep(0.05)
    assert thread.is_alive(), "the server stopped before answering the request it had"
    app.release.set()
    client.join(30)
    thread.join(30)
    assert not thread.is_alive()
    assert [(answer.status_code, answer.text) for answer in held] == [(200, "released")]


def test_a_long_answer_being_sent_when_the_stop_comes_arrives_whole():
    app = App()
    server, thread = serving(app)
    with requests.get(f"http://127.0.0.1:{server.port}/large", stream=True, timeout=30) as answer:
        chunks = answer.iter_content(1024 * 1024)
        received = len(next(chunks))
        assert app.entered.wait(10)
        server.stop()
        time.sleep(0.5)  # the loop has seen the stop while the request thread waits for it to send the rest
        received += sum(len(chunk) for chunk in chunks)
    thread.join(30)
    assert received == LARGE and not thread.is_alive()


def test_a_request_stuck_past_the_grace_period_does_not_hold_the_stop_and_may_still_finish(caplog):
    app = App()
    server, thread = serving(app, grace_s=0.5)
    held: list[Any] = []

    def ask() -> None:
        try:
            held.append(requests.get(f"http://127.0.0.1:{server.port}/held", timeout=30))
        except requests.ConnectionError as error:
            held.append(error)

    client = threading.Thread(target=ask, daemon=True)
    client.start()
    assert app.entered.wait(10)
    with caplog.at_level(logging.WARNING, logger="bot.review.stoppable"):
        server.stop()
        thread.join(10)
    assert not thread.is_alive(), "a stuck request held the stop past its grace period"
    assert "request thread(s) still busy 0.5 s after the stop" in caplog.text
    assert not server.server.trigger._closed, "the trigger was closed under a request thread that may pull it"
    app.release.set()  # the request ends, its thread pulls the trigger still open, and ends
    client.join(30)
    deadline = time.monotonic() + 10
    while server.server.task_dispatcher.threads:
        assert time.monotonic() < deadline, "the request thread did not end"
        time.sleep(0.05)
    assert held and isinstance(held[0], requests.ConnectionError)  # its connection was closed at the stop


def test_a_server_asked_to_stop_before_it_runs_returns_at_once():
    stop = threading.Event()
    stop.set()
    server, thread = serving(App(), stop=stop)
    thread.join(10)
    assert not thread.is_alive()
    with pytest.raises(requests.ConnectionError):
        requests.get(f"http://127.0.0.1:{server.port}/", timeout=5)


# The command line: `refbot review` and `refbot serve-review` stopped by Ctrl-C (SIGINT) and by SIGTERM.

def command(tmp_path: Path, *args: str, environ: dict[str, str] | None = None) -> subprocess.Popen:
    clean = {key: value for key, value in os.environ.items() if not key.startswith(("REFBOT_", "PYWIKIBOT"))}
    return subprocess.Popen([sys.executable, "-m", "bot.cli", *args], cwd=tmp_path,
                            env={**clean, "PYTHONPATH": str(ROOT), **(environ or {})},
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)


def ended(process: subprocess.Popen, sent: signal.Signals) -> tuple[int, str]:
    process.send_signal(sent)
    try:
        _, stderr = process.communicate(timeout=60)
    except subprocess.TimeoutExpired:
        process.kill()
        process.communicate()
        raise AssertionError(f"{sent.name} did not stop it")
    return process.returncode, stderr


@pytest.mark.parametrize("sent", [signal.SIGINT, signal.SIGTERM], ids=["ctrl-c", "sigterm"])
def test_refbot_review_stopped_by_ctrl_c_or_sigterm_exits_0_and_rewrites_the_report(tmp_path, sent):
    options = review_options(tmp_path)
    run_id = imported(options)
    (tmp_path / "refbot.ini").write_text(f"[run]\nledger = {options.run.ledger}\n[check]\nreports = "
                                         f"{options.check.reports}\n[review]\ncurator = {CURATOR}\n", encoding="utf-8")
    report = options.check.reports / f"run-{run_id}.html"
    assert not report.exists()
    process = command(tmp_path, "review", "--run", str(run_id))
    assert process.stdout is not None
    process.stdout.readline()  # review: …/queue?token=…
    page = process.stdout.readline().split()[-1]  # report: …?token=…
    server = ReviewServer(options, run_id, page)
    with requests.Session() as http:
        assert post(http, server, form(http, server, GUIDS[0]), "approved").status_code == 303
    code, stderr = ended(process, sent)
    assert code == 0, stderr
    assert "Traceback" not in stderr and "report rewritten" in stderr
    assert report.is_file() and server.reviews()[GUIDS[0]].state == "approved"
    assert "approved" in report.read_text(encoding="utf-8")


@pytest.mark.parametrize("sent", [signal.SIGINT, signal.SIGTERM], ids=["ctrl-c", "sigterm"])
def test_refbot_serve_review_stopped_by_ctrl_c_or_sigterm_while_curators_read_exits_0(tmp_path, sent):
    from bot.demo.world import free_port

    port = free_port()
    (tmp_path / "refbot.ini").write_text(
        f"[service]\nurl = http://127.0.0.1:{port}\noauth_url = http://127.0.0.1:9/w/rest.php\nclient_id = c\n"
        f"[run]\nledger = {tmp_path / 'runs.sqlite'}\n", encoding="utf-8")
    process = command(tmp_path, "serve-review", "--port", str(port),
                      environ={"REFBOT_SERVICE_CLIENT_SECRET": "s", "REFBOT_SERVICE_SECRET_KEY": "k" * 40})
    assert process.stderr is not None
    assert "listens on" in process.stderr.readline()
    answers: list[int] = []
    reading = threading.Event()

    def read() -> None:
        with requests.Session() as http:
            while True:
                try:
                    answers.append(http.get(f"http://127.0.0.1:{port}/", timeout=10).status_code)
                except requests.ConnectionError:
                    return
                reading.set()

    readers = [threading.Thread(target=read, daemon=True) for _ in range(3)]
    for reader in readers:
        reader.start()
    assert reading.wait(30)
    code, stderr = ended(process, sent)
    for reader in readers:
        reader.join(30)
    assert code == 0, stderr
    assert "Traceback" not in stderr and "the review service stopped" in stderr
    assert answers and set(answers) == {200}, "a page was cut short by the stop"
