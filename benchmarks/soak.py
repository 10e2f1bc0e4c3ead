#!/usr/bin/env python3
"""A soak run: `refbot run` over a generated Wikidata-shaped world on loopback, with faults, killed and resumed.

    benchmarks/soak.py [--statements 1000] [--items 300] [--hosts 24] [--seed 1] [--kills 3] [--approve 300]
                       [--workdir DIR]
    benchmarks/soak.py --statements 60 --items 20 --hosts 20 --approve 40   # the short version (tests/test_soak.py)

The world (``benchmarks/soak_world.py``): ``--statements`` unsourced statements over ``--items`` invented people in
Oxigraph (with the demo world's property declarations and citation-needed constraints), their pages on ``--hosts``
loopback hosts, the demo's search, Wikipedia and Wayback stand-ins. Faults: ~10 % of page requests answer 5xx,
~5 % hang past the read timeout, ~5 % of pages are dead (half with an archived copy), ~4 % are hostile (10 MB
bodies, binary as text/html, invalid UTF-8, NUL and control characters, ``<script>``, ``]]>``, ``</textarea>``,
``javascript:`` links, 10,000-paragraph pages, a malformed PDF); the SPARQL endpoint sits behind a proxy that
answers 429 with ``Retry-After: 1`` for ~3 % of requests; the Wikidata API, Wikipedia, the Wayback Machine and search
answer 503 to ~3 % of reads. ~90 % of the people carry an identifier whose authority record (Turtle, RDF/XML or
JSON-LD) is served on loopback: plain records that state none of the statements' values, and ~5 % hostile ones of
every kind ``benchmarks/hostile_records.py`` makes (a quadratic literal, a billion laughs, 19,000 facts, a
250,014-triple dump, JSON-LD naming contexts at a local file, at a loopback port outside the world, at a link-local
address), each at least once. refbot may fetch only from the world's own ports. The judge is the ``openai`` backend
against llama.cpp's server (``scripts/llama_server.py``) with the small test model; that server is SIGKILLed once
mid-run and started again. `refbot run` itself is SIGKILLed ``--kills`` times, at random numbers of finished
statements, and started again each time (also after it stops with exit 1 because the judge went away) until it
exits 0.

Then the write phase (``benchmarks/soak_writes.py``): a curator approves ``--approve`` supported statements and
rejects a fifth of the rest; `refbot apply --live` writes to the world's Wikibase API stand-in while it answers
maxlag, edit conflicts, a stale token, a lost session, 5xx and 429, and is SIGKILLed once while an edit lands (its
answer held) and once at random, and started again until every approved reference is written. The stand-in's own
record of revisions is the proof: each approved statement edited once by the bot, no other statement edited.

At the end it prints: statements per outcome, lost (must be 0), checked twice (must be 0), the authority records
served per kind and what refbot made of each hostile one, requests that reached the refused loopback server (must be
0), outcomes a record changed (must be 0: no record states a value), whether the trace is
valid against xslt/trace.xsd, whether the HTML report, opened in headless Chromium, ran no script and kept every
statement in its element, the writes (once each, none unapproved, the faults served), statements/hour, peak RSS and
how the resident set grows as statements are checked, ledger and trace sizes, and where the time went. Exit status
1 if a statement was lost or checked twice, a statement ended in error or refbot printed a traceback, a hostile
record kind was never asked for, a request reached the refused server, a record changed an outcome, the trace is
invalid, the report ran a script, the run did not finish, or a reference was written twice, written without approval
or never written.

Lost: a generated GUID without a row in the ledger's ``checks`` for the (single, resumed) run. Checked twice: a
duplicate (run, GUID) row (the primary key forbids them), or a row that was seen, while refbot ran (the ledger is
read every 0.25 s), and later replaced or removed — a finished statement checked again. Beside it, "searched more
than once" counts the search stand-in's queries asked twice: statements in flight when refbot was killed or stopped,
which are checked again by design (at most one per worker per interruption). Peak RSS is each process's VmHWM,
read every 0.25 s. The time split sums the trace's per-statement ``<stage>`` seconds (worker-seconds: statements
run ``--workers`` at a time); "waiting" is the refbot processes' worker-seconds outside any stage.
"""

from __future__ import annotations

import argparse
import os
import random
import shutil
import signal
import sqlite3
import statistics
import subprocess
import sys
import tempfile
import threading
import time
from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit

import requests

ROOT = Path(__file__).resolve().parent.parent
sys.path[:0] = [str(ROOT), str(Path(__file__).resolve().parent)]

from bot.output import trace as traces  # noqa: E402
from bot.demo.world import free_port  # noqa: E402
from bot.options import ini_text  # noqa: E402
from soak_world import HOSTILE_RECORDS, HOSTILE_TEXT, PWNED, Rates, SoakWorld, SparqlProxy, generate  # noqa: E402
from soak_writes import WriteResult, print_writes, write_phase  # noqa: E402


def peak_rss(pid: int, field: str = "VmHWM") -> int:
    """The process's peak resident set so far (VmHWM; VmRSS: its resident set now), in bytes; 0 once it is gone."""
    try:
        for line in Path(f"/proc/{pid}/status").read_text().splitlines():
            if line.startswith(f"{field}:"):
                return int(line.split()[1]) * 1024
    except (OSError, ValueError, IndexError):
        pass
    return 0


def rss_by_tenth(samples: list[tuple[int, int]]) -> list[tuple[int, int]]:
    """(statements done at the tenth's end, median VmRSS) for each tenth of an invocation's statements, from its
    samples of (statements done, VmRSS), the start-up before the first statement left out; a memory that grows
    with the statements climbs from tenth to tenth, a bounded one levels off. [] when it did too little to tell."""
    samples = [(done, rss) for done, rss in samples if rss and done > samples[0][0]]
    if len(samples) < 20 or samples[-1][0] - samples[0][0] < 20:
        return []
    first, last = samples[0][0], samples[-1][0]
    tenths = []
    for tenth in range(10):
        low, high = first + (last - first) * tenth / 10, first + (last - first) * (tenth + 1) / 10
        inside = [rss for done, rss in samples if low <= done <= high]
        if inside:
            tenths.append((round(high), int(statistics.median(inside))))
    return tenths


def mb(size: float) -> str:
    return f"{size / 1e6:,.1f} MB"


@dataclass
class JudgeServer:
    """llama.cpp's server in a child process, on a fixed port, that can be killed and started again."""

    model: str
    port: int
    parallel: int = 2
    ctx: int = 4096
    process: subprocess.Popen | None = None
    peak: int = 0
    starts: list[float] = field(default_factory=list)

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.port}/v1"

    def start(self) -> None:
        began = time.monotonic()
        for _attempt in range(3):
            self.process = subprocess.Popen(
                [sys.executable, str(ROOT / "scripts" / "llama_server.py"), self.model, str(self.port),
                 "--parallel", str(self.parallel), "--ctx", str(self.ctx)],
                stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
            deadline = time.monotonic() + 120
            while time.monotonic() < deadline and self.process.poll() is None:
                if self.healthy():
                    self.starts.append(time.monotonic() - began)
                    return
                time.sleep(0.2)
            self.kill()
            time.sleep(2)  # the port may still be held
        raise RuntimeError("llama.cpp's server did not start")

    def healthy(self) -> bool:
        try:
            return requests.get(f"http://127.0.0.1:{self.port}/health", timeout=1).ok
        except requests.RequestException:
            return False

    def watch(self) -> None:
        if self.process is not None and self.process.poll() is None:
            self.peak = max(self.peak, peak_rss(self.process.pid))

    def kill(self) -> None:
        if self.process is not None and self.process.poll() is None:
            self.watch()
            self.process.send_signal(signal.SIGKILL)
            self.process.wait()


@dataclass
class Invocation:
    number: int
    done_before: int
    started: float
    pid: int = 0
    ended: float = 0.0
    done_after: int = 0
    returncode: int | None = None
    killed: bool = False
    peak: int = 0
    log: Path | None = None
    samples: list[tuple[int, int]] = field(default_factory=list)  # (statements done, VmRSS)

    @property
    def how(self) -> str:
        return "SIGKILL (soak)" if self.killed else signal_death(self.returncode) or f"exit {self.returncode}"

    @property
    def crashed(self) -> bool:
        """It died by a signal the soak did not send: refbot's own error."""
        return not self.killed and bool(signal_death(self.returncode))


def signal_death(returncode: int | None) -> str:
    """"died by SIGSEGV" for a process a signal ended ("" otherwise)."""
    if returncode is None or returncode >= 0:
        return ""
    try:
        return f"died by {signal.Signals(-returncode).name}"
    except ValueError:
        return f"died by signal {-returncode}"


class LedgerWatch:
    """Reads the ledger's checks while refbot runs: a statement whose row changes or vanishes after it was seen
    was checked (or recorded) twice."""

    def __init__(self, path: Path) -> None:
        self.path = path
        self.seen: dict[str, tuple[int, str, str]] = {}
        self.changed: set[str] = set()
        self.vanished: set[str] = set()

    def poll(self) -> int:
        if not self.path.exists():
            return len(self.seen)
        try:
            db = sqlite3.connect(str(self.path), timeout=5)
            try:
                rows = db.execute("SELECT guid, rowid, checked, outcome FROM checks").fetchall()
            finally:
                db.close()
        except sqlite3.Error:
            return len(self.seen)
        now = {guid: (rowid, checked, outcome) for guid, rowid, checked, outcome in rows}
        for guid, row in now.items():
            if guid in self.seen and self.seen[guid] != row:
                self.changed.add(guid)
            self.seen[guid] = row
        self.vanished |= {guid for guid in self.seen if guid not in now}
        return len(now)


def run_finished(ledger: Path) -> bool:
    """The ledger's latest run is marked finished (every statement done)."""
    db = sqlite3.connect(str(ledger), timeout=5)
    try:
        row = db.execute("SELECT finished FROM runs ORDER BY id DESC LIMIT 1").fetchone()
    finally:
        db.close()
    return bool(row and row[0])


def refbot_command(ini: Path) -> list[str]:
    refbot = Path(sys.executable).parent / "refbot"
    return [str(refbot if refbot.exists() else shutil.which("refbot") or "refbot"), "--config", str(ini), "-q"]


def last_run(ledger: Path) -> int:
    db = sqlite3.connect(str(ledger))
    try:
        return int(db.execute("SELECT MAX(id) FROM runs").fetchone()[0])
    finally:
        db.close()


def kill_points(rng: random.Random, statements: int, kills: int) -> list[int]:
    low, high = max(2, statements // 10), max(3, statements * 9 // 10)
    span = list(range(low, high))
    return sorted(rng.sample(span, min(kills, len(span))))


def run_refbot(args: argparse.Namespace, ini: Path, items: Path, tmp: Path, ledger: Path, judge: JudgeServer,
               started: float) -> tuple[list[Invocation], LedgerWatch, dict[str, Any]]:
    """`refbot run` until it exits 0: SIGKILLed at the kill points, the judge killed once; each stop resumed."""
    rng = random.Random(args.seed * 7919 + 1)
    kills = kill_points(rng, args.statements, args.kills)
    judge_kill = rng.randint(max(1, args.statements * 3 // 10), max(2, args.statements * 7 // 10))
    print(f"soak: SIGKILL refbot at {kills} finished statements; kill the judge at {judge_kill}", flush=True)
    command = [*refbot_command(ini), "run", "--items", str(items)]
    environment = {**os.environ, "HF_HUB_OFFLINE": "1", "TRANSFORMERS_OFFLINE": "1"}
    watch = LedgerWatch(ledger)
    invocations: list[Invocation] = []
    events: dict[str, Any] = {"kills": [], "judge_killed_at": None, "judge_down_s": 0.0, "timed_out": False}
    restarter: threading.Thread | None = None
    deadline = started + args.max_minutes * 60
    while True:
        done = watch.poll()
        if kills and kills[0] < done + 2:  # a kill lands on work this invocation did
            kills = [max(point, done + 2 + n) for n, point in enumerate(kills)]
        number = len(invocations) + 1
        invocation = Invocation(number, done, time.monotonic(), log=tmp / f"refbot-{number}.log")
        with invocation.log.open("w") as log:
            process = subprocess.Popen(command, cwd=tmp, stdout=log, stderr=subprocess.STDOUT, env=environment)
        invocation.pid = process.pid
        invocations.append(invocation)
        while process.poll() is None:
            time.sleep(0.25)
            invocation.peak = max(invocation.peak, peak_rss(process.pid))
            judge.watch()
            done = watch.poll()
            invocation.samples.append((done, peak_rss(process.pid, "VmRSS")))
            if time.monotonic() > deadline:
                events["timed_out"] = True
                process.send_signal(signal.SIGKILL)
                process.wait()
                invocation.killed = True
                break
            if kills and done >= kills[0]:
                process.send_signal(signal.SIGKILL)
                process.wait()
                invocation.killed = True
                events["kills"].append(done)
                kills.pop(0)
                break
            if events["judge_killed_at"] is None and done >= judge_kill:
                judge.kill()
                events["judge_killed_at"] = done
                down = time.monotonic()

                def restart(down: float = down) -> None:
                    time.sleep(args.judge_down)
                    judge.start()
                    events["judge_down_s"] = time.monotonic() - down
                restarter = threading.Thread(target=restart, name="judge-restart", daemon=True)
                restarter.start()
        invocation.returncode = process.returncode
        invocation.ended = time.monotonic()
        invocation.done_after = watch.poll()
        status = "SIGKILLed" if invocation.killed else signal_death(process.returncode) or \
            f"exited {process.returncode}"
        print(f"soak: refbot #{invocation.number} {status} after {invocation.ended - invocation.started:.0f} s, "
              f"{invocation.done_after}/{args.statements} statements in the ledger", flush=True)
        if process.returncode == 0 and not invocation.killed:
            break
        if not invocation.killed and run_finished(ledger):  # exit 1 for statements that ended in error
            break
        if events["timed_out"] or len(invocations) >= args.max_invocations:
            events["timed_out"] = True
            break
        if restarter is not None:
            restarter.join()
        while not judge.healthy():
            time.sleep(0.5)
    if restarter is not None:
        restarter.join()
    return invocations, watch, events


def record_outcomes(records: dict[str, str], reasons: dict[str, str]) -> dict[str, tuple[str, ...]]:
    """What refbot made of each kind of record: ``records`` is each record's kind by ``host/path``, ``reasons`` what
    the trace says of a record, by ``host/path``."""
    made: dict[str, set[str]] = {}
    for key, reason in reasons.items():
        made.setdefault(records.get(key, "unknown"), set()).add(reason)
    return {kind: tuple(sorted(found)) for kind, found in made.items()}


def read_in_trace(record: Any) -> str:
    """A trace's ``<record>`` in a few words: ``read`` (with its triples) or why it was not."""
    reason = record.findtext(traces.tag("reason")) or ""
    prefix = "the record could not be read: "
    if reason.startswith(prefix):
        return "not read: " + reason[len(prefix):]
    triples = int(record.get("triples") or 0)
    return f"read, {triples:,} triple{'' if triples == 1 else 's'}"


def browser_check(html: Path, trace_guids: set[str], hostile_in_trace: dict[str, int],
                  quickstatements: int) -> dict[str, Any]:
    """The report in headless Chromium (Debian's chromium + chromedriver through Selenium)."""
    import lxml.html
    from selenium import webdriver
    from selenium.webdriver.chrome.service import Service
    from selenium.webdriver.support.ui import WebDriverWait

    chromium = shutil.which("chromium") or shutil.which("chromium-browser")
    chromedriver = shutil.which("chromedriver")
    if chromium is None or chromedriver is None:
        return {"error": "chromium and chromedriver are needed"}
    expected_title = lxml.html.parse(str(html)).find(".//title").text_content()
    options = webdriver.ChromeOptions()
    options.binary_location = chromium
    profile = tempfile.mkdtemp(prefix="soak-chromium-")
    for flag in ("--headless=new", "--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage", "--no-proxy-server",
                 "--disable-extensions", "--no-first-run", f"--user-data-dir={profile}"):
        options.add_argument(flag)
    driver = webdriver.Chrome(service=Service(executable_path=chromedriver), options=options)
    driver.set_page_load_timeout(180)
    try:
        driver.get(html.as_uri())
        # A 600 KB report on a busy machine: count its statements only once the whole document is parsed (a CI
        # run once counted 6 of 60, the rest not yet in the DOM).
        WebDriverWait(driver, 120).until(lambda d: d.execute_script("return document.readyState") == "complete")
        found = driver.execute_script("""
            const sections = Array.from(document.querySelectorAll('section.statement'));
            const markers = arguments[0];
            return {
              title: document.title,
              pwned: typeof window.soakPwned !== 'undefined',
              scripts: document.querySelectorAll('script').length,
              jsLinks: document.querySelectorAll('a[href^="javascript:" i]').length,
              injected: document.querySelectorAll(
                'body iframe, body object, body embed, body textarea:not(.qs), body form, body base, body img, '
                + 'body link, body meta, body style, body frame, body svg').length,
              quickstatements: sections.reduce((n, s) => n + s.querySelectorAll('textarea.qs').length, 0),
              textareas: document.querySelectorAll('textarea').length,
              guids: sections.map(s => s.getAttribute('data-guid')),
              nested: sections.filter(s => s.parentElement.closest('section.statement') !== null).length,
              shown: Object.fromEntries(markers.map(m => [m, sections.filter(s => s.textContent.includes(m)).length])),
            };""", list(hostile_in_trace))
    finally:
        driver.quit()
        shutil.rmtree(profile, ignore_errors=True)
    guids = found["guids"]
    return {
        "title unchanged": found["title"] == expected_title and "pwned" not in found["title"],
        "script elements": found["scripts"], "javascript: links": found["jsLinks"], "script ran": found["pwned"],
        "foreign elements in body": found["injected"], "statements shown": len(guids),
        "statements in their own element": len(guids) == len(set(guids)) == len(trace_guids)
        and set(guids) == trace_guids and found["nested"] == 0 and found["quickstatements"] == quickstatements
        == found["textareas"],
        "QuickStatements boxes (in statements / all / in the trace)":
            (found["quickstatements"], found["textareas"], quickstatements),
        "hostile strings (statements showing it as text / whose trace holds it)":
            {marker: (found["shown"][marker], count) for marker, count in hostile_in_trace.items()},
    }


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--statements", type=int, default=1000, help="unsourced statements to check (1000)")
    parser.add_argument("--items", type=int, help="items they belong to (default: statements / 3.3)")
    parser.add_argument("--hosts", type=int, default=24, help="loopback hosts serving pages (24; at least 20)")
    parser.add_argument("--seed", type=int, default=1, help="the world, its faults and the kill points (1)")
    parser.add_argument("--kills", type=int, default=3, help="times refbot is SIGKILLed and resumed (3)")
    parser.add_argument("--model", default="smollm2-135m", help="the judge's GGUF model (the small test model)")
    parser.add_argument("--workers", type=int, default=2, help="statements checked at once ([check] workers)")
    parser.add_argument("--no-embeddings", action="store_true", help="rank without the embedding model")
    parser.add_argument("--threshold", type=float, default=0.0,
                        help="the judge's threshold (0: SmolLM2-135M is a plumbing model, so every paragraph it is "
                             "asked about supports, and the report shows references and QuickStatements)")
    parser.add_argument("--read-timeout", type=float, default=2.0, help="[fetch] read_timeout; hangs last 1.5 s longer")
    parser.add_argument("--judge-down", type=float, default=5.0, help="seconds the judge stays dead (5)")
    parser.add_argument("--max-minutes", type=float, default=30.0, help="give up after this long (30)")
    parser.add_argument("--max-invocations", type=int, default=25, help="give up after this many refbot starts")
    parser.add_argument("--approve", type=int, default=300,
                        help="supported statements a curator approves, written by `refbot apply --live` under "
                             "faults and kills (300)")
    parser.add_argument("--workdir", type=Path, help="keep everything here (default: a temporary directory)")
    args = parser.parse_args()
    args.items = args.items or max(1, round(args.statements / 3.3))
    tmp = args.workdir or Path(tempfile.mkdtemp(prefix="refbot-soak-"))
    tmp.mkdir(parents=True, exist_ok=True)
    began = time.monotonic()
    rates = Rates()

    manifest = generate(tmp / "data", statements=args.statements, items=args.items, hosts=args.hosts, seed=args.seed,
                        rates=rates)
    expected = set(manifest["statements"])
    counts = manifest["counts"]
    print(f"soak: world in {tmp}: {len(expected)} statements over {args.items} items, {args.hosts} hosts; pages: "
          + ", ".join(f"{value} {name}" for name, value in sorted(counts.items())) + "; authority records: "
          + ", ".join(f"{value} {name}" for name, value in sorted(manifest["record_counts"].items())), flush=True)

    world = SoakWorld(data=tmp / "data", workdir=tmp, seed=args.seed, rates=rates, hang_s=args.read_timeout + 1.5)
    judge = JudgeServer(args.model, free_port())
    proxy: SparqlProxy | None = None
    writes: WriteResult | None = None
    try:
        world.start()
        proxy = SparqlProxy(world.sparql_url, rate=rates.sparql_429, seed=args.seed)
        judge.start()
        ledger = tmp / "runs.sqlite"
        settings = {**world.options(), "sparql_endpoint": proxy.url, "judge_backend": "openai",
                    "judge_url": judge.url, "run_ledger": ledger, "check_reports": tmp / "reports",
                    "fetch_read_timeout": args.read_timeout, "fetch_max_seconds": 15.0, "fetch_retries": 1,
                    "fetch_backoff": 0.5, "fetch_delay": 0.1, "fetch_cache": tmp / "http-cache.sqlite",
                    "properties_cache": tmp / "properties", "check_workers": args.workers,
                    "check_embeddings": not args.no_embeddings, "sparql_backoff": 1.0,
                    "threshold": args.threshold, "apply_user": world.bot_login, "apply_edit_delay": 0.0,
                    "apply_retries": 3, "apply_retry_wait": 1.0, "apply_maxlag": 5,
                    "apply_pywikibot_dir": tmp / "pywikibot"}
        ini = tmp / "refbot.ini"
        ini.write_text(ini_text(settings), encoding="utf-8")
        items = tmp / "items.txt"
        items.write_text("\n".join(manifest["items"]) + "\n", encoding="utf-8")
        run_started = time.monotonic()
        invocations, watch, events = run_refbot(args, ini, items, tmp, ledger, judge, run_started)
        run_wall = time.monotonic() - run_started
        judge.watch()
        if not events["timed_out"] and args.approve > 0:
            secret = {"REFBOT_APPLY_PASSWORD": world.bot_password}
            writes = write_phase(world, refbot_command(ini), {**os.environ, **secret}, tmp, ledger, last_run(ledger),
                                 approve=args.approve, seed=args.seed,
                                 max_seconds=max(60.0, args.max_minutes * 60 - (time.monotonic() - began)))
    finally:
        judge.kill()
        if proxy is not None:
            proxy.stop()
        world.stop()

    failures: list[str] = []
    if writes is not None:
        failures += writes.failures
    # -- the ledger --------------------------------------------------------------------------------------------
    db = sqlite3.connect(str(ledger))
    runs = db.execute("SELECT id, finished, seconds FROM runs ORDER BY id").fetchall()
    run_id = runs[-1][0]
    rows = db.execute("SELECT guid, outcome FROM checks WHERE run_id = ?", (run_id,)).fetchall()
    duplicated = db.execute("SELECT COUNT(*) FROM (SELECT guid FROM checks GROUP BY guid HAVING COUNT(*) > 1)"
                            ).fetchone()[0]
    db.close()
    checked = {guid for guid, _ in rows}
    outcomes = Counter(outcome for _, outcome in rows)
    lost = expected - checked
    unexpected = checked - expected
    twice = duplicated + len(watch.changed | watch.vanished)
    searched_again = sum(1 for count in world.searches.values() if count > 1)
    interruptions = sum(1 for invocation in invocations if invocation.returncode != 0 or invocation.killed)
    crashed = [invocation for invocation in invocations if invocation.crashed]
    if crashed:
        failures.append(f"{len(crashed)} refbot process(es) died by a signal the soak did not send (refbot's error): "
                        + ", ".join(f"#{invocation.number} {invocation.how}" for invocation in crashed))
    if len(runs) != 1:
        failures.append(f"{len(runs)} runs in the ledger, not one resumed run")
    if lost:
        failures.append(f"{len(lost)} statement(s) lost")
    if twice:
        failures.append(f"{twice} statement(s) checked twice")
    if unexpected:
        failures.append(f"{len(unexpected)} statement(s) checked that were not generated as unsourced")
    if events["timed_out"] or not runs[-1][1]:
        failures.append("the run did not finish (time limit or too many restarts)")
    if outcomes.get("error"):
        failures.append(f"{outcomes['error']} statement(s) ended in error")
    tracebacks = sum((invocation.log.read_text(errors="replace").count("Traceback (most recent call last)")
                      for invocation in invocations if invocation.log is not None and invocation.log.exists()), 0)
    if tracebacks:
        failures.append(f"refbot printed {tracebacks} traceback(s) (refbot-N.log in the work directory)")

    # -- the trace -------------------------------------------------------------------------------------------
    xml, html = tmp / "reports" / f"run-{run_id}.xml", tmp / "reports" / f"run-{run_id}.html"
    stages: Counter[str] = Counter()
    trace_guids: set[str] = set()
    trace_statements = 0
    hostile_in_trace: dict[str, int] = {}
    judgements = prompt_tokens = 0
    trace_valid = False
    quickstatements = 0
    sites = {str(port): site for site, port in world.ports.items()}
    records_read: dict[str, str] = {}  # host/path → what the trace says of it (the last statement's)
    try:
        tree = traces.read(xml)  # validated against xslt/trace.xsd
        trace_valid = True
        for statement in tree.getroot().iter(traces.tag("statement")):
            trace_statements += 1
            trace_guids.add(statement.get("guid"))
            judgements += int(statement.get("judgements") or 0)
            prompt_tokens += int(statement.get("prompt-tokens") or 0)
            quickstatements += sum(1 for _ in statement.iter(traces.tag("quickstatements")))
            for stage in statement.iter(traces.tag("stage")):
                stages[stage.get("name")] += float(stage.get("seconds"))
            for record in statement.iter(traces.tag("record")):
                address = urlsplit(record.get("url"))
                records_read[f"{sites.get(str(address.port), address.netloc)}{address.path}"] = read_in_trace(record)
            text = " ".join([*statement.itertext(), *(v for e in statement.iter() for v in e.attrib.values())])
            for marker in [*HOSTILE_TEXT.values(), PWNED]:
                if marker in text:
                    hostile_in_trace[marker] = hostile_in_trace.get(marker, 0) + 1
    except Exception as error:  # noqa: BLE001 (reported, and the soak fails)
        failures.append(f"the trace {xml} is not valid: {error}")
    if trace_valid and (trace_statements != len(trace_guids) or trace_guids != checked):
        failures.append(f"the trace holds {trace_statements} statements ({len(trace_guids)} distinct), "
                        f"the ledger {len(checked)}")

    # -- the authority records ------------------------------------------------------------------------------
    kinds = {key: spec["kind"] for key, spec in world.hostile_records.items()}
    made = record_outcomes(kinds, {key: reason for key, reason in records_read.items() if key in kinds})
    plain = [reason for key, reason in records_read.items() if key not in kinds]
    refused_requests = sum(world.refused.requests.values()) if world.refused is not None else 0
    changed = outcomes.get("corroborated", 0) + outcomes.get("contradicted", 0)
    never = [kind for kind in HOSTILE_RECORDS if not world.records_served[f"hostile {kind}"]]
    if never:
        failures.append(f"hostile record(s) never asked for: {', '.join(never)}")
    if refused_requests:
        failures.append(f"{refused_requests} request(s) reached the refused loopback server: "
                        + ", ".join(sorted(world.refused.requests) if world.refused is not None else []))
    if changed:
        failures.append(f"{changed} outcome(s) changed by an authority record that states no value")

    # -- the report in a browser ------------------------------------------------------------------------------
    browser: dict[str, Any] = {}
    if html.exists() and trace_valid:
        try:
            browser = browser_check(html, trace_guids, hostile_in_trace, quickstatements)
        except Exception as error:  # noqa: BLE001
            browser = {"error": f"{type(error).__name__}: {error}"}
    else:
        browser = {"error": f"no report at {html}"}
    if "error" in browser:
        failures.append(f"the report could not be checked: {browser['error']}")
    elif (browser["script ran"] or browser["script elements"] or browser["javascript: links"]
          or not browser["title unchanged"] or browser["foreign elements in body"]
          or not browser["statements in their own element"]):
        failures.append("the report ran a script or let markup escape its element")

    # -- the table ---------------------------------------------------------------------------------------------
    total_wall = time.monotonic() - began
    refbot_wall = sum(i.ended - i.started for i in invocations)
    worker_time = refbot_wall * args.workers
    staged = sum(stages.values())
    print("\n== soak: statements ==")
    for outcome in ("supported", "not-found", "irretrievable", "error"):
        print(f"  {outcome:<34} {outcomes.get(outcome, 0):>8}")
    for outcome in sorted(set(outcomes) - {"supported", "not-found", "irretrievable", "error"}):
        print(f"  {outcome:<34} {outcomes[outcome]:>8}")
    print(f"  {'generated (unsourced)':<34} {len(expected):>8}")
    print(f"  {'in the ledger (one run)':<34} {len(checked):>8}   runs in the ledger: {len(runs)}")
    print(f"  {'lost (must be 0)':<34} {len(lost):>8}")
    print(f"  {'checked twice (must be 0)':<34} {twice:>8}   (duplicate rows {duplicated}; rows replaced "
          f"{len(watch.changed)} or removed {len(watch.vanished)} after being seen)")
    print(f"  {'searched more than once':<34} {searched_again:>8}   (in flight at the {interruptions} "
          f"interruption(s): at most {interruptions * args.workers} expected)")
    print("\n== soak: interruptions ==")
    for invocation in invocations:
        print(f"  refbot #{invocation.number}: {invocation.done_before:>5} → {invocation.done_after:>5} statements, "
              f"{invocation.ended - invocation.started:7.1f} s, {invocation.how:<15} peak RSS {mb(invocation.peak)}")
    print(f"  judge (llama.cpp) SIGKILLed at {events['judge_killed_at']} statements, back after "
          f"{events['judge_down_s']:.1f} s; its starts took {', '.join(f'{s:.1f}' for s in judge.starts)} s")
    print("\n== soak: faults served ==")
    for name, value in sorted(world.stats.items()):
        print(f"  {name:<34} {value:>8}")
    if proxy is not None:
        print(f"  {'SPARQL requests':<34} {proxy.stats['requests']:>8}   answered 429: {proxy.stats['429']}")
    print("\n== soak: authority records ==")
    for name in sorted(name for name in world.records_served if name.startswith("plain ")):
        print(f"  {'served, ' + name:<34} {world.records_served[name]:>8}")
    for kind in HOSTILE_RECORDS:
        shown = "; ".join(made.get(kind, ("not in the trace",)))
        print(f"  {'served, hostile ' + kind:<34} {world.records_served[f'hostile {kind}']:>8}   {shown[:160]}")
    print(f"  {'plain records read (in the trace)':<34} {sum(r.startswith('read') for r in plain):>8} of {len(plain)}"
          + "".join(f"; {reason[:80]}" for reason in sorted({r for r in plain if not r.startswith('read')})))
    print(f"  {'refused requests (must be 0)':<34} {refused_requests:>8}   (at the loopback server outside the "
          "allowed ports, named by the hostile JSON-LD)")
    print(f"  {'outcomes changed (must be 0)':<34} {changed:>8}   (corroborated or contradicted by a record)")
    print(f"  {'tracebacks (must be 0)':<34} {tracebacks:>8}   (in refbot's output)")
    print("\n== soak: trace and report ==")
    print(f"  {'trace valid against trace.xsd':<34} {'yes' if trace_valid else 'NO'}   ({trace_statements} "
          f"statements)")
    for name, value in browser.items():
        print(f"  {'report: ' + name:<34} {value}")
    if writes is not None:
        print_writes(writes)
    print("\n== soak: resources ==")
    print(f"  {'statements/hour':<34} {len(checked) / run_wall * 3600:>8.0f}   ({len(checked)} in {run_wall:.0f} s "
          f"of run phase, kills and restarts included; the ledger counts {runs[-1][2]:.0f} s, "
          "not the killed processes' time)")
    print(f"  {'peak RSS, refbot':<34} {mb(max((i.peak for i in invocations), default=0)):>12}")
    print(f"  {'peak RSS, llama.cpp server':<34} {mb(judge.peak):>12}")
    longest = max(invocations, key=lambda i: i.done_after - i.done_before)
    tenths = rss_by_tenth(longest.samples)
    if tenths:
        print(f"  {'RSS as statements are checked':<34} median VmRSS of refbot #{longest.number} (the longest "
              "invocation) by tenth of its statements:")
        print("    " + ", ".join(f"{done}: {rss / 1e6:,.0f}" for done, rss in tenths) + " MB")
        half = len(tenths) // 2
        early, late = statistics.median(r for _, r in tenths[:half]), statistics.median(r for _, r in tenths[half:])
        print(f"  {'  second half vs first half':<34} {late / early - 1:>+8.0%}")
    with (tmp / "rss.tsv").open("w", encoding="utf-8") as samples:
        samples.write("invocation\tstatements done\tVmRSS bytes\n")
        for invocation in invocations:
            samples.writelines(f"{invocation.number}\t{done}\t{rss}\n" for done, rss in invocation.samples)
    ledger_size = sum(p.stat().st_size for p in tmp.glob("runs.sqlite*") if p.is_file())
    print(f"  {'ledger size':<34} {mb(ledger_size):>12}")
    print(f"  {'trace size':<34} {mb(xml.stat().st_size if xml.exists() else 0):>12}   report "
          f"{mb(html.stat().st_size if html.exists() else 0)}")
    print(f"  {'judgements, prompt tokens / stmt':<34} {judgements / max(1, trace_statements):>8.2f}   "
          f"{prompt_tokens / max(1, trace_statements):.0f} tokens read")
    print("\n== soak: where the time went ==")
    print(f"  wall {total_wall:.0f} s in all; run phase {run_wall:.0f} s; refbot processes {refbot_wall:.0f} s "
          f"× {args.workers} workers = {worker_time:.0f} worker-s")
    for name, seconds in sorted(stages.items(), key=lambda pair: -pair[1]):
        print(f"  {name:<34} {seconds:>8.1f} worker-s {seconds / worker_time:>6.1%}")
    waiting = worker_time - staged
    print(f"  {'waiting (outside any stage)':<34} {waiting:>8.1f} worker-s {waiting / worker_time:>6.1%}   "
          "(start-up, model loading, selection, idle workers, work lost to kills)")
    print(f"  {'between refbot processes':<34} {run_wall - refbot_wall:>8.1f} s        (waiting for the judge to "
          "come back, restarts)")
    print(f"\nsoak: workdir {tmp}")
    if failures:
        print("soak: FAILED: " + "; ".join(failures))
        return 1
    print("soak: passed")
    return 0


if __name__ == "__main__":
    sys.exit(main())
