"""Each host's turn held for every worker in a real Redis server: requests of two workers to one host never overlap
and keep the pause between them; a Crawl-delay one worker reads slows every worker; a worker killed holding a turn
keeps the host from the others for one lease at most."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import threading
import time

import redis
import requests

from bot.distributed.politeness import LEASE_S, SharedPoliteness
from bot.documents.politeness import host_key
from conftest import ROOT


def test_two_workers_take_turns_on_a_host_with_the_pause_between(redis_server, recording_server):
    from servers import Reply

    recording_server.script = lambda request: Reply(200, "ok", delay=0.1)
    url = recording_server.url + "/page"
    workers = [SharedPoliteness(redis.Redis.from_url(redis_server.url("1")), 0.3, prefix="t1") for _ in range(2)]

    def fetch(politeness: SharedPoliteness) -> None:
        for _ in range(3):
            with politeness.turn(url):
                requests.get(url, timeout=10)

    threads = [threading.Thread(target=fetch, args=(worker,)) for worker in workers]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert len(recording_server.requests) == 6 and recording_server.most_in_flight == 1
    ordered = sorted(recording_server.requests, key=lambda r: r.started)
    gaps = [b.started - a.finished for a, b in zip(ordered, ordered[1:])]
    assert min(gaps) >= 0.28, gaps

    workers[0].slow_down(host_key(url), 1.5)
    assert workers[1].delay_for(host_key(url)) == 1.5, "a Crawl-delay read by one worker holds for all"


HOLD = """
import sys, time, redis
from bot.distributed.politeness import SharedPoliteness
politeness = SharedPoliteness(redis.Redis.from_url(sys.argv[1]), 0.0, prefix="t2")
with politeness.turn("http://example.org/"):
    print("holding", flush=True)
    time.sleep(600)
"""


def test_a_worker_killed_holding_a_turn_keeps_the_host_one_lease_at_most(redis_server):
    url = redis_server.url("1")
    holder = subprocess.Popen([sys.executable, "-c", HOLD, url], stdout=subprocess.PIPE, text=True,
                              env=os.environ | {"PYTHONPATH": str(ROOT)})
    assert holder.stdout.readline().strip() == "holding"
    time.sleep(LEASE_S * 0.8)  # renewed while it lives: still held past most of a lease
    other = SharedPoliteness(redis.Redis.from_url(url), 0.0, prefix="t2")
    blocked = other.client.lock("t2:host:example.org:80:turn", timeout=1, blocking_timeout=0.5)
    assert not blocked.acquire(), "the live holder's lease was renewed"
    holder.send_signal(signal.SIGKILL)
    holder.wait()
    started = time.monotonic()
    with other.turn("http://example.org/"):
        waited = time.monotonic() - started
    assert waited <= LEASE_S + 1.0, waited


def test_redis_gone_stops_the_run_instead_of_becoming_a_pages_outcome():
    """Without Redis no worker may take a host's turn: PartUnavailable (the run stops and its task is tried again),
    never an error recorded as the page's or the statement's outcome."""
    import pytest

    from bot.errors import PartUnavailable
    from databases import free_port

    gone = SharedPoliteness(redis.Redis.from_url(f"redis://127.0.0.1:{free_port()}/0", socket_connect_timeout=1),
                            0.1)
    with pytest.raises(PartUnavailable, match="Redis failed while waiting for example.org:80's turn"):
        with gone.turn("http://example.org/"):
            pass


def test_a_retry_after_one_worker_is_told_holds_every_worker_off_the_host(redis_server):
    from bot.documents.politeness import Politeness

    told, other = (SharedPoliteness(redis.Redis.from_url(redis_server.url("1")), 0.0, prefix="t3") for _ in range(2))
    told.hold_off("example.org:80", 1.0)
    started = time.monotonic()
    with other.turn("http://example.org/"):
        waited = time.monotonic() - started
    assert 0.9 <= waited < 3.0, waited
    alone = Politeness(0.0)
    alone.hold_off("example.org:80", 0.5)
    started = time.monotonic()
    with alone.turn("http://example.org/"):
        assert time.monotonic() - started >= 0.45, "in one process too"


def test_a_turn_held_by_a_key_without_an_expiry_or_a_hold_off_for_ever_does_not_block_a_host(redis_server, caplog):
    """Keys that refbot never writes (a lease without an expiry, a hold-off past any Retry-After, a time that is no
    number), as another tool on a shared Redis or someone with access to it might: the host is served within a
    lease or two, and the lease gets the expiry it lacked."""
    client = redis.Redis.from_url(redis_server.url("1"))
    client.set("t4:host:example.org:80:turn", "held for ever")
    client.set("t4:host:example.org:80:not-before", "1e18")
    client.set("t4:host:example.org:80:last", "not a time")
    client.set("t4:host:example.org:80:delay", "inf")
    politeness = SharedPoliteness(client, 0.0, prefix="t4")
    started = time.monotonic()
    with caplog.at_level("WARNING", logger="refbot.worker"), politeness.turn("http://example.org/"):
        waited = time.monotonic() - started
    assert LEASE_S <= waited <= 2 * LEASE_S + 2, waited
    assert "example.org:80's turn was held by a key without an expiry" in caplog.text
    assert politeness.delay_for("example.org:80") == 0.0
    with politeness.turn("http://example.org/"):
        pass
    assert time.monotonic() - started - waited < 2, "the next turn waits for nothing"


def test_a_lease_is_renewed_while_its_request_runs_longer_than_the_lease(redis_server):
    politeness = SharedPoliteness(redis.Redis.from_url(redis_server.url("1")), 0.0, prefix="t5")
    other = redis.Redis.from_url(redis_server.url("1"))
    with politeness.turn("http://example.org/"):
        time.sleep(LEASE_S * 1.3)
        assert other.exists("t5:host:example.org:80:turn"), "renewed: still held past its first lease"
