#!/usr/bin/env python3
"""Grounding documents: paragraph extraction throughput and fetch concurrency.

    benchmarks/documents.py SHARED_DIR [--repeat 5] [--hosts 8] [--pages 6] [--latency 0.1] [--delay 0.5]

1. Extraction (pure, no network): pages/s and paragraphs per page for the test fixture corpus (news pages,
   Czech pages in four encodings, a press notice, a PDF) and for the real Wikipedia samples in
   SHARED_DIR/fixtures/wikipedia_html/ — read both as a web page (trafilatura) and as an article whose
   citations are resolved (Parsoid structure).
2. Fetching: local servers on 127.0.0.1 that answer each request after LATENCY seconds, HOSTS of them with PAGES
   pages each; reports wall time, pages/s, the concurrency achieved (busy request-seconds / wall seconds), the
   most requests in flight at once and per host, serial versus `retrieve_many` with the politeness delay.
"""

from __future__ import annotations

import argparse
import statistics
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path[:0] = [str(ROOT), str(ROOT / "tests")]

from bot.documents import paragraph_rules  # noqa: E402
from bot.wiring import Wiring  # noqa: E402
from bot.documents.citations import parse_article  # noqa: E402
from bot.documents.paragraphs import extract  # noqa: E402
from bot.documents.retrieval import Wanted, retrieve, retrieve_many  # noqa: E402
from bot.options import load_options  # noqa: E402


def corpus() -> list[tuple[str, bytes, str]]:
    from documents_world import DOCS, NEWS, czech_page, make_pdf

    pages = [("prize-news.html", NEWS, "text/html"), ("notice.txt", (DOCS / "notice.txt").read_bytes(), "text/plain"),
             ("decorations.pdf", make_pdf(), "application/pdf")]
    pages += [(f"havel-cs.{encoding}.html", czech_page(encoding, declared), "text/html")
              for encoding, declared in (("utf-8", True), ("iso-8859-2", True), ("windows-1250", True),
                                         ("windows-1250", False))]
    return pages


def time_extraction(name: str, pages: list[tuple[str, bytes, str]], repeat: int) -> None:
    rules = paragraph_rules(load_options(ROOT / "tests" / "data" / "documents" / "empty.ini", environ={}).paragraph)
    runs = []
    paragraphs = 0
    for _ in range(repeat):
        started = time.perf_counter()
        paragraphs = sum(len(extract(body, kind, page, rules).paragraphs) for page, body, kind in pages)
        runs.append(time.perf_counter() - started)
    seconds = statistics.median(runs)
    size = sum(len(body) for _, body, _ in pages) / 1e6
    print(f"{name:<38} {len(pages):>3} pages {size:6.2f} MB  {len(pages) / seconds:7.1f} pages/s  "
          f"{size / seconds:5.2f} MB/s  {paragraphs / len(pages):5.1f} paragraphs/page")


def time_articles(samples: list[Path], repeat: int) -> None:
    texts = [path.read_text(encoding="utf-8") for path in samples]
    runs = []
    counts: tuple[int, int] = (0, 0)
    for _ in range(repeat):
        started = time.perf_counter()
        parsed = [parse_article(text) for text in texts]
        runs.append(time.perf_counter() - started)
        counts = (sum(len(p) for p in parsed), sum(len({c.note for q in p for c in q.citations}) for p in parsed))
    seconds = statistics.median(runs)
    size = sum(len(text.encode()) for text in texts) / 1e6
    print(f"{'wikipedia_html, citations resolved':<38} {len(texts):>3} pages {size:6.2f} MB  "
          f"{len(texts) / seconds:7.1f} pages/s  {size / seconds:5.2f} MB/s  {counts[0] / len(texts):5.1f} "
          f"paragraphs/page, {counts[1]} citations")


def concurrency(hosts: int, pages: int, latency: float, delay: float, workers: int) -> None:
    from documents_world import NEWS
    from servers import RecordingServer, Reply

    servers = [RecordingServer(lambda request: Reply(200, NEWS, {"Content-Type": "text/html"}, delay=latency))
               for _ in range(hosts)]
    try:
        wanted = [Wanted(f"{servers[n % hosts].url}/story/{n}") for n in range(hosts * pages)]
        for label, politeness, parallel in (("serial, no pause", 0.0, False),
                                            (f"retrieve_many, {delay:g} s pause per host", delay, True),
                                            ("retrieve_many, no pause", 0.0, True)):
            options = load_options(ROOT / "tests" / "data" / "documents" / "empty.ini", environ={}, overrides=dict(
                contact="benchmark@example.org", fetch_allow_addresses=("127.0.0.1",), fetch_cache_days=0.0,
                fetch_delay=politeness, fetch_robots=False, archive_enabled=False, fetch_workers=workers))
            fetcher = Wiring(options).fetcher
            for server in servers:
                server.requests.clear()
                server.most_in_flight = 0
            started = time.perf_counter()
            if parallel:
                results = retrieve_many(wanted, fetcher, paragraph_rules(options.paragraph),
                                        workers=options.fetch.workers)
            else:
                results = [retrieve(w.url, fetcher, paragraph_rules(options.paragraph)) for w in wanted]
            wall = time.perf_counter() - started
            recorded = [r for server in servers for r in server.requests]
            busy = sum(r.finished - r.started for r in recorded)
            starts = sorted((r.started, 1) for r in recorded) + sorted((r.finished, -1) for r in recorded)
            level = most = 0
            for _, step in sorted(starts, key=lambda event: (event[0], event[1])):
                level += step
                most = max(most, level)
            ok = sum(1 for r in results if r.paragraphs)
            print(f"{label:<38} {len(wanted):>3} pages  {wall:6.2f} s  {len(wanted) / wall:6.1f} pages/s  "
                  f"concurrency {busy / wall:4.2f}  most in flight {most}  per host "
                  f"{max(s.most_in_flight for s in servers)}  read {ok}/{len(wanted)}")
    finally:
        for server in servers:
            server.close()


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("shared", type=Path, help="the shared directory (holding fixtures/wikipedia_html/)")
    parser.add_argument("--repeat", type=int, default=5, help="extraction runs; the median is reported")
    parser.add_argument("--hosts", type=int, default=8, help="local servers, one per host")
    parser.add_argument("--pages", type=int, default=6, help="pages per host")
    parser.add_argument("--latency", type=float, default=0.1, help="seconds each answer takes")
    parser.add_argument("--delay", type=float, default=0.5, help="politeness pause per host, seconds")
    parser.add_argument("--workers", type=int, default=8, help="parallel hosts")
    args = parser.parse_args()
    samples = sorted((args.shared / "fixtures" / "wikipedia_html").rglob("*.html"))
    if not samples:
        parser.error(f"no Wikipedia HTML samples under {args.shared / 'fixtures' / 'wikipedia_html'}")
    print("Paragraph extraction (median of", args.repeat, "runs, one CPU thread)")
    time_extraction("fixture corpus (tests/data/documents)", corpus(), args.repeat)
    wiki = [(path.name, path.read_bytes(), "text/html") for path in samples]
    time_extraction("wikipedia_html as web pages", wiki, args.repeat)
    time_articles(samples, args.repeat)
    print(f"\nFetching: {args.hosts} local hosts × {args.pages} pages, {args.latency * 1000:.0f} ms latency each")
    concurrency(args.hosts, args.pages, args.latency, args.delay, args.workers)
    return 0


if __name__ == "__main__":
    sys.exit(main())
