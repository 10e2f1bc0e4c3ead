#!/usr/bin/env python3
"""`refbot verify` on real statements and their real reference pages: WTR is this task.

    benchmarks/verify.py DEV_DIR [--variant live|dead|moved|all] [--textrich] [--out FILE.jsonl] [--limit N]
                         [--ids ID,…] [--judge transformers|openai] [--judge-url URL] [--judge-model NAME]
                         [--threads N] [--judge-dtype bfloat16|float32] [--workers N]

``DEV_DIR`` is ``../shared/data/wtr-dev`` (``dev.jsonl``, ``pages.jsonl``, ``pages/``). Each row's statement is put
into a Wikidata-shaped Oxigraph store under an invented subject item (as ``real_pages.py`` does), this time **with
its reference**: a reference URL (P854) naming the row's real page, served on loopback at its original host's path,
retrieved (P813) 2020-01-01. Then `refbot verify` runs over every item (``bot.verify_run.VerifyRun`` over one
``bot.wiring.Wiring``, the product's default options), and each reference's finding is compared with the
annotators' label (supports ⇔ the page supports the statement).

Variants: ``live`` (the page as saved); ``dead`` (its address answers 404; the Wayback stand-in holds the page as a
snapshot of 2019-12-01 and another of 2021-06-01 that is a "page not found" page: the copy closest before the
retrieved date must be read); ``moved`` (its address redirects to the site's front page; the same snapshots). A
dead or moved reference is right when it is found dead with its archived copy, and the copy's words are judged as
the live page's are.

Printed per variant, on all rows and on ProVe's text-rich subset: accuracy, precision and recall of "supports",
specificity, F1-macro; findings by the annotators' label (1.A–1.D support, 2.A refutes, 2.B not enough
information); ProVe's own score on the same rows (``prove_score`` > 0: ProVe passes the passage as support); and
ProVe's published figures (text-rich: accuracy 0.875, F1-macro 0.829). Rows go to ``--out`` as they finish; a
row already there is not verified again.
"""

from __future__ import annotations

import argparse
import json
import re
import shutil
import statistics
import sys
import tempfile
import time
import uuid
from collections import Counter
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any
from urllib.parse import quote

ROOT = Path(__file__).resolve().parent.parent
sys.path[:0] = [str(ROOT), str(Path(__file__).resolve().parent)]

import bot  # noqa: E402
from bot.demo.world import Reply  # noqa: E402
from bot.options import load_options  # noqa: E402
from bot.ledger.ledger import RunLedger  # noqa: E402
from bot.selection.worklists import Worklist  # noqa: E402
from bot.verifying.records import ReferenceCheck  # noqa: E402
from bot.verify_run import VerifyRun  # noqa: E402
from bot.wiring import Wiring  # noqa: E402
from real_pages import Case, Page, PagesWorld, Turtle, read_done, read_pages  # noqa: E402

VARIANTS = ("live", "dead", "moved")
RETRIEVED = "2020-01-01"
SNAPSHOT = "20191201000000"  # the page as it was before the reference was retrieved: the copy to read
LATER = "20210601000000"  # after: the site's "not found" page, which must not be read instead
NOT_FOUND = (b"<!doctype html><html><head><title>Page not found</title></head><body><h1>Page not found</h1>"
             b"<p>The page you requested does not exist.</p></body></html>")
PROVE = {"accuracy": 0.875, "f1_macro": 0.829}  # ProVe's published figures on WTR's text-rich subset
# Characters an IRI in Turtle may not hold as they are.
_IRI_UNSAFE = re.compile(r'[\s<>"{}|\\^`]')


def served_address(page: Page, variant: str) -> str:
    """Where the variant's reference points: the page's own address, or under /__dead__ or /__moved__."""
    return page.address if variant == "live" else f"/__{variant}__{page.address}"


class CitingTurtle(Turtle):
    """real_pages' store, each statement with a reference naming its page."""

    def cited(self, case: Case, number: int, page: Page) -> str:
        item = self.statement(case, number)
        guid = str(uuid.uuid5(uuid.NAMESPACE_URL, f"{case.row['id']}:{case.variant}")).upper()
        address = _IRI_UNSAFE.sub(lambda m: quote(m.group()), served_address(page, case.variant))
        reference = uuid.uuid5(uuid.NAMESPACE_URL, f"reference:{case.row['id']}:{case.variant}").hex + "00000000"
        self.parts.append(
            f"s:{item}-{guid} prov:wasDerivedFrom ref:{reference} .\n"
            f"ref:{reference} a wikibase:Reference ; pr:P854 <{{site:{page.host}}}{address}> ;\n"
            f'  pr:P813 "{RETRIEVED}T00:00:00Z"^^xsd:dateTime .\n')
        return item


@dataclass
class VerifyPagesWorld(PagesWorld):
    """Pages at their addresses; under /__dead__ a 404, under /__moved__ a redirect to the front page."""

    def answer(self, site: str, path: str, query: dict[str, list[str]], raw_path: str = "", *, method: str = "GET",
               params: dict[str, str] | None = None, cookies: dict[str, str] | None = None,
               authorization: str = "") -> Reply:
        if path.startswith("/__dead__/"):
            return Reply(404, NOT_FOUND)
        if path.startswith("/__moved__/"):
            return Reply(301, b"", headers=(("Location", f"{self.base(site)}/"),))
        return super().answer(site, path, query, raw_path, method=method, params=params, cookies=cookies,
                              authorization=authorization)


def build_world(directory: Path, cases: Sequence[Case], pages: Mapping[str, Page]
                ) -> tuple[VerifyPagesWorld, list[Case]]:
    turtle = CitingTurtle()
    placed = [Case(case.row, case.variant, case.value, turtle.cited(case, number, pages[case.row["id"]]))
              for number, case in enumerate(cases)]
    (directory / "sites").mkdir(parents=True)
    for host in {page.host for page in pages.values()}:
        (directory / "sites" / host).mkdir()
    (directory / "world.ttl").write_text(turtle.text(), encoding="utf-8")
    snapshots = []
    for case in cases:
        if case.variant == "live":
            continue
        page = pages[case.row["id"]]
        url = f"{{site:{page.host}}}{served_address(page, case.variant)}"
        for stamp, content in ((SNAPSHOT, page.content), (LATER, NOT_FOUND)):
            file = Path("archive") / stamp / case.variant / f"{case.row['id']}.html"
            (directory / file).parent.mkdir(parents=True, exist_ok=True)
            (directory / file).write_bytes(content)
            snapshots.append({"url": url, "timestamp": stamp, "file": str(file)})
    for name, value in (("entities.json", {}), ("search.json", []), ("wayback.json", snapshots),
                        ("expected.json", {})):
        (directory / name).write_text(json.dumps(value), encoding="utf-8")
    world = VerifyPagesWorld(data=directory, workdir=directory)
    world.pages = {(page.host, page.key): page.file for page in pages.values()}
    return world, placed


def record(case: Case, check: ReferenceCheck | None, seconds: float, error: str = "") -> dict[str, Any]:
    row = case.row
    entry: dict[str, Any] = {
        "id": row["id"], "variant": case.variant, "label": row["label"], "author_label": row["author_label"],
        "textrich": bool(row.get("prove_textrich_subset")), "prove_score": row.get("prove_score"),
        "datatype": row["datatype"], "property_id": row["property_id"], "seconds": round(seconds, 2)}
    if check is None:
        return {**entry, "finding": "harness error", "reason": error}
    document = check.document
    used = document.retrieved.used if document is not None and document.retrieved is not None else None
    return {**entry, "finding": check.finding.value, "archived": check.archived.value if check.archived else None,
            "judged": check.judged.value if check.judged else None, "support": check.support,
            "reason": check.reason[:400], "archive_timestamp": used.archive_timestamp if used else "",
            "sentence": check.sentence[:300], "other_value": check.other_value, "asked": check.asked,
            "fault": str(check.fault) if check.fault else ""}


def scores(pairs: Sequence[tuple[bool, bool]]) -> dict[str, float]:
    """(predicted supports, labelled supports) pairs → accuracy, P, R, specificity, F1 of both classes, F1-macro."""
    tp = sum(1 for p, g in pairs if p and g)
    fp = sum(1 for p, g in pairs if p and not g)
    tn = sum(1 for p, g in pairs if not p and not g)
    fn = sum(1 for p, g in pairs if not p and g)

    def ratio(a: int, b: int) -> float:
        return a / b if b else 0.0
    precision, recall = ratio(tp, tp + fp), ratio(tp, tp + fn)
    npv, specificity = ratio(tn, tn + fn), ratio(tn, tn + fp)
    f1_yes = ratio(2 * precision * recall * 1000, (precision + recall) * 1000) if precision + recall else 0.0
    f1_no = ratio(2 * npv * specificity * 1000, (npv + specificity) * 1000) if npv + specificity else 0.0
    return {"n": len(pairs), "accuracy": ratio(tp + tn, len(pairs)), "precision": precision, "recall": recall,
            "specificity": specificity, "f1_supports": f1_yes, "f1_not": f1_no, "f1_macro": (f1_yes + f1_no) / 2}


def line(name: str, found: Mapping[str, float]) -> str:
    return (f"  {name:<34} n={int(found['n']):>3}  accuracy {found['accuracy']:.3f}  P {found['precision']:.3f}  "
            f"R {found['recall']:.3f}  specificity {found['specificity']:.3f}  F1-macro {found['f1_macro']:.3f}")


def summarise(entries: Sequence[Mapping[str, Any]]) -> list[str]:
    lines = []
    for variant in VARIANTS:
        rows = [entry for entry in entries if entry["variant"] == variant]
        if not rows:
            continue
        lines.append(f"verify, {variant} pages ({len(rows)} references):")
        textrich = [entry for entry in rows if entry["textrich"]]
        for subset, kept in (("all rows", rows), ("text-rich rows", textrich)):
            if not kept:
                continue
            ours = [(entry["judged"] == "supports", entry["label"] is True) for entry in kept]
            lines.append(line(f"refbot, {subset}", scores(ours)))
            theirs = [((entry["prove_score"] or 0) > 0, entry["label"] is True) for entry in kept
                      if entry["prove_score"] is not None]
            if theirs:
                lines.append(line(f"ProVe's score > 0, {subset}", scores(theirs)))
        lines.append(f"  ProVe published (text-rich): accuracy {PROVE['accuracy']:.3f}, "
                     f"F1-macro {PROVE['f1_macro']:.3f}")
        findings = Counter(entry["finding"] for entry in rows)
        lines.append("  findings: " + ", ".join(f"{n} {name}" for name, n in findings.most_common()))
        by_label: dict[str, Counter] = {}
        for entry in rows:
            by_label.setdefault(str(entry["author_label"]), Counter())[entry["judged"] or entry["finding"]] += 1
        for label in sorted(by_label):
            lines.append(f"  {label:<5} " + ", ".join(f"{n} {name}" for name, n in by_label[label].most_common()))
        if variant != "live":
            archived = sum(1 for entry in rows if entry["finding"] == "dead-archived")
            right = sum(1 for entry in rows if entry["finding"] == "dead-archived"
                        and entry["archive_timestamp"] == SNAPSHOT)
            lines.append(f"  found dead with an archived copy: {archived} of {len(rows)}; the copy closest before "
                         f"the retrieved date ({SNAPSHOT[:8]}): {right}")
        seconds = [entry["seconds"] for entry in rows]
        lines.append(f"  seconds per reference: median {statistics.median(seconds):.1f}, total {sum(seconds):.0f}")
        misses = [entry for entry in rows if entry["label"] is True and entry["judged"] != "supports"]
        wrong = [entry for entry in rows if entry["label"] is not True and entry["judged"] == "supports"]
        for title, shown in (("supported rows not found", misses), ("false supports", wrong)):
            if shown:
                lines.append(f"  {title}:")
                lines += [f"    {e['id']} {e['property_id']} {e['finding']}: {e['reason'][:150]}" for e in shown]
    return lines


def arguments() -> argparse.Namespace:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("dev", type=Path, metavar="DEV_DIR", help="dev.jsonl, pages.jsonl and pages/")
    parser.add_argument("--variant", choices=(*VARIANTS, "all"), default="live")
    parser.add_argument("--textrich", action="store_true", help="ProVe's text-rich rows only")
    parser.add_argument("--out", type=Path, metavar="FILE", help="per-row results (JSON Lines); resumed if it exists")
    parser.add_argument("--limit", type=int, metavar="N", help="the first N rows only")
    parser.add_argument("--ids", action="extend", type=lambda text: [i for i in re.split(r"[,\s]+", text) if i],
                        metavar="ID,…", help="these rows only (repeatable)")
    parser.add_argument("--judge", choices=("transformers", "openai"))
    parser.add_argument("--judge-url", help="an OpenAI-compatible server, e.g. http://127.0.0.1:8000/v1")
    parser.add_argument("--judge-model")
    parser.add_argument("--threads", type=int, help="CPU threads of the in-process judge")
    parser.add_argument("--judge-dtype", choices=("bfloat16", "float32"))
    parser.add_argument("--workers", type=int, default=1, help="references verified at once (1)")
    return parser.parse_args()


def main() -> int:
    args = arguments()
    print(f"verify: bot from {Path(bot.__file__).parent}", flush=True)
    try:
        rows = [json.loads(line) for line in (args.dev / "dev.jsonl").read_text(encoding="utf-8").splitlines()
                if line.strip()]
    except (OSError, json.JSONDecodeError) as error:
        print(f"verify: cannot read {args.dev / 'dev.jsonl'}: {error}", file=sys.stderr)
        return 2
    chosen = [row for row in rows if (not args.ids or row["id"] in args.ids)
              and (not args.textrich or row.get("prove_textrich_subset"))][: args.limit]
    pages = read_pages(args.dev, rows)
    variants = VARIANTS if args.variant == "all" else (args.variant,)
    cases = [Case(row, variant, str(row["object"])) for variant in variants for row in chosen if row["id"] in pages]
    done = {(key[0], key[1]): entry for key, entry in read_done(args.out).items()
            if entry.get("finding") != "harness error"}
    entries = [done[case.key] for case in cases if case.key in done]
    todo = [case for case in cases if case.key not in done]
    print(f"verify: {len(chosen)} rows, {len(cases)} references ({', '.join(variants)}); {len(todo)} to verify",
          flush=True)
    if todo:
        verify_all(args, todo, entries)
    print("\n".join(summarise(entries)))
    return 1 if any(entry["finding"] in ("error", "harness error") for entry in entries) else 0


def verify_all(args: argparse.Namespace, todo: Sequence[Case], entries: list[dict[str, Any]]) -> None:
    pages = read_pages(args.dev, [case.row for case in todo])
    with tempfile.TemporaryDirectory(prefix="refbot-verify-bench-") as folder:
        world, placed = build_world(Path(folder) / "world", todo, pages)
        by_item = {case.item: case for case in placed}
        with world:
            empty = Path(folder) / "empty.ini"
            empty.write_text("", encoding="utf-8")
            judge = args.judge or ("openai" if args.judge_url else None)
            options = load_options(empty, environ={}, overrides={
                **world.options(), "judge_backend": judge, "judge_url": args.judge_url, "judge_model": args.judge_model,
                "threads": args.threads, "judge_dtype": args.judge_dtype, "check_workers": args.workers,
                "run_ledger": Path(folder) / "runs.sqlite", "check_reports": Path(folder) / "reports"})
            parts = Wiring(options)
            began = time.monotonic()
            parts.verify_tools  # noqa: B018 (the judge loads here, once)
            print(f"verify: judge {options.judge.backend} {options.judge.model} loaded in "
                  f"{time.monotonic() - began:.1f} s", flush=True)
            out = args.out.open("a", encoding="utf-8") if args.out else None
            seen = set()
            try:
                with RunLedger(options.run.ledger) as ledger, \
                        VerifyRun.open(parts, Worklist.of_items([case.item for case in placed]), ledger) as run:
                    last = time.monotonic()

                    def progress(step: Any) -> None:
                        nonlocal last
                        now = time.monotonic()
                        case = by_item[step.check.statement.item]
                        entry = record(case, step.check, now - last)
                        last = now
                        seen.add(case.key)
                        entries.append(entry)
                        if out is not None:
                            out.write(json.dumps(entry, ensure_ascii=False) + "\n")
                            out.flush()
                        print(f"[{step.done}/{step.total}] {case.row['id']} {case.variant:<5} {entry['finding']:<16} "
                              f"{entry['judged'] or '':<16} label {case.row['label']!s:<5} {entry['seconds']:>6.1f} s",
                              flush=True)
                    result = run.verify(on_progress=progress)
                if result.failure is not None:
                    print(f"verify: the run stopped: {result.failure}", file=sys.stderr)
                missing = [case for case in placed if case.key not in seen]
                for case in missing:
                    entries.append(record(case, None, 0.0, "no reference of this statement was verified"))
            finally:
                if out is not None:
                    out.close()
                shutil.rmtree(Path(folder) / "reports", ignore_errors=True)


if __name__ == "__main__":
    sys.exit(main())
