"""A task message is input: the envelope a real Celery sends through a real Redis is read as the task it carries, and
every other shape anyone who can write to that Redis might put on a queue — not JSON, the wrong types, unknown
headers Celery would take into the task's context, an ETA or time limit that stops a worker, callbacks, an item id
that is none, a run that is no run id, a message of 1.5 MB — is refused, with the reason a worker logs."""

from __future__ import annotations

import base64
import copy
import json
from datetime import datetime, timedelta, timezone

import pytest
import redis

from bot.distributed.app import CeleryBroker, make_app
from bot.distributed.messages import MAX_BYTES, BadMessage, TaskMessage, check_envelope, envelope_refusal
from bot.distributed.work import MAX_RETRY_DELAY_S
from bot.options import QueueOptions

LEDGER = "0123456789abcdef"


@pytest.fixture(scope="module")
def envelope(redis_server) -> dict:
    """What `refbot run --enqueue` puts on a run's queue, as Redis holds it."""
    url = redis_server.url("5")
    app = make_app(QueueOptions(broker=url), prefix="t-messages:", default_queue="idle")
    CeleryBroker(app, url).send("q", TaskMessage(LEDGER, 7, ("Q990201", "Q990202")))
    raw = redis.Redis.from_url(url).rpop("t-messages:q")
    return json.loads(raw)


def test_the_envelope_celery_sends_is_read_as_its_task(envelope):
    assert check_envelope(json.dumps(envelope)) == TaskMessage(LEDGER, 7, ("Q990201", "Q990202"))
    assert envelope_refusal(json.dumps(envelope), "q") is None
    assert envelope_refusal(json.dumps(envelope), "other") == "it names queue 'q' but was on queue other"
    redelivered = copy.deepcopy(envelope)  # as kombu gives back a dead worker's task
    redelivered["headers"]["redelivered"] = redelivered["properties"]["delivery_info"]["redelivered"] = True
    redelivered["redelivered"] = True
    assert envelope_refusal(json.dumps(redelivered)) is None


def _with_body(envelope: dict, args: list, kwargs: dict | None = None, embed: dict | None = None) -> str:
    changed = copy.deepcopy(envelope)
    nothing_after = {"callbacks": None, "errbacks": None, "chain": None, "chord": None}
    body = [args, kwargs or {}, embed if embed is not None else nothing_after]
    changed["body"] = base64.b64encode(json.dumps(body).encode()).decode()
    return json.dumps(changed)


def _changed(envelope: dict, path: tuple[str, ...], value: object) -> str:
    changed = copy.deepcopy(envelope)
    target = changed
    for key in path[:-1]:
        target = target[key]
    if value is KeyError:
        del target[path[-1]]
    else:
        target[path[-1]] = value
    return json.dumps(changed)


def _task(ledger: object = LEDGER, run: object = 7, items: object = ("Q1",)) -> dict:
    return {"ledger": ledger, "run": run, "items": list(items) if isinstance(items, tuple) else items}


HOSTILE = {
    "not JSON": (lambda e: "not json", "not JSON"),
    "a list": (lambda e: "[]", "not a message"),
    "a string": (lambda e: '"x"', "not a message"),
    "an empty object": (lambda e: "{}", "lack body"),
    "no properties": (lambda e: _changed(e, ("properties",), KeyError), "lack properties"),
    "properties a list": (lambda e: _changed(e, ("properties",), []), "properties in the message"),
    "headers null": (lambda e: _changed(e, ("headers",), None), "headers in the message"),
    "a header Celery would take into the task's context": (
        lambda e: _changed(e, ("headers", "is_eager"), True), "include 'is_eager'"),
    "a time limit that is no number": (lambda e: _changed(e, ("headers", "timelimit"), "x"), "timelimit"),
    "an ETA that is no time": (lambda e: _changed(e, ("headers", "eta"), "x"), "eta"),
    "another task": (lambda e: _changed(e, ("headers", "task"), "celery.chord_unlock"), "not refbot.check_items"),
    "pickle": (lambda e: _changed(e, ("content-type",), "application/x-python-serialize"), "not JSON"),
    "a body that is not base64": (lambda e: _changed(e, ("body",), "!!!"), "not base64-encoded JSON"),
    "a delivery tag that is no text": (lambda e: _changed(e, ("properties", "delivery_tag"), 5), "delivery_tag"),
    "callbacks": (lambda e: _with_body(e, [_task()], embed={"callbacks": [{"task": "x"}]}), "other tasks"),
    "keyword arguments": (lambda e: _with_body(e, [], {"run": 7}), "not one task description"),
    "two arguments": (lambda e: _with_body(e, [7, ["Q1"]]), "not one task description"),
    "a run as text": (lambda e: _with_body(e, [_task(run="7")]), "not a run id"),
    "a run of 0": (lambda e: _with_body(e, [_task(run=0)]), "not a run id"),
    "a run that is true": (lambda e: _with_body(e, [_task(run=True)]), "not a run id"),
    "items as text": (lambda e: _with_body(e, [_task(items="Q1")]), "not a list of item ids"),
    "no items": (lambda e: _with_body(e, [_task(items=[])]), "not a list of item ids"),
    "a property for an item": (lambda e: _with_body(e, [_task(items=("P31",))]), "'P31' is not an item id"),
    "an item id with a space": (lambda e: _with_body(e, [_task(items=("Q1 ",))]), "is not an item id"),
    "an item id of 0": (lambda e: _with_body(e, [_task(items=("Q0",))]), "is not an item id"),
    "an item as a number": (lambda e: _with_body(e, [_task(items=[1])]), "1 is not an item id"),
    "an item twice": (lambda e: _with_body(e, [_task(items=("Q1", "Q1"))]), "an item twice"),
    "a ledger that is no identity": (lambda e: _with_body(e, [_task(ledger="../x")]), "not a ledger's identity"),
    "another key": (lambda e: _with_body(e, [_task() | {"recheck_days": 0}]), "not ledger, run and items"),
    "too many items": (lambda e: _with_body(e, [_task(items=tuple(f"Q{n}" for n in range(1, 1002)))]),
                       "1001 items"),
    "1.5 MB listing 100,000 items": (
        lambda e: _with_body(e, [_task(items=tuple(f"Q{n}" for n in range(1, 100_001)))]), "more than a task takes"),
}


def test_a_message_held_for_later_than_refbots_longest_retry_or_that_expires_is_refused(envelope):
    """Redis would hold a far-future task and hand it out again at each visibility timeout, bringing back its queue
    after the run ended; refbot's own retries wait at most an hour, and its tasks never expire."""
    now = datetime(2026, 12, 2, 13, 0, tzinfo=timezone.utc)
    retry = (now + timedelta(seconds=MAX_RETRY_DELAY_S)).isoformat()
    assert check_envelope(_changed(envelope, ("headers", "eta"), retry), now=now).run == 7, "a retry of refbot's"
    assert check_envelope(_changed(envelope, ("headers", "eta"), "2026-12-02T12:59:00"), now=now).run == 7
    for later in ("2027-12-02T13:00:00+00:00", (now + timedelta(seconds=MAX_RETRY_DELAY_S + 900)).isoformat(),
                  "9999-12-31T23:59:59"):
        with pytest.raises(BadMessage, match="later than any retry of refbot's"):
            check_envelope(_changed(envelope, ("headers", "eta"), later), now=now)
    assert envelope_refusal(_changed(envelope, ("headers", "expires"), retry), now=now) == \
        "it expires, which no task of refbot's does"


@pytest.mark.parametrize("name", HOSTILE)
def test_a_hostile_message_is_refused_with_its_reason(envelope, name):
    make, reason = HOSTILE[name]
    raw = make(envelope)
    with pytest.raises(BadMessage, match=None) as refused:
        check_envelope(raw)
    assert reason in str(refused.value), str(refused.value)
    assert envelope_refusal(raw.encode()) == str(refused.value)


def test_the_size_cap_is_checked_before_the_message_is_read():
    assert "more than a task takes" in envelope_refusal(b"[" * (MAX_BYTES + 1))
