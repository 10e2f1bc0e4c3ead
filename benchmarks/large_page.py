#!/usr/bin/env python3
"""One very large page: the seconds and the peak memory of reading it and of pre-ranking its paragraphs.

    benchmarks/large_page.py page [--paragraphs 92000] [--chars 182] [--no-embeddings] [--threads 2]
    benchmarks/large_page.py rank [--paragraphs 20000] [--no-embeddings] [--threads 2]
    benchmarks/large_page.py extract [--paragraphs 20000] [--chars 950] [--trace]

``page``: one huge page (17.4 MB by default) as ``refbot check`` reads it once fetched: ``extract`` then
``queue``, with the sentence-embedding model loaded first (unless ``--no-embeddings``), as in a check; prints the
seconds of each (and of the embedding) and the peak RSS of reading and ranking it above the process's RSS just
before (the model loaded, the body in hand; Linux: the peak is restarted there).

``rank``: a page whose every paragraph names the statement's value (Marie Curie, award received, Nobel Prize in
Physics) is queued for the judge as ``refbot check`` queues a document (``bot.checking.judging.queue``, with
the sentence-embedding model unless ``--no-embeddings``); prints the seconds, the paragraphs embedded and queued,
and the process's peak RSS (``resource.getrusage``). ``extract``: a synthetic HTML page of that many ``<p>`` of
about ``--chars`` characters goes through ``bot.documents.paragraphs.extract``; ``--trace`` adds the Python
allocations at the peak (tracemalloc, which sees Python objects only, not lxml's trees). Run one phase per
process: the peak RSS is the process's.
"""

from __future__ import annotations

import argparse
import resource
import sys
import time
from collections.abc import Callable
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path[:0] = [str(ROOT)]

FILLER = ("The committee's archive, opened to historians decades later, describes the deliberations of that year "
          "in detail, including letters between members, drafts of the citation and notes on the candidates. ")


def peak_mb() -> float:
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024


def reset_peak() -> float:
    """Starts the process's peak RSS again from its RSS now (Linux: ``clear_refs``); returns that RSS in MB."""
    with open("/proc/self/clear_refs", "w") as clear:
        clear.write("5")
    return _status_mb("VmRSS")


def peak_since_reset() -> float:
    return _status_mb("VmHWM")


def _status_mb(field: str) -> float:
    with open("/proc/self/status") as status:
        line = next(line for line in status if line.startswith(field + ":"))
    return int(line.split()[1]) / 1024


def statement():
    from bot.datamodel import Statement, Value

    return Statement("Q7186", "Marie Curie", "Q7186$1", "P166", "award received",
                     Value("wikibase-item", "Q38104", "Nobel Prize in Physics"))


def paragraph_text(number: int, chars: int) -> str:
    text = f"In record {number}, Marie Curie is listed as a laureate of the Nobel Prize in Physics. "
    while len(text) < chars:
        text += FILLER
    return text[:chars].rsplit(" ", 1)[0] + "."


def page_body(paragraphs: int, chars: int) -> bytes:
    return ("<html lang='en'><head><title>Laureates</title></head><body><article><h1>Laureates</h1>"
            + "".join(f"<p>{paragraph_text(number, chars)}</p>\n" for number in range(paragraphs))
            + "</article></body></html>").encode()


def embedder(arguments: argparse.Namespace, embedded: list[float]
             ) -> Callable[[list[str]], list[list[float]]] | None:
    """The check's sentence-embedding model (None with ``--no-embeddings``), counting the paragraphs it embeds
    (``embedded[0]``) and the seconds it takes (``embedded[1]``)."""
    if arguments.no_embeddings:
        return None
    from bot import modelstore
    from bot.checking.embedding import SentenceEmbedder

    model = SentenceEmbedder(modelstore.resolve("all-minilm-l6-v2", modelstore.default_cache()),
                             threads=arguments.threads)

    def counted(texts: list[str]) -> list[list[float]]:
        started = time.perf_counter()
        vectors = model(texts)
        embedded[0] += len(texts) - 1  # the verbalised statement is the first
        embedded[1] += time.perf_counter() - started
        return vectors
    return counted


def page_phase(arguments: argparse.Namespace) -> None:
    from bot.checking.judging import Strategy, queue
    from bot.documents.paragraphs import extract

    embedded = [0.0, 0.0]
    embed = embedder(arguments, embedded)
    warm_up = extract(b"<html><body><p>" + b"Marie Curie won the Nobel Prize in Physics. " * 5 + b"</p></body></html>",
                      "text/html", "https://small.example/")
    queue(warm_up.paragraphs, statement(), Strategy(), embed, title="Laureates")
    body = page_body(arguments.paragraphs, arguments.chars)
    embedded[:] = [0.0, 0.0]
    baseline = reset_peak()
    started = time.perf_counter()
    document = extract(body, "text/html", "https://big.example/")
    extracted = time.perf_counter()
    read_peak = peak_since_reset()
    queued = queue(document.paragraphs, statement(), Strategy(), embed, title=document.title)
    finished = time.perf_counter()
    size = len(body) / 1e6
    cut = f" ({document.cut})" if document.cut else ""
    print(f"page: {size:.1f} MB, {arguments.paragraphs} paragraphs; {len(document.paragraphs)} extracted{cut} in "
          f"{extracted - started:.1f} s, {len(queued)} queued in {finished - extracted:.1f} s ({embedded[0]:.0f} "
          f"embedded in {embedded[1]:.1f} s); {finished - started:.1f} s in all; peak RSS "
          f"+{peak_since_reset() - baseline:.0f} MB over {baseline:.0f} MB before reading the page "
          f"(+{read_peak - baseline:.0f} MB while extracting)")


def rank_phase(arguments: argparse.Namespace) -> None:
    from bot.checking.judging import Strategy, queue
    from bot.datamodel import Paragraph

    embedded = [0.0, 0.0]
    embed = embedder(arguments, embedded)
    paragraphs = [Paragraph(paragraph_text(number, arguments.chars), "https://big.example/", number)
                  for number in range(arguments.paragraphs)]
    before = peak_mb()
    started = time.perf_counter()
    queued = queue(paragraphs, statement(), Strategy(), embed, title="Laureates")
    seconds = time.perf_counter() - started
    print(f"rank: {len(paragraphs)} paragraphs ({sum(len(p.text) for p in paragraphs) / 1e6:.1f} MB of text), "
          f"{embedded[0]:.0f} embedded, {len(queued)} queued in {seconds:.1f} s; peak RSS {peak_mb():.0f} MB "
          f"({before:.0f} MB before ranking)")


def extract_phase(arguments: argparse.Namespace) -> None:
    from bot.documents.paragraphs import extract

    body = page_body(arguments.paragraphs, arguments.chars)
    import trafilatura  # noqa: F401  (imported before the baseline)
    import lxml.etree  # noqa: F401
    extract(b"<html><body><p>" + b"warm up " * 20 + b"</p></body></html>", "text/html", "https://big.example/")
    if arguments.trace:
        import tracemalloc

        tracemalloc.start(25)
    before = peak_mb()
    started = time.perf_counter()
    document = extract(body, "text/html", "https://big.example/")
    seconds = time.perf_counter() - started
    size = len(body) / 1e6
    print(f"extract: {size:.1f} MB page, {len(document.paragraphs)} paragraphs via {document.extractor} in "
          f"{seconds:.1f} s; peak RSS {peak_mb():.0f} MB ({before:.0f} MB before: "
          f"+{peak_mb() - before:.0f} MB, {(peak_mb() - before) / size:.1f}x the page)")
    if arguments.trace:
        import tracemalloc

        current, peak = tracemalloc.get_traced_memory()
        print(f"tracemalloc: {current / 1e6:.0f} MB held, {peak / 1e6:.0f} MB at the peak")
        snapshot = tracemalloc.take_snapshot()
        for stat in snapshot.statistics("traceback")[:6]:
            print(f"{stat.size / 1e6:8.1f} MB", " <- ".join(f"{Path(frame.filename).name}:{frame.lineno}"
                                                            for frame in list(stat.traceback)[-6:]))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("phase", choices=("page", "rank", "extract"))
    parser.add_argument("--paragraphs", type=int, help="92,000 for page, else 20,000")
    parser.add_argument("--chars", type=int, help="182 for page (a 17.4 MB page), else 250")
    parser.add_argument("--no-embeddings", action="store_true")
    parser.add_argument("--threads", type=int, default=2)
    parser.add_argument("--trace", action="store_true")
    arguments = parser.parse_args()
    page = arguments.phase == "page"
    arguments.paragraphs = arguments.paragraphs or (92_000 if page else 20_000)
    arguments.chars = arguments.chars or (182 if page else 250)
    {"page": page_phase, "rank": rank_phase, "extract": extract_phase}[arguments.phase](arguments)


if __name__ == "__main__":
    main()
