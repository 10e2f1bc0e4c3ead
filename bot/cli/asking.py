"""``refbot select --ask "QUESTION"``: the query a model wrote for the question, why it was chosen, and (through
``refbot select``) the first page of its worklist; ``--save`` keeps the query for ``--query`` and scheduled runs,
``--explain`` shows how it was found (``bot.asking``)."""

from __future__ import annotations

import argparse
import sys
from pathlib import Path
from typing import Any

from bot.asking.ask import Answer
from bot.asking.questions import answer_question, save, worklist_properties
from bot.cli.arguments import clip, positive_int
from bot.errors import RefbotError
from bot.options import Options
from bot.wiring import Wiring

FIRST_PAGE = 20  # statements listed after an asked query unless --limit says otherwise


ASK_HELP = ("name the items in plain words: a model writes the SPARQL from the terms of the graph the question "
            "names, refbot checks and runs it (e.g. \"awards of Czech chemists that cite nothing\")")


def add_arguments(parser: argparse.ArgumentParser, source: Any, *, ask_help: str = ASK_HELP) -> None:
    source.add_argument("--ask", metavar="QUESTION", help=ask_help)
    parser.add_argument("--save", type=Path, metavar="FILE.rq",
                        help="with --ask: keep the chosen query (and FILE.json, how it was chosen) for --query")
    parser.add_argument("--explain", action="store_true",
                        help="with --ask: show the linked terms, the fragment, every candidate and the tokens spent")
    parser.add_argument("--candidates", dest="ask_candidates", type=positive_int, metavar="N",
                        help="with --ask: the most queries the model writes, until two agree ([ask] candidates, 3)")


def validate(parser: argparse.ArgumentParser, args: argparse.Namespace) -> None:
    if args.command not in ("select", "run"):
        return
    if not args.ask and (args.save or args.explain or args.ask_candidates):
        parser.error("--save, --explain and --candidates go with --ask")


def answer(args: argparse.Namespace, options: Options, parts: Wiring) -> Answer:
    """Answer the question with the parts' endpoint, search and model, print the chosen query (with --explain, how it
    was found; with --save, where it was kept). RefbotError when the model's candidates gave no query to choose."""
    answer = answer_question(options, args.ask, endpoint=parts.require_endpoint(), backend=lambda: parts.generator,
                             search=parts.entity_search, candidates=options.ask.candidates)
    model = ""  # no model was loaded when the draft said all the question says
    if parts.built("generator"):
        generator = parts.generator
        model = generator.model_id if options.judge.backend == "transformers" else f"{generator.model_id} (served)"
    if getattr(args, "explain", False):
        explain(answer)
    if answer.chosen is None:
        raise RefbotError(f"no query: {answer.why}", hint="ask again in other words, or with --explain")
    print(f"# {answer.question}\n# chosen: {answer.why}; {len(answer.chosen.items)} item(s)")
    print(answer.chosen.sent.rstrip())
    print()
    if getattr(args, "save", None):
        query, beside = save(answer, args.save, model=model)
        properties = tuple(args.property or ()) or tuple(worklist_properties(answer))
        narrowed = "".join(f" --property {pid}" for pid in properties)
        print(f"refbot {args.command}: saved {query} (and {beside.name}); run it with `refbot run --query {query}"
              f"{narrowed}`", file=sys.stderr)
    return answer


def explain(answer: Answer) -> None:
    print("== terms linked ==")
    for item in answer.links:
        need = ", needs a reference" if item.citation_needed else ""
        print(f"  {item.kind:<8} {item.id:<10} {clip(item.label, 36):<36} ← \"{item.words}\" "
              f"({item.score:.2f}{need})")
    if not answer.links:
        print("  (none)")
    print("== fragment shown to the model ==")
    print("\n".join(f"  {line}" for line in (answer.fragment or "(empty)").splitlines()))
    print("== draft the model started from ==")
    print("\n".join(f"  {line}" for line in (answer.draft or "(none: no term it could use)").splitlines()))
    print("== candidates ==")
    for candidate in answer.candidates:
        if candidate.same_as is not None:
            state = f"the same as candidate {candidate.same_as}"
        elif candidate.refused:
            state = f"refused: {candidate.refused}"
        elif candidate.error:
            state = f"the endpoint failed: {candidate.error}"
        else:
            state = f"{len(candidate.items)} item(s)"
        repaired = f" (repaired after: {candidate.repaired})" if candidate.repaired else ""
        chosen = "  ← chosen" if candidate is answer.chosen else ""
        name = "0. the draft" if candidate.number == 0 else f"{candidate.number}."
        print(f"  {name} {state}{repaired}{chosen}")
        print("\n".join(f"     {line}" for line in candidate.written.splitlines()))
    print(f"== {answer.prompt_tokens} prompt and {answer.completion_tokens} completion tokens, "
          f"{answer.seconds:.1f} s; {answer.why} ==")
    print()
