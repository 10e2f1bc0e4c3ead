"""The soak benchmark's write phase: a curator approves a few hundred supported statements (and rejects some),
then `refbot apply --live` writes them to the world's Wikibase API stand-in while it answers with faults, and is
SIGKILLed mid-apply and started again until every approved reference is written.

Faults (each injected when the stand-in has taken a drawn number of edits, so they land across the apply):
``maxlag`` (pywikibot waits and retries), ``editconflict`` (the edit fails, stays approved, the next apply reads the
item again), ``badtoken`` (a stale token: pywikibot fetches another), a session the wiki forgets (an expired
login: refbot logs in again), HTTP 500/502/503 and 429. Kills: one while an edit has landed and its answer is held
(the apply never hears back: the next one must find the reference and not write it again), one at a random point.

The proof is the stand-in's own record of revisions: each approved statement got exactly one ``wbsetreference``
by the bot account, no other statement got any, each approved statement holds one reference to its proposed URL,
and the ledger says written (with the stand-in's revision) for each approved statement and nothing for the others.
"""

from __future__ import annotations

import random
import signal
import subprocess
import threading
import time
from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from bot.review.datavalues import reference_urls, same_url
from bot.review.store import ReviewLedger
from bot.ledger.ledger import RunLedger

CURATOR = "Soak Curator"
FAULTS = [("maxlag", {"error": "maxlag"}), ("maxlag", {"error": "maxlag", "times": 2}),
          ("editconflict", {"error": "editconflict"}), ("editconflict", {"error": "editconflict"}),
          ("badtoken", {"error": "badtoken"}), ("session lost", {}), ("HTTP 503", {"status": 503}),
          ("HTTP 502", {"status": 502}), ("HTTP 500", {"status": 500}), ("HTTP 429", {"status": 429, "retry_after": 1})]


@dataclass
class WriteResult:
    approved: int = 0
    rejected: int = 0
    left_proposed: int = 0
    applies: list[str] = field(default_factory=list)  # how each `refbot apply` ended
    written_once: int = 0
    written_twice: list[str] = field(default_factory=list)
    unapproved_written: list[str] = field(default_factory=list)
    not_written: list[str] = field(default_factory=list)
    wrong_reference: list[str] = field(default_factory=list)
    ledger_disagrees: list[str] = field(default_factory=list)
    faults_injected: Counter = field(default_factory=Counter)
    faults_served: Counter = field(default_factory=Counter)
    seconds: float = 0.0
    timed_out: bool = False
    crashed: list[str] = field(default_factory=list)  # applies a signal the soak did not send ended

    @property
    def failures(self) -> list[str]:
        problems = []
        if self.written_twice:
            problems.append(f"{len(self.written_twice)} reference(s) written twice")
        if self.unapproved_written:
            problems.append(f"{len(self.unapproved_written)} statement(s) edited without approval")
        if self.not_written:
            problems.append(f"{len(self.not_written)} approved reference(s) never written")
        if self.wrong_reference:
            problems.append(f"{len(self.wrong_reference)} statement(s) without exactly one reference to the "
                            "proposed URL")
        if self.ledger_disagrees:
            problems.append(f"the ledger disagrees with the wiki on {len(self.ledger_disagrees)} statement(s)")
        if self.timed_out:
            problems.append("the applies did not finish (time limit or too many starts)")
        if self.crashed:
            problems.append(f"{len(self.crashed)} apply process(es) {', '.join(self.crashed)} (refbot's error)")
        return problems


def _edits(wikibase: Any, user: str) -> list[Any]:
    return [revision for revision in wikibase.revisions
            if revision.action == "wbsetreference" and revision.user == user]


def _decide(command: list[str], environment: dict[str, str], cwd: Path, decision: str, run_id: int,
            guids: list[str]) -> None:
    for start in range(0, len(guids), 200):
        subprocess.run([*command, decision, "--run", str(run_id), "--curator", CURATOR,
                        *(["--note", "soak: rejected at random"] if decision == "reject" else []),
                        *guids[start:start + 200]], cwd=cwd, env=environment, check=True,
                       stdout=subprocess.DEVNULL, timeout=600)


def write_phase(world: Any, command: list[str], environment: dict[str, str], tmp: Path, ledger: Path, run_id: int,
                *, approve: int, seed: int, max_seconds: float, max_applies: int = 20) -> WriteResult:
    """Approve, reject, apply under faults and kills; check the stand-in's record (see the module)."""
    result = WriteResult()
    rng = random.Random(seed * 104729 + 3)
    store = ReviewLedger(RunLedger(ledger))
    try:
        proposals = {proposal.guid: proposal for proposal in store.proposals(run_id)}
    finally:
        store.ledger.close()
    supported = sorted(proposals)
    approved = sorted(rng.sample(supported, min(approve, len(supported))))
    others = [guid for guid in supported if guid not in set(approved)]
    rejected = sorted(rng.sample(others, len(others) // 5))
    result.approved, result.rejected = len(approved), len(rejected)
    result.left_proposed = len(supported) - len(approved) - len(rejected)
    _decide(command, environment, tmp, "approve", run_id, approved)
    if rejected:
        _decide(command, environment, tmp, "reject", run_id, rejected)
    print(f"soak: approved {len(approved)}, rejected {len(rejected)}, left {result.left_proposed} proposed; "
          "applying under faults", flush=True)

    wikibase = world.wikibase
    user = world.bot_user
    span = max(2, len(approved) - 1)
    fault_points = sorted(((rng.randrange(1, span), name, spec) for name, spec in FAULTS),
                          key=lambda point: point[:2])  # (two faults may fall on one point: never compare specs)
    kill_points = sorted(rng.sample(range(1, span), min(2, span - 1)))
    held_kill = kill_points[0] if kill_points else None
    stop = threading.Event()

    def inject() -> None:
        pending = list(fault_points)
        while pending and not stop.is_set():
            landed = len(_edits(wikibase, user))
            while pending and landed >= pending[0][0]:
                _, name, spec = pending.pop(0)
                if name == "session lost":
                    wikibase.end_sessions()
                else:
                    spec = dict(spec)
                    wikibase.inject("wbsetreference", spec.pop("error", None), **spec)
                result.faults_injected[name] += 1
            time.sleep(0.02)

    injector = threading.Thread(target=inject, name="soak-faults", daemon=True)
    injector.start()
    started = time.monotonic()
    try:
        while True:
            if len(result.applies) >= max_applies or time.monotonic() - started > max_seconds:
                result.timed_out = True
                break
            number = len(result.applies) + 1
            log = (tmp / f"apply-{number}.log").open("w")
            process = subprocess.Popen([*command, "apply", "--run", str(run_id), "--live"], cwd=tmp,
                                       env=environment, stdout=log, stderr=subprocess.STDOUT)
            how = ""
            while process.poll() is None:
                time.sleep(0.05)
                landed = len(_edits(wikibase, user))
                if kill_points and landed >= kill_points[0]:
                    point = kill_points.pop(0)
                    if point == held_kill:  # the next edit lands, its answer is held, refbot is killed waiting
                        wikibase.delay_answer("wbsetreference", 30)
                        deadline = time.monotonic() + 60
                        while len(_edits(wikibase, user)) == landed and time.monotonic() < deadline \
                                and process.poll() is None:
                            time.sleep(0.02)
                        how = f"SIGKILLed while edit {landed + 1} landed"
                    else:
                        how = f"SIGKILLed after {landed} edits"
                    process.send_signal(signal.SIGKILL)
                    process.wait()
                    wikibase.end_delays()
                    break
            log.close()
            if not how and process.returncode < 0:  # a signal this soak did not send: refbot's error
                how = f"died by {signal.Signals(-process.returncode).name}"
                result.crashed.append(how)
            how = how or f"exited {process.returncode}"
            result.applies.append(f"{how} ({len(_edits(wikibase, user))} edits in all)")
            print(f"soak: refbot apply #{number} {how}; {len(_edits(wikibase, user))} edits landed", flush=True)
            if process.returncode == 0 and not how.startswith("SIGKILL") and _all_written(ledger, run_id, approved):
                break
    finally:
        stop.set()
        injector.join()
        result.seconds = time.monotonic() - started
    result.faults_served = Counter(wikibase.faults_served)
    _check(result, wikibase, user, ledger, run_id, approved, proposals)
    return result


def _all_written(ledger: Path, run_id: int, approved: list[str]) -> bool:
    store = ReviewLedger(RunLedger(ledger))
    try:
        reviews = store.reviews(run_id)
    finally:
        store.ledger.close()
    return all(reviews[guid].state == "written" for guid in approved)


def _check(result: WriteResult, wikibase: Any, user: str, ledger: Path, run_id: int, approved: list[str],
           proposals: dict[str, Any]) -> None:
    edits = _edits(wikibase, user)
    per_statement = Counter(revision.statement for revision in edits)
    revision_of = {revision.statement: revision.revid for revision in edits}
    wanted = set(approved)
    result.written_once = sum(1 for guid in approved if per_statement[guid] == 1)
    result.written_twice = sorted(guid for guid, count in per_statement.items() if count > 1)
    result.unapproved_written = sorted(set(per_statement) - wanted)
    result.not_written = sorted(guid for guid in approved if per_statement[guid] == 0)
    for guid in approved:
        references = wikibase.statement(guid).get("references") or []
        matching = [reference for reference in references
                    if any(same_url(url, proposals[guid].url) for url in reference_urls({"references": [reference]}))]
        if len(references) != 1 or len(matching) != 1:
            result.wrong_reference.append(guid)
    store = ReviewLedger(RunLedger(ledger))
    try:
        reviews = store.reviews(run_id)
    finally:
        store.ledger.close()
    for guid, review in reviews.items():
        if guid in wanted:
            good = review.state == "written" and review.revision in (None, revision_of.get(guid))
        else:
            good = review.state in ("proposed", "rejected")
        if not good:
            result.ledger_disagrees.append(guid)


def print_writes(result: WriteResult) -> None:
    print("\n== soak: writes (refbot apply --live against the Wikibase stand-in) ==")
    print(f"  {'approved / rejected / left proposed':<34} {result.approved} / {result.rejected} / "
          f"{result.left_proposed}")
    print(f"  {'written exactly once':<34} {result.written_once:>8}   of {result.approved} approved")
    print(f"  {'written twice (must be 0)':<34} {len(result.written_twice):>8}")
    print(f"  {'edited without approval (must be 0)':<34} {len(result.unapproved_written):>8}")
    print(f"  {'approved, never written (must be 0)':<34} {len(result.not_written):>8}")
    print(f"  {'not one reference to the URL':<34} {len(result.wrong_reference):>8}")
    print(f"  {'ledger disagrees with the wiki':<34} {len(result.ledger_disagrees):>8}")
    injected = ", ".join(f"{name} × {count}" for name, count in sorted(result.faults_injected.items()))
    print(f"  {'faults injected':<34} {injected}")
    print(f"  {'faults answered by the stand-in':<34} " + ", ".join(
        f"{name} × {count}" for name, count in sorted(result.faults_served.items())))
    for number, how in enumerate(result.applies, start=1):
        print(f"  refbot apply #{number}: {how}")
    rate = result.approved / result.seconds * 60 if result.seconds else 0.0
    print(f"  {'apply phase':<34} {result.seconds:>8.1f} s   ({rate:.0f} approved references/minute, kills, "
          "waits for maxlag and retries included)")
