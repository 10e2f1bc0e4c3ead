#!/usr/bin/env python3
"""Checking statements end to end on the demo world: the published order versus refbot's pre-ranking.

    benchmarks/check.py [--strategies paper,ranked] [--judge transformers|openai] [--judge-url URL]
                        [--judge-model NAME] [--top 3] [--no-embeddings] [--workers 1] [--justify]

Starts the demo world (bot/demo/data: 7 items, 13 unsourced statements, their expected outcomes in
expected.json), checks every statement with each strategy and the same judge, and prints per statement and in
total: LLM judgements, prompt tokens, wall time and the outcome against the expected one; then the ratios
(paper / ranked) of judgements and prompt tokens, the supported statements each found, and the seconds per
statement; and where the time went, per stage (search, article, fetch, rank, judge, justify), per judgement and
per justification, and what writing the trace and the report cost. Workers default to 1 so that the wall time
per statement is the time one statement takes.
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path[:0] = [str(ROOT)]

from bot.checking import plan_from  # noqa: E402
from bot.checking.batch import check_many  # noqa: E402
from bot.checking.items import read_item  # noqa: E402
from bot.demo.world import DemoWorld  # noqa: E402
from bot.options import load_options  # noqa: E402
from bot.selection import selection_rules  # noqa: E402
from bot.selection.unsourced import unsourced_statements  # noqa: E402
from bot.wiring import Wiring  # noqa: E402


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--strategies", default="paper,ranked")
    parser.add_argument("--judge", default="transformers", choices=("transformers", "openai"))
    parser.add_argument("--judge-url", default="http://127.0.0.1:8000/v1")
    parser.add_argument("--judge-model", default="")
    parser.add_argument("--top", type=int, default=3)
    parser.add_argument("--no-embeddings", action="store_true")
    parser.add_argument("--workers", type=int, default=1)
    parser.add_argument("--threads", type=int, default=0)
    parser.add_argument("--judge-dtype", default="bfloat16", choices=("bfloat16", "float32"),
                        help="the transformers judge's weights (float32 where the CPU has no native bfloat16)")
    parser.add_argument("--justify", action="store_true",
                        help="a justification for each proposed reference, as `refbot check --justify` (off by "
                             "default, as refbot check runs)")
    args = parser.parse_args()

    results = {}
    with DemoWorld() as world:
        expected = world.expected()
        items = sorted({case["item"] for case in expected.values()})
        base = load_options(ROOT / "tests" / "data" / "documents" / "empty.ini", environ={}, overrides={
            **world.options(), "judge_backend": args.judge, "judge_url": args.judge_url,
            "judge_model": args.judge_model or None, "check_top": args.top,
            "check_embeddings": not args.no_embeddings, "threads": args.threads, "check_workers": args.workers,
            "justify": args.justify, "judge_dtype": args.judge_dtype, "fetch_cache_days": 0})
        shared = Wiring(base)  # one endpoint, one model and one embedder for every strategy
        endpoint = shared.require_endpoint()
        statements = [s for selection in unsourced_statements(endpoint, items, selection_rules(base))
                      for s in selection.statements]
        print(f"demo world: {len(statements)} statements of {len(items)} items; judge {args.judge} "
              f"{base.judge.model if args.judge == 'transformers' else args.judge_url}; justifications "
              f"{'on, for the proposed reference' if args.justify else 'off'}")
        for strategy in args.strategies.split(","):
            options = base.replaced(check_strategy=strategy)
            parts = Wiring(options, endpoint=endpoint, backend=shared.backend, embedder=shared.embedder)
            services, tools = parts.services, parts.tools
            contexts = {item: read_item(services, options.wikidata.api_url, item, "", wiki=options.wikipedia.wiki,
                                        article_url=options.wikipedia.article_url,
                                        chunk_chars=options.wikipedia.chunk_chars) for item in items}
            started = time.monotonic()
            plan = plan_from(options.check, options.search, options.fetch.workers)
            checks = [check for _, check in check_many(((contexts[s.item], s) for s in statements), tools, plan,
                                                       workers=options.check.workers)]
            wall = time.monotonic() - started
            writing = time_trace_and_report(checks, contexts, options)
            results[strategy] = (checks, wall)
            report(strategy, checks, expected)
            stages(checks, writing)
    summary(results, expected)
    return 0


def report(strategy, checks, expected) -> None:
    print(f"\n== {strategy}")
    print(f"{'statement':<36} {'value':<38} {'judged':>6} {'tokens':>7} {'s':>6}  outcome (expected)")
    for check in sorted(checks, key=lambda c: c.statement.guid):
        want = expected.get(check.statement.guid, {}).get("expected", "?")
        print(f"{check.statement.guid[:36]:<36} {check.statement.value.text[:38]:<38} {check.asked:>6} "
              f"{check.prompt_tokens:>7} {check.elapsed_s:>6.1f}  {check.outcome.value} ({want})")
    for check in sorted(checks, key=lambda c: c.statement.guid):
        if check.outcome.value == expected.get(check.statement.guid, {}).get("expected", check.outcome.value):
            continue
        print(f"\n{check.statement.guid}: {check.outcome.value}, expected "
              f"{expected[check.statement.guid]['expected']}; the paragraphs judged:")
        for document in check.documents:
            for judged in document.judged:
                rule = judged.ranked.subject_rule or "not checked"
                print(f"  {document.candidate.url} ¶{judged.ranked.paragraph.position} "
                      f"(about the subject: {rule}) support {judged.judgement.support:.3f}: "
                      f"{judged.ranked.paragraph.text[:160]}…")


STAGES = ("search", "article", "fetch", "rank", "judge", "justify")


def stages(checks, writing: float) -> None:
    """Where the time went, per stage and per judgement."""
    count = len(checks) or 1
    print(f"\n{'statement':<36} " + " ".join(f"{stage:>8}" for stage in STAGES) + "   (seconds)")
    totals = dict.fromkeys(STAGES, 0.0)
    for check in sorted(checks, key=lambda c: c.statement.guid):
        spent = dict(check.stages)
        for stage in STAGES:
            totals[stage] += spent.get(stage, 0.0)
        print(f"{check.statement.guid[:36]:<36} " + " ".join(f"{spent.get(stage, 0.0):>8.2f}" for stage in STAGES))
    print(f"{'per statement':<36} " + " ".join(f"{totals[stage] / count:>8.2f}" for stage in STAGES)
          + f"   trace and report {writing / count:.2f}")
    asked = [judged.judgement for check in checks for judged in check.judgements if judged.asked]
    explained = [judgement for judgement in asked if judgement.justification_s]
    if asked:
        latency = sum(j.latency_s for j in asked) / len(asked)
        prompt = sum(j.prompt_tokens for j in asked) / len(asked)
        print(f"per judgement: {latency:.2f} s judging ({prompt:.0f} prompt tokens read: the question, and where "
              f"the claim has contrasts the relations' continuations of two summaries, the text read once; nothing "
              f"generated)")
    if explained:
        seconds = sum(j.justification_s for j in explained) / len(explained)
        generated = sum(j.completion_tokens for j in explained) / len(explained)
        print(f"per justification: {seconds:.2f} s ({len(explained)} written, about {generated:.0f} tokens "
              f"generated each)")


def time_trace_and_report(checks, contexts, options) -> float:
    """Seconds to build, validate and render the trace of these checks, as `refbot run` writes it."""
    import tempfile

    from bot.output import report as reports, trace as traces

    started = time.monotonic()
    by_item: dict[str, list] = {}
    for check in checks:
        by_item.setdefault(check.statement.item, []).append(traces.checked_statement_element(
            contexts[check.statement.item], check))
    info = traces.RunInfo("run", "2026-11-23T00:00:00Z", "2026-11-23T00:00:01Z", 1.0, True, options.judge.backend,
                          options.judge.model or "", options.judge.template, "", options.judge.threshold,
                          options.check.strategy, options.check.top, "", run_id="benchmark")
    tree = traces.assemble(info, [(traces.item_element(contexts[item]), elements)
                                  for item, elements in by_item.items()])
    with tempfile.TemporaryDirectory() as folder:
        traces.write(tree, Path(folder) / "trace.xml")
        reports.write_report(tree, Path(folder) / "report.html")
    return time.monotonic() - started


def summary(results, expected) -> None:
    print("\nstrategy  statements  judgements/stmt  prompt tokens/stmt  s/stmt  supported found (expected "
          "supported found / all supported found)")
    wanted = {guid for guid, case in expected.items() if case["expected"] == "supported"}
    totals = {}
    for strategy, (checks, wall) in results.items():
        count = len(checks) or 1
        asked = sum(c.asked for c in checks) / count
        tokens = sum(c.prompt_tokens for c in checks) / count
        supported = {c.statement.guid for c in checks if c.outcome.value == "supported"}
        totals[strategy] = (asked, tokens, supported)
        print(f"{strategy:<9} {len(checks):>10} {asked:>16.1f} {asked and tokens:>19.0f} {wall / count:>7.1f}  "
              f"{len(supported & wanted)} of {len(wanted)} / {len(supported)}")
    if "paper" in totals and "ranked" in totals:
        paper, ranked = totals["paper"], totals["ranked"]
        lost = (paper[2] & wanted) - ranked[2]
        print(f"\npaper / ranked: {paper[0] / max(ranked[0], 1e-9):.1f}× judgements, "
              f"{paper[1] / max(ranked[1], 1e-9):.1f}× prompt tokens; supported statements the paper order found "
              f"and ranking lost: {len(lost)}")


if __name__ == "__main__":
    sys.exit(main())
