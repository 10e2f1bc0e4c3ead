#!/usr/bin/env python3
"""What a curator's review costs in the queue: the keystrokes and clicks, the scrolling and the seconds (the server's
and the browser's, not the reading) to decide every proposal of a demo run in `refbot review`'s queue.

    benchmarks/review_queue.py [--judge transformers|scripted] [--width 1280] [--height 800]
                               [--screenshots reports/review-queue]

The run is the one a curator tried: the demo world (``bot/demo``) served on loopback, its eight items checked by
``refbot run``'s code with the default judge (Qwen2.5-Coder-1.5B in-process; ``--judge scripted`` supports every
paragraph asked about, for a quick look), the trace kept in a fresh run ledger. `refbot review`'s server serves it;
headless Chromium (Debian's, through chromedriver) opens the queue in a window of ``--width`` × ``--height`` and
decides each card with one key — ``a`` where the demo world's answers (``expected.json``) say the statement is
supported or stated in a record, ``r`` otherwise — counting every key and click, and checking before each that the
card's actions are in view with the page at its top (no scrolling to find them). Screenshots of the first card, the
archived Brno award, the Catalysis Medal's evidence against and the empty queue go to ``--screenshots``.
"""

from __future__ import annotations

import argparse
import logging
import shutil
import statistics
import sys
import tempfile
import threading
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path[:0] = [str(ROOT)]

from bot.demo.world import DemoWorld  # noqa: E402
from bot.options import Options  # noqa: E402
from bot.output.runs import default_stem, run_trace, write_run  # noqa: E402
from bot.review.queue import cards  # noqa: E402
from bot.review.server import serve  # noqa: E402
from bot.review.store import ReviewLedger, keep_for_review  # noqa: E402
from bot.runledger import RunLedger  # noqa: E402
from bot.runs import Run  # noqa: E402
from bot.selection.worklists import Worklist  # noqa: E402
from bot.wiring import Wiring  # noqa: E402

ITEMS = [f"Q99020{n}" for n in range(1, 9)]
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
        write_run(tree, default_stem(result, options.check.reports))
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
        "return {scroll: window.scrollY, height: window.innerHeight, approve: box('approve'), reject: box('reject'),"
        " card: box('card'), focused: document.activeElement ? document.activeElement.id : ''};")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--judge", choices=("transformers", "scripted"), default="transformers")
    parser.add_argument("--width", type=int, default=1280)
    parser.add_argument("--height", type=int, default=800)
    parser.add_argument("--screenshots", type=Path, default=ROOT / "reports" / "review-queue")
    args = parser.parse_args()
    logging.getLogger("waitress.queue").setLevel(logging.ERROR)  # one server thread: a queued request is expected

    from selenium.webdriver.common.action_chains import ActionChains
    from selenium.webdriver.common.by import By
    from selenium.webdriver.support.ui import WebDriverWait

    args.screenshots.mkdir(parents=True, exist_ok=True)
    with tempfile.TemporaryDirectory(prefix="refbot-queue-bench-") as name, DemoWorld(workdir=Path(name)) as world:
        tmp = Path(name)
        expected = world.expected()
        options, run_id, checked_s = demo_run(world, tmp, args.judge)
        with RunLedger(options.run.ledger) as ledger:
            every = cards(ReviewLedger(ledger).trace(run_id).getroot())
        proposals = [card for card in every if card.proposed]
        page = start(options, run_id)
        token = page.split("token=")[1]
        queue = page.split("?")[0] + "queue?token=" + token
        browser = chromium(args.width, args.height, tmp / "profile")
        actions, scrolled, out_of_view, tall, seconds, decided = 0, 0, 0, 0, [], {}
        try:
            browser.get(queue)
            browser.save_screenshot(str(args.screenshots / "1-first-card.png"))
            while browser.find_elements(By.ID, "card"):
                guid = browser.find_element(By.ID, "card").get_attribute("data-guid")
                if guid in decided:
                    raise SystemExit(f"review_queue: {guid} came round again after it was decided")
                shape = geometry(browser)
                scrolled += shape["scroll"] != 0
                out_of_view += not all(box and 0 <= box["top"] and box["bottom"] <= shape["height"]
                                       for box in (shape["approve"], shape["reject"]))
                tall += shape["card"]["bottom"] > shape["height"]
                if guid.startswith("Q990201$") and "Brno Innovation" in browser.find_element(By.ID, "card").text:
                    browser.save_screenshot(str(args.screenshots / "2-archived-brno-award.png"))
                key = "a" if expected.get(guid, {}).get("expected") in APPROVE else "r"
                main_element = browser.find_element(By.TAG_NAME, "main")
                began = time.perf_counter()
                ActionChains(browser).send_keys(key).perform()
                WebDriverWait(browser, 30).until(lambda _: _gone(main_element))
                WebDriverWait(browser, 30).until(lambda d: d.find_elements(By.TAG_NAME, "main"))
                seconds.append(time.perf_counter() - began)
                actions += 1
                decided[guid] = "approved" if key == "a" else "rejected"
            browser.save_screenshot(str(args.screenshots / "4-nothing-left.png"))
            browser.get(queue.replace("queue?", f"queue?show=contradicted&at={MEDAL.replace('$', '%24')}&"))
            browser.save_screenshot(str(args.screenshots / "3-catalysis-medal-evidence-against.png"))
            medal_against = "Evidence against" in browser.find_element(By.ID, "card").text
        finally:
            browser.quit()
        with RunLedger(options.run.ledger) as ledger:
            reviews = ReviewLedger(ledger).reviews(run_id)
        landed = sum(1 for guid, state in decided.items() if reviews[guid].state == state)

    print(f"review_queue: demo run of {len(ITEMS)} items checked in {checked_s:.0f} s with the {args.judge} judge; "
          f"window {args.width}×{args.height}")
    print(f"  proposals                       {len(proposals)}")
    approved = sum(state == "approved" for state in decided.values())
    print(f"  decided                         {len(decided)} ({approved} approved, {len(decided) - approved} "
          f"rejected); in the ledger: {landed}")
    print(f"  keystrokes + clicks             {actions} ({actions / max(1, len(decided)):.2f} per proposal)")
    print(f"  scrolling needed                {scrolled + out_of_view} (page not at top: {scrolled}; "
          f"actions out of view: {out_of_view})")
    print(f"  cards taller than the window    {tall}")
    if seconds:
        print(f"  seconds per decision            median {statistics.median(seconds):.3f}, max {max(seconds):.3f}, "
              f"total {sum(seconds):.2f} (key to next card, server and browser)")
    print(f"  Catalysis Medal evidence against shown: {'yes' if medal_against else 'NO'}")
    print(f"  screenshots: {args.screenshots}")


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
