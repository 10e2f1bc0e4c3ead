"""What the commands share: argument types, the option groups, and the one adapter from a command's arguments to
the options and the worklist it runs on (:func:`options_from`, :func:`worklist_from`)."""

from __future__ import annotations

import argparse
import re
from collections.abc import Callable
from datetime import date
from pathlib import Path
from typing import TYPE_CHECKING

from bot.asking.questions import worklist_properties
from bot.datamodel import parse_entity_id
from bot.judge.prompts import TEMPLATES
from bot.options import FLAT, Options, load_options
from bot.selection.binding import Query
from bot.selection.worklists import Worklist
from bot.wiring import BACKENDS

if TYPE_CHECKING:
    from bot.asking.ask import Answer


def positive_int(text: str) -> int:
    value = int(text)
    if value < 1:
        raise argparse.ArgumentTypeError(f"must be at least 1, not {value}")
    return value


LATEST = "latest"


def run_or_latest(text: str) -> int | str:
    """An argparse type: a run id, or ``latest`` (the ledger's newest run, found when the ledger is open)."""
    if text.strip().lower() == LATEST:
        return LATEST
    if not text.strip().isdigit() or int(text) < 1:
        raise argparse.ArgumentTypeError(f"a run id (1, 2, …) or {LATEST}, not {text!r}")
    return int(text)


def id_list(kind: str) -> Callable[[str], tuple[str, ...]]:
    """An argparse type: comma-separated Wikidata ids of one kind, validated before anything is sent."""
    def parse(text: str) -> tuple[str, ...]:
        try:
            return tuple(parse_entity_id(part, kind) for part in text.replace(",", " ").split())
        except ValueError as error:
            raise argparse.ArgumentTypeError(str(error)) from None
    return parse


def word_list(text: str) -> tuple[str, ...]:
    return tuple(part for part in text.replace(",", " ").split() if part)


def duration(text: str) -> float:
    """``2h``, ``90m``, ``1h30m``, ``45s`` or plain seconds → seconds."""
    match = re.fullmatch(r"\s*(?:(\d+(?:\.\d+)?)h)?\s*(?:(\d+(?:\.\d+)?)m)?\s*(?:(\d+(?:\.\d+)?)s?)?\s*", text)
    if not text.strip() or not match or not any(match.groups()):
        raise argparse.ArgumentTypeError(f"not a duration: {text!r} (use e.g. 2h, 90m, 1h30m, 600)")
    hours, minutes, seconds = (float(group or 0) for group in match.groups())
    return hours * 3600 + minutes * 60 + seconds


def ledger_target(text: str) -> Path | str:
    """--ledger: a SQLite file, or a database server's URL (postgresql://…, mysql+pymysql://…)."""
    return text.strip() if "://" in text else Path(text).expanduser()


def iso_date(text: str) -> date:
    try:
        return date.fromisoformat(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"not a date: {text!r} (expected YYYY-MM-DD)") from None


def clip(text: str, width: int) -> str:
    return text if len(text) <= width else text[: width - 1] + "…"


def options_from(args: argparse.Namespace) -> Options:
    """Defaults ← configuration file ← environment ← the command line (the arguments named as Options fields)."""
    overrides = {name: value for name, value in vars(args).items() if name in FLAT}
    if getattr(args, "cache", None):
        overrides["model_cache"] = args.cache
    return load_options(args.config, overrides=overrides)


def worklist_from(args: argparse.Namespace, *, answer: Answer | None = None, limit: int | None = None) -> Worklist:
    """The items a command names — an item (``check``, ``demo``), QIDs, ``--items FILE``, ``--query``, a property's
    worklist (``--worklist PID``, or ``--property`` alone), or the query ``answer`` chose for ``--ask`` (``run``
    resumes by that query; ``select`` lists its items) — with ``--property`` and the cap on statements checked."""
    properties: tuple[str, ...] = tuple(args.property or ())
    if answer is not None:
        if answer.chosen is None:
            raise ValueError("the answer chose no query")
        properties = properties or tuple(worklist_properties(answer))
        source = f"question {answer.question!r}"
        if args.command == "run":
            return Worklist(source, query=Query(source, answer.chosen.sent), properties=properties, limit=limit)
        return Worklist.of_items(answer.chosen.items, properties=properties, source=source, limit=limit)
    if getattr(args, "qid", None):
        return Worklist.of_items(args.qid[:1], properties=properties, limit=limit)
    if getattr(args, "qids", None):
        return Worklist.of_items(args.qids, properties=properties, limit=limit)
    if getattr(args, "items", None):
        return Worklist.from_file(args.items, properties=properties, limit=limit)
    if getattr(args, "query", None):
        return Worklist.from_query(args.query, properties=properties, limit=limit)
    if getattr(args, "worklist", None):
        return Worklist.for_property(args.worklist[0], properties=properties, limit=limit)
    return Worklist.for_property(args.property[0], properties=properties, limit=limit)


def sparql_options(parser: argparse.ArgumentParser) -> None:
    group = parser.add_argument_group("SPARQL endpoint")
    group.add_argument("--endpoint", dest="sparql_endpoint", metavar="NAME|URL",
                       help="where to query: 'wdqs' (query.wikidata.org, default), 'scholarly' (the scholarly "
                            "articles graph), 'qlever' (QLever's Wikidata), or any SPARQL endpoint URL")
    group.add_argument("--contact", metavar="EMAIL|URL",
                       help="your email address or user page, sent in the User-Agent (required for Wikimedia "
                            "endpoints; better set once as [refbot] contact in refbot.ini or REFBOT_CONTACT)")
    group.add_argument("--languages", type=word_list, metavar="LANG,…",
                       help="label languages in order of preference (default en,mul); ids when none has a label")
    group.add_argument("--ignored-reference-properties", type=id_list("property"), metavar="PID,…",
                       help="a reference made only of these properties does not count (default P143,P4656,P813)")
    group.add_argument("--sparql-timeout", type=float, metavar="S", help="seconds to wait for one answer (70)")


def judge_options(parser: argparse.ArgumentParser) -> None:
    group = parser.add_argument_group("judge")
    group.add_argument("--judge", dest="judge_backend", choices=BACKENDS,
                       help="where the LLM runs: 'transformers' in-process on the CPU (default), or 'openai', "
                            "any OpenAI-compatible server such as `vllm serve` or llama.cpp's server")
    group.add_argument("--judge-model", metavar="NAME|PATH",
                       help="for transformers: a catalogue name (see `refbot models list`), a model directory "
                            "or a GGUF file (default qwen2.5-coder-1.5b); for openai: the served model's name "
                            "(default: the first model the server lists)")
    group.add_argument("--judge-url", metavar="URL",
                       help="base URL of the OpenAI-compatible API (default http://127.0.0.1:8000/v1)")
    group.add_argument("--judge-timeout", type=float, metavar="S", help="seconds to wait for one answer (120)")
    group.add_argument("--judge-in-flight", type=int, metavar="N",
                       help="requests sent to the server at once; vLLM batches them (4)")
    group.add_argument("--judge-retries", type=int, metavar="N",
                       help="retries on HTTP 429/5xx and connection errors, with exponential backoff (3)")
    group.add_argument("--judge-dtype", choices=("auto", "bfloat16", "float32"),
                       help="the transformers judge's arithmetic on the CPU (auto: bfloat16 where the CPU "
                            "multiplies it natively, else float32)")
    group.add_argument("--judge-context", type=int, metavar="TOKENS",
                       help="the model's context length; default: asked from the server or the model")
    group.add_argument("--template", choices=list(TEMPLATES),
                       help="prompt template: 'refbot' (default; option probabilities from one forward pass) or "
                            "'paper' (the published three-option prompt, generated answer)")
    group.add_argument("--threshold", type=float, metavar="P",
                       help="calibrated support score at or above which the refbot template counts as support "
                            "(default: the calibration's, chosen for precision 0.95 on development data; 0.5 for a "
                            "model no calibration was fitted for)")
    group.add_argument("--justify", dest="justify", action="store_const", const=True,
                       help="have the model write a one-sentence justification for each proposed reference (about "
                            "14 s each on 2 CPU cores; off by default)")
    group.add_argument("--no-justify", dest="justify", action="store_const", const=False,
                       help="no justification (the default; overrides justify = true in the configuration)")
    group.add_argument("--threads", type=int, metavar="N",
                       help="CPU threads for the transformers backend (default: the cores no other process keeps "
                            "busy when the model loads, at least 1)")


def check_options(parser: argparse.ArgumentParser) -> None:
    group = parser.add_argument_group("checking")
    group.add_argument("--source", dest="check_source", choices=("all", "kg", "web", "wikipedia", "both"),
                       help="where evidence comes from: kg (the item's authority records read as RDF: GND, BnF, "
                            "VIAF, …), web search, wikipedia (the sources the item's article cites), both (web and "
                            "wikipedia), or all three (default)")
    group.add_argument("--all-sources", dest="check_all_sources", action="store_const", const=True,
                       help="search the web and Wikipedia's sources even for a statement an authority record "
                            "corroborates (by default its \"stated in\" reference is enough)")
    group.add_argument("--strategy", dest="check_strategy", choices=("ranked", "paper"),
                       help="'ranked' (default): judge the best --top paragraphs of each document that name the "
                            "value; 'paper': every paragraph in document order, as the published method")
    group.add_argument("--top", dest="check_top", type=positive_int, metavar="K",
                       help="paragraphs judged per document at most (ranked strategy; 3)")
    group.add_argument("--no-embeddings", dest="check_embeddings", action="store_const", const=False,
                       help="pre-rank by name mentions only, without the sentence-embedding model")
    group.add_argument("--documents", dest="check_documents", type=positive_int, metavar="N",
                       help="documents per statement at most (8)")
    group.add_argument("--workers", dest="check_workers", type=positive_int, metavar="N",
                       help="statements checked at once (2)")
    group.add_argument("--reports", dest="check_reports", type=Path, metavar="DIR",
                       help="where traces and reports are written (reports/)")
    group.add_argument("--allow-address", dest="fetch_allow_addresses", type=word_list, metavar="ADDR,…",
                       help="private addresses or networks refbot may fetch from, ADDR:PORT for one port "
                       "(default: none)")
    group.add_argument("--no-cache", dest="fetch_cache_days", action="store_const", const=0.0,
                       help="neither read nor write the HTTP cache")
    group.add_argument("-v", "--verbose", action="store_true", help="print each document and judgement")


def network_options(parser: argparse.ArgumentParser) -> None:
    group = parser.add_argument_group("fetching")
    group.add_argument("--contact", metavar="EMAIL|URL",
                       help="your email address or user page, sent in the User-Agent (required for Wikimedia hosts)")
    group.add_argument("--allow-address", dest="fetch_allow_addresses", type=word_list, metavar="ADDR,…",
                       help="private addresses or networks refbot may connect to, ADDR:PORT for one port "
                       "(default: none)")
    group.add_argument("--delay", dest="fetch_delay", type=float, metavar="S",
                       help="pause between two requests to one host (1)")
    group.add_argument("--timeout", dest="fetch_read_timeout", type=float, metavar="S",
                       help="seconds to wait for an answer (30)")
    group.add_argument("--no-cache", dest="fetch_cache_days", action="store_const", const=0.0,
                       help="neither read nor write the HTTP cache")
