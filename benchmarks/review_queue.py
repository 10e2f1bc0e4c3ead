#!/usr/bin/env python3
"""What a curator's review costs in the queue: the keystrokes and clicks, the scrolling and the seconds (the server's
and the browser's, not the reading) to decide every proposal of a demo run in `refbot review`'s queue; or, with
``--statements N``, what the queue costs at the size of a real run.

    benchmarks/review_queue.py [--judge transformers|scripted] [--width 1280] [--height 800]
                               [--screenshots reports/review-queue] [--service]
    benchmarks/review_queue.py --statements 50000 [--decisions 30] [--report-at-stop]
    benchmarks/review_queue.py --service --statements 50000 [--at-once 20] [--readers 48 [--decisions 30]]

``--statements N`` needs no model and no browser: a synthetic run of N statements (five an item; 60 % proposing a
reference, 10 % with evidence against, the rest not found; each statement element the size of a real one, its
document holding eight judged paragraphs) is written into a fresh SQLite run ledger and kept for review as `refbot
run` keeps a run; then ``refbot review --run ID`` is started as a process of its own and asked over loopback HTTP for
queue pages and decisions as a browser asks (the skip link, the decision form). It prints the seconds from the command
to the address it prints, the milliseconds per card (a queue page) and per decision (the form's POST), and the
server's peak resident memory; with ``--report-at-stop`` also what stopping costs (Ctrl-C: the report rewritten with
the decisions).

The run is the one a curator tried: the demo world (``bot/demo``) served on loopback, its eight items checked by
``refbot run``'s code with the default judge (Qwen2.5-Coder-1.5B in-process; ``--judge scripted`` supports every
paragraph asked about, for a quick look), the trace kept in a fresh run ledger. `refbot review`'s server serves it;
headless Chromium (Debian's, through chromedriver) opens the queue in a window of ``--width`` × ``--height`` and
decides each card with one key — ``a`` where the demo world's answers (``expected.json``) say the statement is
supported or corroborated by a record, ``r`` otherwise — counting every key and click, and checking before each that the
card's actions are in view with the page at its top (no scrolling to find them). Screenshots of the first card, the
archived Brno award, the Catalysis Medal's evidence against and the empty queue go to ``--screenshots``.

``--service --statements N``: the same synthetic run served by `refbot serve-review` (a process of its own, with its
default settings), asked by ``--at-once`` readers at the same moment for report pages spread over the run, as a crowd
(or an attacker) anyone may let in: the seconds each page took (503s counted), and the server's peak memory against
the review pod's 512 MiB limit. With ``--readers N``, then, N anonymous readers (in a process of their own) loop on
report pages while a curator signs in through the demo world's OAuth provider and makes ``--decisions`` decisions
(rejections, or an acknowledgement for a card with evidence against: no wiki edit) in the queue: the median and
95th percentile of the curator's queue pages and decisions, what the readers were answered, and the server's peak
memory.

``--service``: the same run decided in `refbot serve-review`'s queue instead, after signing in through the demo
world's OAuth provider as a demo curator (the sign-in's keys and clicks counted apart); each approval is written to the
demo Wikibase as the curator, so the seconds per decision include the edit. Screenshots also of the provider's sign-in
page, the service's first card and the demo item page with the user script (``gadget/refbot.js``) showing what refbot
found.
"""

from __future__ import annotations

import argparse
import copy
import json
import logging
import os
import shutil
import signal
import statistics
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path
from urllib.parse import urljoin

ROOT = Path(__file__).resolve().parent.parent
sys.path[:0] = [str(ROOT)]

from bot.demo.wikibase import Account  # noqa: E402
from bot.demo.world import DemoWorld, free_port  # noqa: E402
from bot.options import Options  # noqa: E402
from bot.output.run_trace import default_stem, run_trace, write_run  # noqa: E402
from bot.review.queue import cards  # noqa: E402
from bot.review import service as review_service  # noqa: E402
from bot.review.server import serve  # noqa: E402
from bot.review.store import ReviewLedger, keep_for_review  # noqa: E402
from bot.ledger.ledger import RunLedger  # noqa: E402
from bot.check_run import Run  # noqa: E402
from bot.selection.worklists import Worklist  # noqa: E402
from bot.wiring import Wiring  # noqa: E402

ITEMS = [f"Q99020{n}" for n in range(1, 9)]
# The statements a synthetic run is made of: a real trace's (the review tests'), varied.
TEMPLATE = ROOT / "tests" / "data" / "review-trace.xml"
PROPERTIES = (("P69", "educated at"), ("P108", "employer"), ("P166", "award received"), ("P463", "member of"),
              ("P27", "country of citizenship"))
PARAGRAPH = ("Born in Brno, she read chemistry at the Faculty of Science before moving to Prague, where her work on "
             "heterogeneous catalysis earned a string of national distinctions and a chair at the academy; colleagues "
             "remember her seminars, her insistence on careful notebooks and the long walks along the Vltava. ")
MEDAL = "Q990201$B6C2B84D-6CC2-431B-8F79-CA1BC893485E"
APPROVE = ("supported", "corroborated")


def demo_run(world: DemoWorld, tmp: Path, judge: str) -> tuple[Options, int, float]:
    options = Options.flat(**world.options(), check_reports=tmp / "reports", run_ledger=tmp / "runs.sqlite",
                           review_curator="Benchmark Curator",
                           **({"judge_backend": "scripted"} if judge == "scripted" else {}))
    parts = Wiring(options)
    started = time.perf_counter()
    with RunLedger(options.run.ledger) as ledger, Run.open(parts, Worklist.of_items(ITEMS), ledger) as run:
        result = run.check()
        tree = run_trace(result, ledger, parts)
        keep_for_review(ledger, result.run_id, tree)
        write_run(tree, default_stem(result, options.check.reports, ledger))
        return options, run.id, time.perf_counter() - started


def start(options: Options, run_id: int) -> str:
    ready: list[str] = []
    listening = threading.Event()

    def on_ready(url: str) -> None:
        ready.append(url)
        listening.set()

    threading.Thread(target=serve, args=(options, run_id), daemon=True,
                     kwargs=dict(curator=options.review.curator, on_ready=on_ready)).start()
    if not listening.wait(30):
        raise SystemExit("review_queue: the review server did not start")
    return ready[0]


CURATOR, PASSWORD = "Benchmark Curator", "benchmark-demo-password"


def start_service(world: DemoWorld, options: Options, run_id: int) -> tuple[Options, str]:
    """`refbot serve-review` over the run's ledger, its OAuth consumer registered with the demo world: the options
    it was given and the queue's address."""
    port = free_port()
    url = f"http://127.0.0.1:{port}"
    consumer = world.oauth.register(url + "/oauth/callback")
    options = options.replaced(service_url=url, service_oauth_url=world.oauth_url,
                               service_client_id=consumer.client_id, service_client_secret=consumer.secret,
                               service_secret_key=os.urandom(24).hex(), wikidata_api_url=world.options()[
                                   "wikidata_api_url"], apply_retry_wait=0.1,
                               service_cors_origins=(world.base("wikidata"),))  # its item pages run the user script
    listening = threading.Event()
    threading.Thread(target=review_service.serve, args=(options,), daemon=True,
                     kwargs=dict(port=port, on_ready=lambda _: listening.set())).start()
    if not listening.wait(30):
        raise SystemExit("review_queue: the review service did not start")
    return options, f"{url}/run/{run_id}/queue"


def chromium(width: int, height: int, profile: Path):
    from selenium import webdriver
    from selenium.webdriver.chrome.service import Service

    binary, driver = shutil.which("chromium") or shutil.which("chromium-browser"), shutil.which("chromedriver")
    if binary is None or driver is None:
        raise SystemExit("review_queue: Debian's chromium and chromium-driver are needed (scripts/setup --test)")
    options = webdriver.ChromeOptions()
    options.binary_location = binary
    for flag in ("--headless=new", "--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage", "--no-proxy-server",
                 f"--window-size={width},{height}", f"--user-data-dir={profile}"):
        options.add_argument(flag)
    browser = webdriver.Chrome(service=Service(executable_path=driver), options=options)
    browser.set_page_load_timeout(30)
    return browser


def geometry(browser) -> dict:
    return browser.execute_script(
        "function box(id) { var e = document.getElementById(id); if (!e) return null;"
        " var r = e.getBoundingClientRect(); return {top: r.top, bottom: r.bottom}; }"
        "return {scroll: window.scrollY, height: window.innerHeight,"
        " approve: box('approve') || box('acknowledge'), reject: box('reject') || box('value-wrong'),"
        " card: box('card'), focused: document.activeElement ? document.activeElement.id : ''};")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--judge", choices=("transformers", "scripted"), default="transformers")
    parser.add_argument("--width", type=int, default=1280)
    parser.add_argument("--height", type=int, default=800)
    parser.add_argument("--screenshots", type=Path, default=ROOT / "reports" / "review-queue")
    parser.add_argument("--service", action="store_true",
                        help="decide in `refbot serve-review` after signing in through the demo OAuth provider")
    parser.add_argument("--statements", type=int, metavar="N",
                        help="measure the queue on a synthetic run of N statements (no model, no browser)")
    parser.add_argument("--decisions", type=int, default=30, metavar="N", help="with --statements: decisions made")
    parser.add_argument("--report-at-stop", action="store_true",
                        help="with --statements: stop the server with Ctrl-C and measure the report's rewrite")
    parser.add_argument("--at-once", type=int, default=20, metavar="N",
                        help="with --service --statements: report pages asked for at the same moment")
    parser.add_argument("--readers", type=int, default=0, metavar="N",
                        help="with --service --statements: anonymous readers looping on report pages while a "
                             "signed-in curator decides")
    args = parser.parse_args()
    if args.statements and args.service:
        service_at_scale(args.statements, args.at_once, readers=args.readers, decisions=args.decisions)
        return
    if args.statements:
        at_scale(args.statements, args.decisions, report_at_stop=args.report_at_stop)
        return
    logging.getLogger("waitress.queue").setLevel(logging.ERROR)  # one server thread: a queued request is expected

    from selenium.webdriver.common.action_chains import ActionChains
    from selenium.webdriver.common.by import By
    from selenium.webdriver.support.ui import WebDriverWait

    args.screenshots.mkdir(parents=True, exist_ok=True)
    accounts = {CURATOR: Account({}, groups=(), password=PASSWORD)}
    with tempfile.TemporaryDirectory(prefix="refbot-queue-bench-") as name, \
            DemoWorld(workdir=Path(name), accounts=accounts) as world:
        tmp = Path(name)
        expected = world.expected()
        options, run_id, checked_s = demo_run(world, tmp, args.judge)
        with RunLedger(options.run.ledger) as ledger:
            every = cards(ReviewLedger(ledger).trace(run_id).getroot())
        proposals = [card for card in every if card.proposed]
        if args.service:
            options, queue = start_service(world, options, run_id)
        else:
            page = start(options, run_id)
            queue = page.split("?")[0] + "queue?token=" + page.split("token=")[1]
        browser = chromium(args.width, args.height, tmp / "profile")
        actions, scrolled, out_of_view, tall, seconds, decided = 0, 0, 0, 0, [], {}
        tall_cards: list[str] = []
        sign_in_actions = 0
        try:
            browser.get(queue)
            if args.service:
                browser.find_element(By.ID, "signin").click()
                WebDriverWait(browser, 20).until(lambda d: d.find_elements(By.ID, "wpName1"))
                browser.find_element(By.ID, "wpName1").send_keys(CURATOR)
                browser.find_element(By.ID, "wpPassword1").send_keys(PASSWORD)
                browser.save_screenshot(str(args.screenshots / "5-service-sign-in.png"))
                browser.find_element(By.ID, "allow").click()
                WebDriverWait(browser, 20).until(lambda d: d.find_elements(By.ID, "account"))
                sign_in_actions = 4  # the link, the name, the password, Allow
                browser.save_screenshot(str(args.screenshots / "6-service-first-card.png"))
            else:
                browser.save_screenshot(str(args.screenshots / "1-first-card.png"))
            while browser.find_elements(By.ID, "card"):
                guid = browser.find_element(By.ID, "card").get_attribute("data-guid")
                if guid in decided:
                    raise SystemExit(f"review_queue: {guid} came round again after it was decided")
                shape = geometry(browser)
                scrolled += shape["scroll"] != 0
                out_of_view += not all(box and 0 <= box["top"] and box["bottom"] <= shape["height"]
                                       for box in (shape["approve"], shape["reject"]))
                if shape["card"]["bottom"] > shape["height"]:
                    tall += 1
                    browser.save_screenshot(str(args.screenshots / f"taller-than-the-window-{tall}.png"))
                    tall_cards.append(f"{guid} ({shape['card']['bottom'] - shape['height']:.0f} px below)")
                if guid.startswith("Q990201$") and "Brno Innovation" in browser.find_element(By.ID, "card").text:
                    browser.save_screenshot(str(args.screenshots / "2-archived-brno-award.png"))
                resolvable = bool(browser.find_elements(By.ID, "acknowledge"))  # evidence against, nothing proposed
                outcome = expected.get(guid, {}).get("expected")
                key = ("w" if outcome == "contradicted" else "a") if resolvable else "a" if outcome in APPROVE else "r"
                main_element = browser.find_element(By.TAG_NAME, "main")
                began = time.perf_counter()
                ActionChains(browser).send_keys(key).perform()
                WebDriverWait(browser, 30).until(lambda _: _gone(main_element))
                WebDriverWait(browser, 30).until(lambda d: d.find_elements(By.TAG_NAME, "main"))
                seconds.append(time.perf_counter() - began)
                actions += 1
                decided[guid] = {("a", False): "approved", ("r", False): "rejected", ("a", True): "acknowledged",
                                 ("w", True): "value-wrong"}[key, resolvable]
            if not args.service:
                browser.save_screenshot(str(args.screenshots / "4-nothing-left.png"))
            joiner = "&" if "?" in queue else "?"
            browser.get(queue + f"{joiner}show=contradicted&at={MEDAL.replace('$', '%24')}")
            if not args.service:
                browser.save_screenshot(str(args.screenshots / "3-catalysis-medal-evidence-against.png"))
            medal_against = "Evidence against" in browser.find_element(By.ID, "card").text
            if args.service:
                wiki = world.base("wikidata")
                world.common_js = (f"window.refbotService = {options.service.url!r};\n"
                                   + (ROOT / "gadget" / "refbot.js").read_text(encoding="utf-8"))
                browser.get(f"{wiki}/wiki/{ITEMS[0]}")
                WebDriverWait(browser, 20).until(lambda d: d.find_elements(By.CSS_SELECTOR, ".refbot-finding"))
                shown_on_item = len(browser.find_elements(By.CSS_SELECTOR, ".refbot-finding"))
                browser.save_screenshot(str(args.screenshots / "7-item-page-user-script.png"))
        finally:
            browser.quit()
        with RunLedger(options.run.ledger) as ledger:
            review = ReviewLedger(ledger)
            reviews = review.reviews(run_id)
            resolved = {guid: resolution for resolution in ("acknowledged", "value-wrong")
                        for guid in review.resolved(run_id, resolution)}
        landed = sum(1 for guid, state in decided.items()
                     if (reviews[guid].state if guid in reviews else resolved.get(guid)) == state
                     or (state == "approved" and guid in reviews and reviews[guid].state == "written"))
        edits = [revision for revision in world.wikibase.revisions if revision.action == "wbsetreference"]

    served = "the review service" if args.service else "refbot review"
    print(f"review_queue: {served}: demo run of {len(ITEMS)} items checked in {checked_s:.0f} s with the "
          f"{args.judge} judge; window {args.width}×{args.height}")
    print(f"  proposals                       {len(proposals)}")
    approved = sum(state == "approved" for state in decided.values())
    rejected = sum(state == "rejected" for state in decided.values())
    print(f"  decided                         {len(decided)} ({approved} approved, {rejected} rejected, "
          f"{len(decided) - approved - rejected} statements with evidence against resolved); in the ledger: {landed}")
    print(f"  keystrokes + clicks             {actions} ({actions / max(1, len(decided)):.2f} per card)")
    if args.service:
        print(f"  signing in (once)               {sign_in_actions} keystrokes + clicks through the OAuth provider")
        print(f"  edits made as {CURATOR}   {sum(edit.user == CURATOR for edit in edits)} of {approved} approved "
              f"({len({edit.statement for edit in edits})} statements, each once: "
              f"{'yes' if len(edits) == len({edit.statement for edit in edits}) else 'NO'})")
        print(f"  user script boxes on {ITEMS[0]}   {shown_on_item}")
    print(f"  scrolling needed                {scrolled + out_of_view} (page not at top: {scrolled}; "
          f"actions out of view: {out_of_view})")
    print(f"  cards taller than the window    {tall}" + (f": {', '.join(tall_cards)}" if tall_cards else ""))
    if seconds:
        print(f"  seconds per decision            median {statistics.median(seconds):.3f}, max {max(seconds):.3f}, "
              f"total {sum(seconds):.2f} (key to next card, server and browser)")
    print(f"  Catalysis Medal evidence against shown: {'yes' if medal_against else 'NO'}")
    print(f"  screenshots: {args.screenshots}")


def synthetic_run(ledger: RunLedger, statements: int) -> int:
    """A finished run of ``statements`` statements in ``ledger``, its elements made from the review tests' trace:
    five statements an item; six in ten propose a reference (their document with eight judged paragraphs), one in
    ten has a paragraph that negates the value, the rest found nothing. Its id."""
    from lxml import etree
    from sqlalchemy import insert

    from bot.ledger.tables import checks, items
    from bot.output.trace import read, tag, to_string

    root = read(TEMPLATE).getroot()
    found = list(root.iter(tag("statement")))
    proposal, nothing = _enlarged(found[0]), found[3]
    against = _against(proposal)
    item_template = copy.deepcopy(root.find(tag("item")))
    for statement in item_template.findall(tag("statement")):
        item_template.remove(statement)
    run = ledger.open_run(f"benchmark-{statements}", f"synthetic run of {statements} statements", new=True)
    with ledger.transaction() as connection:
        for start in range(0, statements, 1000):
            item_rows, check_rows = [], []
            for number in range(start, min(statements, start + 1000)):
                item = f"Q{7_000_000 + number // 5}"
                if number % 5 == 0:
                    element = copy.deepcopy(item_template)
                    element.set("id", item)
                    element.set("label", f"Person {number // 5}")
                    element.set("url", f"https://www.wikidata.org/wiki/{item}")
                    item_rows.append({"run_id": run.id, "item": item, "element": to_string(element)})
                kind = number % 10
                template = nothing if kind >= 7 else against if kind == 6 else proposal
                statement = _varied(template, item, f"{item}$BENCH-{number:012d}", PROPERTIES[number % len(PROPERTIES)])
                check_rows.append({"run_id": run.id, "guid": statement.get("guid"), "item": item,
                                   "outcome": statement.get("outcome"), "checked": "2026-11-28T10:00:00Z",
                                   "element": to_string(statement)})
            if item_rows:
                connection.execute(insert(items), item_rows)
            connection.execute(insert(checks), check_rows)
    ledger.finish(run)
    trace = etree.Element(tag("trace"), nsmap={None: root.nsmap[None]})
    trace.append(copy.deepcopy(root.find(tag("run"))))
    keep_for_review(ledger, run.id, etree.ElementTree(trace))  # as `refbot run` does at its end
    return run.id


def _enlarged(statement):
    """The statement with seven more judged paragraphs in its document (none supporting), as a real page gives."""
    from bot.output.trace import tag

    statement = copy.deepcopy(statement)
    judgement = statement.find(f"{tag('document')}/{tag('judgement')}")
    for position in range(7):
        other = copy.deepcopy(judgement)
        other.set("position", str(10 + position))
        other.set("supports", "false")
        other.set("support", "0.12")
        other.find(tag("paragraph")).text = PARAGRAPH * 2
        for match in other.find(tag("paragraph")):
            other.find(tag("paragraph")).remove(match)
        judgement.addnext(other)
    return statement


def _against(proposal):
    """The proposal turned into a statement with nothing proposed and a paragraph that negates its value."""
    from lxml import etree

    from bot.output.trace import tag

    statement = copy.deepcopy(proposal)
    statement.set("outcome", "not-found")
    statement.remove(statement.find(tag("reference")))
    judgement = statement.find(f"{tag('document')}/{tag('judgement')}")
    judgement.set("supports", "false")
    against = etree.Element(tag("against"), kind="negated", cue="not", reason="the value is negated (“not”)")
    against.text = "She never studied at Charles University, though she lectured there."
    judgement.find(tag("answer")).addprevious(against)
    return statement


def _varied(template, item: str, guid: str, prop: tuple[str, str]):
    from bot.output.trace import tag

    statement = copy.deepcopy(template)
    statement.set("guid", guid)
    statement.set("url", f"https://www.wikidata.org/wiki/{item}#{guid}")
    statement.set("property", prop[0])
    statement.set("property-label", prop[1])
    line = statement.find(f"{tag('reference')}/{tag('quickstatements')}")
    if line is not None:
        line.text = "\t".join([item, prop[0]] + line.text.split("\t")[2:])
    return statement


def at_scale(statements: int, decisions: int, *, report_at_stop: bool) -> None:
    """Build a synthetic run, then time `refbot review` on it as a process of its own (see the module's docstring)."""
    import requests
    from lxml import etree

    with tempfile.TemporaryDirectory(prefix="refbot-queue-scale-") as name:
        tmp = Path(name)
        began = time.perf_counter()
        with RunLedger(tmp / "runs.sqlite") as ledger:
            run_id = synthetic_run(ledger, statements)
        built_s = time.perf_counter() - began
        size = sum(path.stat().st_size for path in tmp.glob("runs.sqlite*"))
        environment = {**os.environ, "PYTHONPATH": str(ROOT), "REFBOT_REVIEW_CURATOR": "Benchmark Curator"}
        started = time.perf_counter()
        subprocess.run([sys.executable, "-c", "import bot.cli, bot.review.server"], cwd=tmp, env=environment,
                       check=True)
        import_s = time.perf_counter() - started
        started = time.perf_counter()
        server = subprocess.Popen([sys.executable, "-m", "bot.cli", "review", "--run", str(run_id), "--ledger",
                                   str(tmp / "runs.sqlite")], cwd=tmp, env=environment, stdout=subprocess.PIPE,
                                  stderr=subprocess.PIPE, text=True)
        try:
            line = ""
            while not line.startswith("review: "):
                line = server.stdout.readline()
                if not line:
                    raise SystemExit(f"review_queue: `refbot review` ended: {server.stderr.read()}")
            start_s = time.perf_counter() - started
            queue = line.split(" ", 1)[1].strip()
            origin = "/".join(queue.split("/")[:3])
            cards_ms, decisions_ms = [], []
            with requests.Session() as http:
                http.trust_env = False

                def get(url: str) -> str:
                    began = time.perf_counter()
                    page = http.get(url, timeout=600)
                    cards_ms.append((time.perf_counter() - began) * 1000)
                    page.raise_for_status()
                    return page.text

                text = get(queue)
                first_ms = cards_ms.pop()
                for turn in range(decisions):
                    page = etree.HTML(text)
                    fields = {field.get("name"): field.get("value") or ""
                              for field in page.xpath("//form[@class='decide']/input[@type='hidden']")}
                    if not fields:
                        break
                    if turn % 3 == 2:  # a skip now and then, as a curator leaves a card for later
                        text = get(urljoin(queue, page.xpath("//a[@id='skip']/@href")[0]))
                        continue
                    began = time.perf_counter()
                    answer = http.post(urljoin(queue, "decide"), allow_redirects=False, timeout=600,
                                       data={**fields, "decision": ("approved", "rejected")[turn % 2]},
                                       headers={"Origin": origin})
                    decisions_ms.append((time.perf_counter() - began) * 1000)
                    if answer.status_code != 303:
                        raise SystemExit(f"review_queue: a decision was answered {answer.status_code}")
                    text = get(urljoin(queue, answer.headers["Location"]))
                for view in ("show=all", "show=contradicted", "show=supported&property=P166", "show=undecided"):
                    get(queue.replace("queue?", f"queue?{view}&"))
            serving_peak = _peak_kib(server.pid)
            stop_s, stop_peak = 0.0, 0
            if report_at_stop:
                began = time.perf_counter()
                server.send_signal(signal.SIGINT)
                _, _, usage = os.wait4(server.pid, 0)
                server.returncode = 0
                stop_s, stop_peak = time.perf_counter() - began, usage.ru_maxrss
        finally:
            if server.returncode is None:
                server.terminate()
                server.wait(60)

    print(f"review_queue: a synthetic run of {statements} statements ({statements * 6 // 10} proposals, "
          f"{statements // 10} with evidence against); ledger {size / 2**20:.0f} MiB, built and kept for review in "
          f"{built_s:.1f} s")
    print(f"  start (command to address)      {start_s:.2f} s (of which Python importing refbot's CLI and server: "
          f"{import_s:.2f} s)")
    print(f"  first queue page                {first_ms:.0f} ms")
    print(f"  card (a queue page)             median {statistics.median(cards_ms):.0f} ms, max {max(cards_ms):.0f} ms "
          f"({len(cards_ms)} pages after the first)")
    if decisions_ms:
        print(f"  decision (the form's POST)      median {statistics.median(decisions_ms):.0f} ms, "
              f"max {max(decisions_ms):.0f} ms ({len(decisions_ms)} decisions)")
    print(f"  server's peak memory (RSS)      {serving_peak / 2**10:.0f} MiB")
    if report_at_stop:
        print(f"  stop (Ctrl-C, report rewritten) {stop_s:.1f} s, peak memory {stop_peak / 2**10:.0f} MiB")


def service_at_scale(statements: int, at_once: int, *, readers: int = 0, decisions: int = 30) -> None:
    """Build a synthetic run, serve it with `refbot serve-review` as a process of its own, and ask it for
    ``at_once`` report pages at the same moment; then, with ``readers``, a curator's decisions under a crowd (see the
    module's docstring)."""
    import requests

    from bot.review.actions import REPORT_PAGE_STATEMENTS

    accounts = {CURATOR: Account({}, groups=(), password=PASSWORD)}
    with tempfile.TemporaryDirectory(prefix="refbot-service-scale-") as name, \
            DemoWorld(workdir=Path(name), accounts=accounts) as world:
        tmp = Path(name)
        began = time.perf_counter()
        with RunLedger(tmp / "runs.sqlite") as ledger:
            run_id = synthetic_run(ledger, statements)
        built_s = time.perf_counter() - began
        port = free_port()
        consumer = world.oauth.register(f"http://127.0.0.1:{port}/oauth/callback")
        environment = {**os.environ, "PYTHONPATH": str(ROOT), "REFBOT_RUN_LEDGER": str(tmp / "runs.sqlite"),
                       "REFBOT_SERVICE_URL": f"http://127.0.0.1:{port}", "REFBOT_SERVICE_OAUTH_URL": world.oauth_url,
                       "REFBOT_SERVICE_CLIENT_ID": consumer.client_id,
                       "REFBOT_SERVICE_CLIENT_SECRET": consumer.secret, "REFBOT_SERVICE_SECRET_KEY": "b" * 40,
                       "REFBOT_WIKIDATA_API_URL": world.options()["wikidata_api_url"]}
        started = time.perf_counter()
        server = subprocess.Popen([sys.executable, "-m", "bot.cli", "serve-review", "--port", str(port)], cwd=tmp,
                                  env=environment, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
        try:
            line = ""
            while "listens on" not in line:
                line = server.stderr.readline()
                if not line:
                    raise SystemExit(f"review_queue: `refbot serve-review` ended: {server.stderr.read()}")
            start_s = time.perf_counter() - started
            base = f"http://127.0.0.1:{port}/run/{run_id}/"
            pages = -(-statements // REPORT_PAGE_STATEMENTS)
            first = time.perf_counter()
            requests.get(base, timeout=600).raise_for_status()
            first_s = time.perf_counter() - first
            idle_peak = _peak_kib(server.pid)
            answers: list[tuple[int, float]] = []
            gate = threading.Barrier(at_once)

            def read(page: int) -> None:
                gate.wait()
                began = time.perf_counter()
                answer = requests.get(f"{base}?page={page}", timeout=600)
                answers.append((answer.status_code, time.perf_counter() - began))

            asking = [threading.Thread(target=read, args=(1 + number * (pages - 1) // max(1, at_once - 1),))
                      for number in range(at_once)]
            for reader in asking:
                reader.start()
            for reader in asking:
                reader.join()
            peak = _peak_kib(server.pid)
            crowd = _crowd_and_curator(f"http://127.0.0.1:{port}", run_id, pages, readers=readers,
                                       decisions=decisions) if readers else None
            crowd_peak = _peak_kib(server.pid)
        finally:
            server.terminate()
            server.wait(60)
    served = [seconds for status, seconds in answers if status == 200]
    busy = sum(1 for status, _ in answers if status == 503)
    other = sorted({status for status, _ in answers if status not in (200, 503)})
    print(f"review_queue: `refbot serve-review` on a synthetic run of {statements} statements ({pages} report pages "
          f"of {REPORT_PAGE_STATEMENTS}); built in {built_s:.1f} s")
    print(f"  start (command to listening)    {start_s:.2f} s")
    print(f"  first report page               {first_s:.2f} s (peak memory then {idle_peak / 2**10:.0f} MiB)")
    print(f"  {at_once} report pages at once        " + (
        f"median {statistics.median(served):.2f} s, max {max(served):.2f} s a page ({len(served)} served"
        if served else "none served (") + f", {busy} told to come back (503)"
          + (f", other answers {other}" if other else "") + ")")
    print(f"  server's peak memory (RSS)      {peak / 2**10:.0f} MiB (the review pod's limit: 512 MiB)")
    if crowd is not None:
        pages_s, decided_s, answered = crowd
        print(f"  {readers} anonymous readers looping on report pages; a signed-in curator meanwhile:")
        print(f"    queue page                    median {statistics.median(pages_s):.3f} s, "
              f"p95 {_p95(pages_s):.3f} s, max {max(pages_s):.3f} s ({len(pages_s)} pages)")
        print(f"    decision (a rejection)        median {statistics.median(decided_s):.3f} s, "
              f"p95 {_p95(decided_s):.3f} s, max {max(decided_s):.3f} s ({len(decided_s)} decisions)")
        print("    readers were answered         " + ", ".join(
            f"{count} × {status or 'no answer'}" for status, count in sorted(answered.items())))
        print(f"  server's peak memory (RSS)      {crowd_peak / 2**10:.0f} MiB with the crowd")


def _p95(values: list[float]) -> float:
    return sorted(values)[max(0, round(0.95 * len(values)) - 1)]


# The crowd, a process of its own (the curator's client does not share its interpreter): READERS threads, each asking
# for report pages one after another until SIGTERM, then what they were answered, as JSON.
CROWD = """
import json, signal, sys, threading
import requests
base, pages, readers = sys.argv[1], int(sys.argv[2]), int(sys.argv[3])
stop, lock, counts = threading.Event(), threading.Lock(), {}
signal.signal(signal.SIGTERM, lambda *_: stop.set())
def read(number):
    with requests.Session() as http:
        page = 1 + number % pages
        while not stop.is_set():
            try:
                status = http.get(f"{base}?page={page}", timeout=120).status_code
            except requests.RequestException:
                status = 0
            with lock:
                counts[status] = counts.get(status, 0) + 1
            page = 1 + (page + 7) % pages
threads = [threading.Thread(target=read, args=(n,), daemon=True) for n in range(readers)]
for thread in threads:
    thread.start()
stop.wait()
for thread in threads:
    thread.join(130)
print(json.dumps(counts))
"""


def _crowd_and_curator(url: str, run_id: int, pages: int, *, readers: int,
                       decisions: int) -> tuple[list[float], list[float], dict[int, int]]:
    """The curator's seconds a queue page and a decision while ``readers`` loop on report pages; what the readers
    were answered."""
    import requests
    from lxml import etree

    crowd = subprocess.Popen([sys.executable, "-c", CROWD, f"{url}/run/{run_id}/", str(pages), str(readers)],
                             stdout=subprocess.PIPE, text=True)
    pages_s: list[float] = []
    decided_s: list[float] = []
    try:
        time.sleep(5)  # the crowd at full strength
        with requests.Session() as http:
            form_page = http.get(f"{url}/login", params={"next": f"/run/{run_id}/queue"}, timeout=120)
            hidden = etree.HTML(form_page.text).xpath("//form//input[@type='hidden']")
            answer = {**{field.get("name"): field.get("value") for field in hidden},
                      "username": CURATOR, "password": PASSWORD, "decision": "allow"}
            landed = http.post(form_page.url.split("?", 1)[0], data=answer, timeout=120)
            if CURATOR not in etree.HTML(landed.text).xpath("string(//span[@id='account'])"):
                raise SystemExit(f"review_queue: the curator could not sign in: {landed.status_code}")
            for _ in range(decisions):
                began = time.perf_counter()
                page = http.get(f"{url}/run/{run_id}/queue", timeout=120)
                pages_s.append(time.perf_counter() - began)
                tree = etree.HTML(page.text)
                fields = {field.get("name"): field.get("value")
                          for field in tree.xpath("//form[@id='decide-form']/input")}
                # (a card with evidence against and nothing proposed is acknowledged; any other rejected)
                decision = "rejected" if tree.xpath("//button[@id='reject']") else "acknowledged"
                began = time.perf_counter()
                decided = http.post(f"{url}/run/{run_id}/decide", data={**fields, "decision": decision},
                                    timeout=120)
                decided_s.append(time.perf_counter() - began)
                if decided.status_code != 200:
                    raise SystemExit(f"review_queue: a decision was answered {decided.status_code}")
    finally:
        crowd.terminate()
        out, _ = crowd.communicate(timeout=300)
    counts = {int(status): count for status, count in json.loads(out or "{}").items()}
    return pages_s, decided_s, counts


def _peak_kib(pid: int) -> int:
    """A process's peak resident memory so far (VmHWM), in KiB."""
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith("VmHWM:"):
            return int(line.split()[1])
    return 0


def _gone(element) -> bool:
    from selenium.common.exceptions import StaleElementReferenceException, WebDriverException

    try:
        element.is_enabled()
    except StaleElementReferenceException:
        return True
    except WebDriverException as error:
        return "does not belong to the document" in str(error) or "No node with given id" in str(error)
    return False


if __name__ == "__main__":
    main()
