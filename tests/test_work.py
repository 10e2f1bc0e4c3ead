"""One delivery of a task (``bot.distributed.work.perform``) against a real ledger: a message that is no task of this
worker's — another ledger's, an unknown run, a finished one, an item outside the run, a run enqueued with other
settings — is refused at once and records nothing; an error that cannot succeed (no search engine) fails at once;
an unexpected one is tried again with a growing pause and then becomes the run's error, which `run --status` shows.
Enqueueing asks the broker before it opens the run. The judge is never loaded: the parts are refbot's own wiring
with the scripted judge, or a stand-in whose part fails."""

from __future__ import annotations

from datetime import datetime, timezone
from pathlib import Path

import pytest

from bot import shared_settings
from bot.cli import main
from bot.distributed.app import CeleryBroker, make_app
from bot.distributed.names import queue_name, tool_prefix
from bot.distributed.work import enqueue, perform, servable
from bot.errors import ServiceError
from bot.options import Options, ini_text
from bot.ledger.ledger import RunLedger
from bot.check_run import settings_key
from bot.selection.worklists import Worklist
from bot.wiring import Wiring
from databases import free_port

OPTIONS = Options.flat(contact="refbot-test@example.org", judge_backend="scripted", check_embeddings=False,
                       check_source="kg")


def clock() -> datetime:
    return datetime(2026, 11, 27, 12, tzinfo=timezone.utc)


def enqueued(ledger: RunLedger, options: Options = OPTIONS, items: tuple[str, ...] = ("Q1", "Q2")):
    """A run enqueued in the ledger with ``options``' settings (what `refbot run --enqueue` records)."""
    run = ledger.open_run(f"worklist-{len(items)}", "test (workers)")
    ledger.enqueue(run, items, settings=settings_key(options), properties=(), shared=shared_settings.shared(options))
    return run


class FailingParts:
    """Parts whose tools fail as refbot's own code might (not a RefbotError): the task's retry policy is tested."""

    def __init__(self, options: Options) -> None:
        self.options, self.clock, self.asked = options, clock, 0

    @property
    def tools(self):
        self.asked += 1
        raise RuntimeError("a bug in refbot")

    services = records = tools

    def require_endpoint(self):
        raise AssertionError("not reached")


def task(ledger: RunLedger, run_id: int, items: list[str]) -> tuple[list, dict]:
    return [{"ledger": ledger.identity, "run": run_id, "items": items}], {}


def test_a_task_that_is_no_task_of_this_worker_is_refused_at_once_and_records_nothing(tmp_path):
    ledger = RunLedger(tmp_path / "runs.sqlite", clock=clock)
    run = enqueued(ledger)
    parts = FailingParts(OPTIONS)  # anything checked would fail: a refusal checks nothing
    other_settings = OPTIONS.replaced(paragraph_min_chars=150)
    cases = {
        "another ledger": (([{"ledger": "feedfacefeedface", "run": run.id, "items": ["Q1"]}], {}), "",
                           "a task of another ledger"),
        "an unknown run": (task(ledger, 99, ["Q1"]), "", "has no enqueued run 99"),
        "an item outside the run": (task(ledger, run.id, ["Q1", "Q3"]), "", f"Q3 is not an item of run {run.id}"),
        "another run's queue": (task(ledger, run.id, ["Q1"]), queue_name(ledger.identity, run.id + 1),
                                f"names run {run.id} but came on queue"),
        "not JSON-shaped": (([f"{run.id}"], {}), "", "not one task description"),
        "a malformed item id": (task(ledger, run.id, ["Q1'; DROP TABLE runs"]), "", "is not an item id"),
    }
    for name, ((args, kwargs), queue, reason) in cases.items():
        end = perform(parts, ledger, args, kwargs, queue=queue)
        assert end.kind == "refused" and reason in end.detail, (name, end)
    end = perform(FailingParts(other_settings), ledger, *task(ledger, run.id, ["Q1"]))
    assert end.kind == "refused"
    assert end.detail == ("it was enqueued with other settings than this worker's: [paragraph] min_chars "
                          "(the run's 100, this worker's 150)")
    ledger.finish(run)
    end = perform(parts, ledger, *task(ledger, run.id, ["Q1"]))
    assert end.kind == "refused" and end.detail == f"run {run.id} is finished"
    assert parts.asked == 0, "nothing was checked"
    queue = ledger.queue(run.id)
    assert queue.redelivered == 0 and queue.finished == 0 and queue.error == "" and ledger.counts(run) == {}


def test_an_unexpected_error_is_tried_again_later_each_time_then_is_the_runs_error(tmp_path, capsys):
    ledger = RunLedger(tmp_path / "runs.sqlite", clock=clock)
    run = enqueued(ledger)
    parts = FailingParts(OPTIONS)
    ends = [perform(parts, ledger, *task(ledger, run.id, ["Q1"]), attempt=attempt, retries=3, retry_delay=2.0)
            for attempt in range(4)]
    assert [end.kind for end in ends] == ["retry", "retry", "retry", "failed"]
    assert [end.retry_in for end in ends[:3]] == [2.0, 4.0, 8.0]
    assert ends[0].detail == "RuntimeError: a bug in refbot"
    assert ends[3].detail == "items Q1: RuntimeError: a bug in refbot (tried 4 times)"
    assert ledger.queue(run.id).error == ends[3].detail
    ledger.close()

    ini = tmp_path / "refbot.ini"
    ini.write_text(ini_text({"run_ledger": str(tmp_path / "runs.sqlite"), "contact": "refbot-test@example.org"}),
                   encoding="utf-8")
    assert main(["--config", str(ini), "run", "--status", str(run.id)]) == 1
    shown = capsys.readouterr().out
    assert "not finished; error: items Q1: RuntimeError: a bug in refbot (tried 4 times)" in shown, shown


def test_a_worker_that_died_with_an_item_in_hand_is_reported_by_the_next_and_three_such_deaths_fail_it(
        tmp_path, caplog, capsys):
    """A worker whose process dies mid-item leaves the item in its hand in the ledger: the next worker to start on
    it logs that as refbot's error; a task that ends in refbot's hands (to be tried again) lets go, and is no death;
    after three deaths on one item it fails for good, named, instead of taking down a fourth worker."""
    ledger = RunLedger(tmp_path / "runs.sqlite", clock=clock)
    run = enqueued(ledger)
    parts = FailingParts(OPTIONS)  # each check fails in refbot's hands: the task is tried again, the item let go
    assert ledger.start_item(run, "Q1", "w1@host").go  # w1 takes Q1 and its process dies
    caplog.set_level("ERROR", logger="refbot.worker")
    end = perform(parts, ledger, *task(ledger, run.id, ["Q1"]), worker="w2@host")
    assert end.kind == "retry"
    assert [record.getMessage() for record in caplog.records] == [
        f"run {run.id} item Q1: 1 worker(s) ended while checking it, the last w1@host (its process died mid-item: "
        "a crash, a kill or the machine; see that worker's log): refbot's error"]
    caplog.clear()
    end = perform(parts, ledger, *task(ledger, run.id, ["Q1"]), worker="w2@host", attempt=1)
    assert end.kind == "retry" and caplog.records == [], "a task tried again let go of its item: no death"
    for dead in ("w3@host", "w4@host"):
        assert ledger.start_item(run, "Q1", dead).go  # taken, and the process dies
    end = perform(parts, ledger, *task(ledger, run.id, ["Q1"]), worker="w5@host")
    assert end.kind == "failed" and parts.asked == 2, "the third death fails the item before it is checked"
    assert end.detail == ("items Q1: 3 worker(s) ended while checking it, the last w4@host; left unchecked rather "
                          "than end another worker (read those workers' logs, where a crash prints its stack; then "
                          "enqueue the worklist again)")
    assert ledger.queue(run.id).error == end.detail and ledger.unfinished_items(run) == ["Q1", "Q2"]
    ledger.close()


def test_a_task_whose_ledger_fails_while_its_run_is_read_is_tried_again_not_dropped(tmp_path):
    ledger = RunLedger(tmp_path / "runs.sqlite", clock=clock)
    run = enqueued(ledger)
    message = task(ledger, run.id, ["Q1"])
    with ledger.transaction() as connection:  # the ledger's tables gone from under the worker
        connection.exec_driver_sql("ALTER TABLE runs RENAME TO runs_gone")
    end = perform(FailingParts(OPTIONS), ledger, *message, attempt=0, retries=2, retry_delay=1.0)
    assert end.kind == "retry" and end.retry_in == 1.0 and "the run ledger" in end.detail, end
    end = perform(FailingParts(OPTIONS), ledger, *message, attempt=2, retries=2, retry_delay=1.0)
    assert end.kind == "failed" and end.detail.endswith("(tried 3 times)"), end


def test_an_error_that_cannot_succeed_fails_at_once(tmp_path):
    """No search engine configured for a run that searches the web: no second try would find one."""
    ledger = RunLedger(tmp_path / "runs.sqlite", clock=clock)
    options = OPTIONS.replaced(check_source="web", search_backend="")
    run = enqueued(ledger, options)
    end = perform(Wiring(options), ledger, *task(ledger, run.id, ["Q2"]), attempt=0, retries=8)
    assert end.kind == "failed" and "no web search engine is configured" in end.detail
    assert "no web search engine is configured" in ledger.queue(run.id).error


def test_a_worker_serves_the_runs_enqueued_with_its_settings_and_names_what_differs_in_the_others(tmp_path):
    ledger = RunLedger(tmp_path / "runs.sqlite", clock=clock)
    same = enqueued(ledger, OPTIONS, ("Q1",))
    other = enqueued(ledger, OPTIONS.replaced(paragraph_min_chars=150, search_results=9), ("Q1", "Q2"))
    again = enqueued(ledger, OPTIONS.replaced(run_recheck_days=0), ("Q1", "Q2", "Q3"))  # shapes the worklist only
    decided = {shared.run.id: refusal for shared, refusal in servable(OPTIONS, ledger.shared_runs())}
    assert decided[same.id] is None and decided[again.id] is None
    assert decided[other.id] == ("it was enqueued with other settings than this worker's: "
                                 "[paragraph] min_chars (the run's 150, this worker's 100); "
                                 "[search] results (the run's 9, this worker's 5)")


def test_the_settings_a_run_is_bound_to_cover_what_changes_an_outcome():
    changed = {"paragraph_min_chars": 150, "search_backend": "brave", "wikipedia_wiki": "dewiki",
               "sparql_endpoint": "https://query.example/sparql", "languages": ("de",), "threshold": 0.7,
               "check_top": 5, "judge_model": "other", "wikidata_api_url": "https://wd.example/w/api.php"}
    for name, value in changed.items():
        assert settings_key(OPTIONS.replaced(**{name: value})) != settings_key(OPTIONS), name
    for name, value in {"run_recheck_days": 0.0, "check_workers": 7, "fetch_delay": 3.0, "judge_url":
                        "http://judge.example/v1", "queue_prefix": "secret"}.items():
        assert settings_key(OPTIONS.replaced(**{name: value})) == settings_key(OPTIONS), name
    assert "calibration" in shared_settings.outcome_settings(OPTIONS)


def test_the_tool_prefix_is_the_option_or_the_ledgers_database_name():
    assert tool_prefix(OPTIONS.replaced(queue_prefix="s3cr3t-tool")) == "s3cr3t-tool"
    toolsdb = "mysql+pymysql://s1234@tools.db.svc.wikimedia.cloud/s1234__refbot"
    assert tool_prefix(OPTIONS.replaced(run_ledger=toolsdb)) == "s1234__refbot"
    assert tool_prefix(OPTIONS.replaced(run_ledger=Path("/srv/refbot/runs.sqlite"))) == "runs"


def test_enqueue_asks_the_broker_before_it_opens_the_run(tmp_path, capsys):
    dead = f"redis://127.0.0.1:{free_port()}/0"
    options = OPTIONS.replaced(queue_broker=dead, sparql_endpoint=f"http://127.0.0.1:{free_port()}/sparql")
    ledger = RunLedger(tmp_path / "runs.sqlite", clock=clock)
    broker = CeleryBroker(make_app(options.queue, prefix="t:", default_queue="idle"), dead)
    with pytest.raises(ServiceError, match=r"the queue at redis://127.0.0.1:\d+/0: .*no run was opened"):
        enqueue(Wiring(options), Worklist.of_items(["Q1"]), ledger, broker)
    assert ledger.latest_run() is None
    ledger.close()

    items = tmp_path / "items.txt"
    items.write_text("Q1\n", encoding="utf-8")
    ini = tmp_path / "refbot.ini"
    for broker_url, status, said in ((dead, 1, "refbot: error: the queue at redis://127.0.0.1:"),
                                     ("redis://:secret@[::1", 2, "refbot: error: queue broker: not a URL")):
        ini.write_text(ini_text({"run_ledger": str(tmp_path / "runs.sqlite"), "contact": "refbot-test@example.org",
                                 "queue_broker": broker_url, "sparql_endpoint": options.sparql.endpoint}),
                       encoding="utf-8")
        assert main(["--config", str(ini), "run", "--enqueue", "--items", str(items)]) == status
        error = capsys.readouterr().err
        assert error.startswith(said) and error.count("\n") == 1 and "secret" not in error, error
    assert RunLedger(tmp_path / "runs.sqlite").latest_run() is None, "no run left half-open"
