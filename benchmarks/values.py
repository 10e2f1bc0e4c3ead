"""How long finding a statement's value in a paragraph takes (``bot.values``), per datatype.

    benchmarks/values.py [WTR.jsonl] [--repeat 20]

With a data set in the WTR format (``datatype``, ``object``, ``text``), each row's value is looked for in each of
its passages; without one, in paragraphs built here. Prints milliseconds per paragraph (median and 95th
percentile) and per finder built, and how many paragraphs the value was found in. Target: under 5 ms per paragraph.
"""

from __future__ import annotations

import argparse
import json
import statistics
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from bot.datamodel import Value  # noqa: E402
from bot.values import value_finder  # noqa: E402

FILLER = ("The building was completed after five years of meetings, arguments and fundraising, and it has become "
          "a place of pilgrimage for architects from all over the city. ")
BUILT = [
    (Value("time", "+1943-01-14T00:00:00Z/11", "1943-01-14"), "She was born on January 14, 1943 in Brno. "),
    (Value("time", "+1943-00-00T00:00:00Z/9", "1943"), "The company was founded in 1943. "),
    (Value("quantity", "85868U1", "85868 gross tonnage"), "Her gross tonnage is 85,868. "),
    (Value("string", '"ABC-123"', "ABC-123"), "The catalogue number is ABC–123. "),
    (Value("wikibase-item", "Q1", "Czech Technical University in Prague"),
     "He studied at the Czech Technical University in Prague. "),
]


def cases(path: Path | None) -> list[tuple[Value, list[str]]]:
    if path is None:
        return [(value, [FILLER * 6, FILLER * 3 + sentence + FILLER * 3]) for value, sentence in BUILT]
    found = []
    for line in path.read_text(encoding="utf-8").splitlines():
        if line.strip():
            row = json.loads(line)
            if row.get("datatype"):
                value = Value(row["datatype"], row["object"], row["object"])
                found.append((value, [passage for passage in row["text"].split("\n") if passage.strip()]))
    return found


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("dataset", nargs="?", type=Path)
    parser.add_argument("--repeat", type=int, default=20)
    args = parser.parse_args()
    per_paragraph: dict[str, list[float]] = {}
    built: list[float] = []
    hits: dict[str, list[int]] = {}
    for value, paragraphs in cases(args.dataset):
        started = time.perf_counter()
        find = value_finder(value)
        built.append((time.perf_counter() - started) * 1000)
        for paragraph in paragraphs:
            started = time.perf_counter()
            for _ in range(args.repeat):
                result = find(paragraph)
            per_paragraph.setdefault(value.datatype, []).append((time.perf_counter() - started) * 1000 / args.repeat)
            counts = hits.setdefault(value.datatype, [0, 0])
            counts[0] += result is not None
            counts[1] += 1
    print(f"{'datatype':<16} {'paragraphs':>10} {'found':>6} {'median ms':>10} {'p95 ms':>8}")
    for datatype, times in sorted(per_paragraph.items()):
        ordered = sorted(times)
        p95 = ordered[min(len(ordered) - 1, int(0.95 * len(ordered)))]
        print(f"{datatype:<16} {len(times):>10} {hits[datatype][0]:>6} {statistics.median(times):>10.3f} {p95:>8.3f}")
    print(f"finder built: median {statistics.median(built):.3f} ms, max {max(built):.3f} ms (once per statement)")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
