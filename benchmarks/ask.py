#!/usr/bin/env python3
"""`refbot select --ask` measured: 44 worklist questions written for refbot, each with a gold query, over a generated
Wikidata-shaped world (``benchmarks/ask_world.py``) served on loopback by the demo world's machinery.

    benchmarks/ask.py [--candidates 3] [--kind simple|compound|negation|count] [--first N] [--seed 1]
                      [--judge transformers|openai] [--judge-url URL] [--model NAME] [--drafts-only]

It prints, per question, whether the chosen query returns exactly the gold item set (execution accuracy), how many
candidates were valid, the tokens and seconds; then the totals by kind, questions with no valid candidate, and the
input tokens a prompt listing the whole property list would need (for this world's properties, and at Wikidata's
scale: the mean tokens of one property line × 12,500 properties).

Gold sets count statements the way the prompt teaches: not deprecated, no ``prov:wasDerivedFrom`` at all.
"""

from __future__ import annotations

import argparse
import os
import statistics
import sys
import tempfile
import time
from collections import Counter
from datetime import date
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path[:0] = [str(ROOT), str(Path(__file__).resolve().parent)]

from ask_world import generate  # noqa: E402
from bot.asking.properties import IndexCache, property_index  # noqa: E402
from bot.asking.questions import answer_question, question_terms  # noqa: E402
from bot.asking.safety import QueryRefused, check, ids  # noqa: E402
from bot.demo.world import DemoWorld  # noqa: E402
from bot.options import Options, load_options  # noqa: E402
from bot.selection.binding import Query, entity_id  # noqa: E402

WIKIDATA_PROPERTIES = 12_500
PREFIXES = """PREFIX wd: <http://www.wikidata.org/entity/>
PREFIX wdt: <http://www.wikidata.org/prop/direct/>
PREFIX p: <http://www.wikidata.org/prop/>
PREFIX ps: <http://www.wikidata.org/prop/statement/>
PREFIX wikibase: <http://wikiba.se/ontology#>
PREFIX prov: <http://www.w3.org/ns/prov#>
"""


def unsourced(pid: str, n: int = 1) -> str:
    return (f"?item p:{pid} ?s{n} . ?s{n} wikibase:rank ?r{n} . FILTER(?r{n} != wikibase:DeprecatedRank) "
            f"FILTER NOT EXISTS {{ ?s{n} prov:wasDerivedFrom ?x{n} . }}")


def gold(*patterns: str, having: str = "") -> str:
    body = " ".join(patterns)
    if having:
        return f"SELECT ?item WHERE {{ {body} }} GROUP BY ?item HAVING ({having})"
    return f"SELECT DISTINCT ?item WHERE {{ {body} }}"


def questions(world: dict) -> list[tuple[str, str, str]]:
    """(kind, question, gold query); a few name the world's own towns, universities and awards."""
    label = world["labels"]
    town, uni, uni2, award = (world["towns"][0], world["universities"][0], world["universities"][4],
                              world["awards"][0])
    return [
        ("simple", "people whose date of birth has no reference", gold("?item wdt:P31 wd:Q5 .", unsourced("P569"))),
        ("simple", "dates of death without a reference", gold(unsourced("P570"))),
        ("simple", "awards received that cite nothing", gold(unsourced("P166"))),
        ("simple", "people whose alma mater is unsourced", gold(unsourced("P69"))),
        ("simple", "employers without a source", gold(unsourced("P108"))),
        ("simple", "towns whose population needs a source", gold("?item wdt:P31 wd:Q3957 .", unsourced("P1082"))),
        ("simple", "cities with an unsourced population figure", gold("?item wdt:P31 wd:Q515 .",
                                                                      unsourced("P1082"))),
        ("simple", "universities whose inception has no reference", gold("?item wdt:P31 wd:Q3918 .",
                                                                         unsourced("P571"))),
        ("simple", "awards whose date of foundation is unsourced", gold("?item wdt:P31 wd:Q618779 .",
                                                                        unsourced("P571"))),
        ("simple", "birth dates that cite nothing", gold(unsourced("P569"))),
        ("simple", "items with an unsourced inception", gold(unsourced("P571"))),
        ("simple", "human settlements whose population has no reference",
         gold("?item wdt:P31/wdt:P279* wd:Q486972 .", unsourced("P1082"))),
        ("simple", "people with an unsourced employer", gold(unsourced("P108"))),
        ("simple", "prizes received without a reference", gold(unsourced("P166"))),
        ("simple", "people whose date of death needs a source", gold(unsourced("P570"))),
        ("simple", "places whose population is not referenced", gold(unsourced("P1082"))),
        ("compound", "dates of death of Czech painters without a reference",
         gold("?item wdt:P27 wd:Q213 ; wdt:P106 wd:Q1028181 .", unsourced("P570"))),
        ("compound", "awards of Polish chemists that cite nothing",
         gold("?item wdt:P27 wd:Q36 ; wdt:P106 wd:Q593644 .", unsourced("P166"))),
        ("compound", "birth dates of Austrian architects without a source",
         gold("?item wdt:P27 wd:Q40 ; wdt:P106 wd:Q42973 .", unsourced("P569"))),
        ("compound", "employers of German writers that need a reference",
         gold("?item wdt:P27 wd:Q183 ; wdt:P106 wd:Q36180 .", unsourced("P108"))),
        ("compound", "population of Slovak towns without a reference",
         gold("?item wdt:P31 wd:Q3957 ; wdt:P17 wd:Q214 .", unsourced("P1082"))),
        ("compound", "inception of Czech universities without a source",
         gold("?item wdt:P31 wd:Q3918 ; wdt:P17 wd:Q213 .", unsourced("P571"))),
        ("compound", "awards of painters born in the 19th century that cite nothing",
         gold("?item wdt:P106 wd:Q1028181 ; wdt:P569 ?born . FILTER(YEAR(?born) >= 1801 && YEAR(?born) <= 1900)",
              unsourced("P166"))),
        ("compound", "dates of death of chemists born before 1900 without a reference",
         gold("?item wdt:P106 wd:Q593644 ; wdt:P569 ?born . FILTER(YEAR(?born) < 1900)", unsourced("P570"))),
        ("compound", "Slovak politicians whose alma mater is unsourced",
         gold("?item wdt:P27 wd:Q214 ; wdt:P106 wd:Q82955 .", unsourced("P69"))),
        ("compound", "German cities whose population has no reference",
         gold("?item wdt:P31 wd:Q515 ; wdt:P17 wd:Q183 .", unsourced("P1082"))),
        ("compound", f"people born in {label[town]} whose date of birth is unsourced",
         gold(f"?item wdt:P19 wd:{town} .", unsourced("P569"))),
        ("compound", f"awards of people educated at {label[uni]} that cite nothing",
         gold(f"?item wdt:P69 wd:{uni} .", unsourced("P166"))),
        ("compound", f"employers of people who received the {label[award]} without a reference",
         gold(f"?item wdt:P166 wd:{award} .", unsourced("P108"))),
        ("compound", "Czech writers born after 1950 whose date of birth needs a source",
         gold("?item wdt:P27 wd:Q213 ; wdt:P106 wd:Q36180 ; wdt:P569 ?born . FILTER(YEAR(?born) > 1950)",
              unsourced("P569"))),
        ("compound", "Austrian painters whose awards cite nothing",
         gold("?item wdt:P27 wd:Q40 ; wdt:P106 wd:Q1028181 .", unsourced("P166"))),
        ("compound", f"architects educated at {label[uni2]} whose employer is unsourced",
         gold(f"?item wdt:P106 wd:Q42973 ; wdt:P69 wd:{uni2} .", unsourced("P108"))),
        ("negation", "Czech painters without any award whose date of birth is unsourced",
         gold("?item wdt:P27 wd:Q213 ; wdt:P106 wd:Q1028181 . FILTER NOT EXISTS { ?item wdt:P166 ?award . }",
              unsourced("P569"))),
        ("negation", "people with an unsourced date of birth who have no date of death",
         gold(unsourced("P569"), "FILTER NOT EXISTS { ?item wdt:P570 ?died . }")),
        ("negation", "chemists with unsourced awards who have no employer",
         gold("?item wdt:P106 wd:Q593644 .", unsourced("P166"), "FILTER NOT EXISTS { ?item wdt:P108 ?employer . }")),
        ("negation", "Polish people not educated anywhere whose date of death has no reference",
         gold("?item wdt:P27 wd:Q36 .", unsourced("P570"), "FILTER NOT EXISTS { ?item wdt:P69 ?school . }")),
        ("negation", "writers with unsourced awards who are not German citizens",
         gold("?item wdt:P106 wd:Q36180 .", unsourced("P166"), "FILTER NOT EXISTS { ?item wdt:P27 wd:Q183 . }")),
        ("negation", "towns with an unsourced population that are not in Czechia",
         gold("?item wdt:P31 wd:Q3957 .", unsourced("P1082"), "FILTER NOT EXISTS { ?item wdt:P17 wd:Q213 . }")),
        ("count", "people with more than two unsourced awards",
         gold(unsourced("P166"), having="COUNT(DISTINCT ?s1) > 2")),
        ("count", "towns with at least two unsourced population figures",
         gold("?item wdt:P31 wd:Q3957 .", unsourced("P1082"), having="COUNT(DISTINCT ?s1) >= 2")),
        ("count", "people with two or more unsourced alma mater statements",
         gold(unsourced("P69"), having="COUNT(DISTINCT ?s1) >= 2")),
        ("count", "cities with more than one population figure lacking a reference",
         gold("?item wdt:P31 wd:Q515 .", unsourced("P1082"), having="COUNT(DISTINCT ?s1) > 1")),
        ("count", "painters with at least two awards without a reference",
         gold("?item wdt:P106 wd:Q1028181 .", unsourced("P166"), having="COUNT(DISTINCT ?s1) >= 2")),
        ("count", "Czech people with more than one unsourced award",
         gold("?item wdt:P27 wd:Q213 .", unsourced("P166"), having="COUNT(DISTINCT ?s1) > 1")),
    ]


def items_of(endpoint, text: str) -> set[str]:
    rows = endpoint.select(Query("gold", PREFIXES + text))
    return {entity_id(row["item"].value) for row in rows if row.get("item") is not None}


def gold_items(endpoint, question: str, text: str) -> set[str]:
    found = items_of(endpoint, text)
    if not found:  # an empty gold set would count a query that finds nothing as right
        raise SystemExit(f"ask: the gold query of {question!r} returns nothing in this world")
    return found


def draft_items(endpoint, text: str, limit: int) -> set[str] | None:
    """The items the draft query returns (None: no draft, or the checker refuses it)."""
    if not text:
        return None
    try:
        checked = check(text, limit=limit, known=ids(text))
    except QueryRefused:
        return None
    rows = endpoint.select(Query("draft", checked.text))
    return {entity_id(row["item"].value) for row in rows if row.get("item") is not None}


def drafts_only(options: Options, endpoint, search, chosen: list[tuple[str, str, str]]) -> int:
    """Each question's draft against its gold set, without a model: what the linking and the rules reach alone."""
    right: Counter[str] = Counter()
    kinds = Counter(kind for kind, *_ in chosen)
    for number, (kind, question, gold_query) in enumerate(chosen, start=1):
        expected = gold_items(endpoint, question, gold_query)
        terms = question_terms(options, question, endpoint, search)
        got = draft_items(endpoint, terms.draft.text, options.ask.limit)
        right[kind] += got == expected
        print(f"{number:>2} {kind:<9} {'ok ' if got == expected else 'NO '} gold {len(expected):>4} draft "
              f"{len(got) if got is not None else '-':>4}  {question}", flush=True)
        if got != expected:
            print("\n".join(f"       {line}" for line in terms.draft.text.splitlines()))
    print("\n== the drafts alone ==")
    for kind in ("simple", "compound", "negation", "count"):
        if kinds[kind]:
            print(f"  {kind:<10} {right[kind]:>3}/{kinds[kind]}")
    print(f"  {'all':<10} {sum(right.values()):>3}/{len(chosen)}")
    return 0


def serve(world: DemoWorld, chosen: list[tuple[str, str, str]]) -> int:
    from bot.options import ini_text

    settings = {"sparql_endpoint": world.sparql_url, "ask_entities": "endpoint", "ask_limit": 2000,
                "contact": "refbot-benchmark@example.org", "properties_cache_days": 0.0}
    print(f"The benchmark's world is served on 127.0.0.1 until you press Ctrl-C (SPARQL {world.sparql_url}). "
          "Save this as ask.ini:\n")
    print(ini_text(settings))
    print("and ask, for instance:\n")
    for kind, question, _ in chosen:
        print(f'  refbot --config ask.ini select --ask "{question}" --explain   # {kind}')
    print(flush=True)
    try:
        while True:
            time.sleep(3600)
    except KeyboardInterrupt:
        return 0


def threads_said(backend: object) -> str:
    threads = getattr(backend, "threads", None)
    return f" ({threads} thread(s), {getattr(backend, 'max_in_flight', 1)} at once)" if threads else ""


def load_average() -> str:
    return " ".join(f"{value:.2f}" for value in os.getloadavg())


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--candidates", type=int, default=3, help="queries the model writes per question (3)")
    parser.add_argument("--kind", choices=("simple", "compound", "negation", "count"), help="only these questions")
    parser.add_argument("--first", type=int, help="only the first N questions (of the kind)")
    parser.add_argument("--seed", type=int, default=1, help="the world (1)")
    parser.add_argument("--people", type=int, default=800, help="people in the world (800)")
    parser.add_argument("--judge", default="transformers", choices=("transformers", "openai"), help="the backend")
    parser.add_argument("--generator", default="auto", choices=("auto", "llama", "judge"),
                        help="what writes the candidates ([ask] generator): auto (llama.cpp on the GGUF where the "
                             "judge runs in-process), llama, or judge (the judge's own backend)")
    parser.add_argument("--threads", type=int, default=0, help="the model's threads (0: the cores free)")
    parser.add_argument("--judge-url", default="", help="an OpenAI-compatible server (with --judge openai)")
    parser.add_argument("--model", default="", help="the model (default: refbot's judge model, or the server's)")
    parser.add_argument("--drafts-only", action="store_true",
                        help="no model: measure the draft queries refbot builds from the linked terms alone")
    parser.add_argument("--serve", action="store_true",
                        help="only serve the benchmark's world on loopback and print a refbot.ini and its questions, "
                             "to ask them with `refbot select --ask`, until interrupted")
    args = parser.parse_args()

    from bot.wiring import Wiring

    tmp = Path(tempfile.mkdtemp(prefix="refbot-ask-"))
    world_data = generate(tmp / "data", people=args.people, seed=args.seed)
    chosen_questions = [q for q in questions(world_data) if not args.kind or q[0] == args.kind][:args.first]
    with DemoWorld(data=tmp / "data", workdir=tmp) as world:
        if args.serve:
            return serve(world, chosen_questions)
        settings = {**world.options(), "properties_cache": tmp / "properties", "ask_candidates": args.candidates,
                    "ask_limit": 2000, "judge_backend": args.judge, "ask_generator": args.generator,
                    "threads": args.threads}
        if args.judge_url:
            settings["judge_url"] = args.judge_url
        if args.model:
            settings["judge_model"] = args.model
        (tmp / "refbot.ini").write_text("", encoding="utf-8")  # nothing from the user's own configuration
        options: Options = load_options(tmp / "refbot.ini", environ={}, overrides=settings)
        parts = Wiring(options)
        endpoint = parts.require_endpoint()
        if args.drafts_only:
            return drafts_only(options, endpoint, parts.entity_search, chosen_questions)
        backend = parts.generator
        print(f"ask: {len(chosen_questions)} question(s); world of {len(world_data['people'])} people "
              f"(seed {args.seed}); {type(backend).__name__} {getattr(backend, 'model_id', options.judge.model)}"
              f"{threads_said(backend)}; {args.candidates} candidate(s) each; load average {load_average()}",
              flush=True)
        results = []
        drafted = fallbacks = fallbacks_right = alone = alone_right = 0
        for number, (kind, question, gold_query) in enumerate(chosen_questions, start=1):
            expected = gold_items(endpoint, question, gold_query)
            started = time.monotonic()
            answer = answer_question(options, question, endpoint=endpoint, backend=backend,
                                     search=parts.entity_search)
            got = set(answer.chosen.items) if answer.chosen else set()
            written = [c for c in answer.candidates if c.number > 0]  # the model's (0: the draft, a fallback)
            valid = sum(1 for c in written if c.valid)
            right = answer.chosen is not None and got == expected
            taken = answer.chosen is not None and answer.chosen.number == 0
            fallback = taken and bool(written)  # the draft after the model's candidates returned nothing
            alone += taken and not written  # the draft read every word of the question: no model
            alone_right += taken and not written and right
            fallbacks += fallback
            fallbacks_right += fallback and right
            draft_right = draft_items(endpoint, answer.draft, options.ask.limit) == expected
            drafted += draft_right
            results.append((kind, right, valid, answer.prompt_tokens, answer.completion_tokens,
                            time.monotonic() - started, len(written)))
            print(f"{number:>2} {kind:<9} {'ok ' if right else 'NO '} gold {len(expected):>4} chosen "
                  f"{len(got) if answer.chosen else '-':>4}"
                  f"{' (the draft)' if fallback else ' (complete draft)' if taken else ''}  valid "
                  f"{valid}/{len(written)}  "
                  f"draft {'ok' if draft_right else 'NO'}  {answer.prompt_tokens:>5}+{answer.completion_tokens:<4} "
                  f"tok {results[-1][5]:6.1f} s  {question}", flush=True)
        index = property_index(endpoint, IndexCache(options.properties.cache), "en", date.today())
        lines = [f"{t.id} {t.label}: {t.description} (also: {', '.join(t.aliases)})" for t in index.properties]
        per_line = statistics.mean(backend.count_tokens(line) for line in lines)
        whole_world = backend.count_tokens("\n".join(lines))
    print(f"\n== ask: execution accuracy ({type(backend).__name__}; load average {load_average()}) ==")
    kinds = Counter(kind for kind, *_ in results)
    for kind in ("simple", "compound", "negation", "count"):
        if kinds[kind]:
            right = sum(1 for k, ok, *_ in results if k == kind and ok)
            print(f"  {kind:<10} {right:>3}/{kinds[kind]:<3} {right / kinds[kind]:6.1%}")
    right = sum(1 for _, ok, *_ in results if ok)
    print(f"  {'all':<10} {right:>3}/{len(results):<3} {right / max(1, len(results)):6.1%}")
    print(f"  the drafts alone would be right on {drafted}/{len(results)}; taken without the model (complete: it reads "
          f"every word of the question) on {alone}, right on {alone_right}; chosen after the model's candidates "
          f"returned no items on {fallbacks}, right on {fallbacks_right}")
    valid = sum(r[2] for r in results)
    written = sum(r[6] for r in results)
    print(f"  candidates valid {valid}/{written} (the first alone where it returned the draft's items: "
          f"{sum(1 for r in results if r[6] == 1 < args.candidates)} question(s)); questions with no valid "
          f"candidate {sum(1 for r in results if r[2] == 0 and r[6])}")
    prompts = [r[3] for r in results]
    print(f"  tokens per question: {statistics.mean(prompts):.0f} prompt, "
          f"{statistics.mean(r[4] for r in results):.0f} completion; {statistics.mean(r[5] for r in results):.1f} s")
    print(f"  the whole property list: {whole_world} tokens for this world's {len(lines)} properties; "
          f"{per_line * WIKIDATA_PROPERTIES:,.0f} at Wikidata's scale ({per_line:.1f} tokens a property × "
          f"{WIKIDATA_PROPERTIES:,}); one question's prompt: {statistics.mean(prompts) / max(1, args.candidates):.0f}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
