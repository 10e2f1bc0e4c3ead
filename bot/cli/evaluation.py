"""``refbot eval`` (the judge measured on a labelled dataset) and ``refbot judge`` (one claim, one snippet)."""

from __future__ import annotations

import argparse
import sys
from pathlib import Path
from typing import Any

from bot.cli.arguments import id_list, judge_options, positive_int, sparql_options
from bot.cli.exits import Ended
from bot.cli.progress import Bar
from bot.errors import InputError, JudgeError
from bot.evaluation.crossval import cross_validate, table  # (scikit-learn is loaded when it fits)
from bot.evaluation.dataset import LABELS
from bot.evaluation.measure import default_out, measure, write_summary
from bot.evaluation.report import format_table
from bot.evaluation.runner import Evaluation
from bot.options import Options
from bot.properties import stated_claim
from bot.wiring import Wiring


def add_parsers(commands: Any) -> None:
    evaluate = commands.add_parser(
        "eval", help="measure the judge on labelled statements (JSON Lines)",
        description="Judge labelled statements and print precision and recall per concept pair, per relation "
                    "and overall, beside the published method's verdicts and a label-match baseline; then "
                    "specificity and the F1 of both classes, how the verdicts split, how well the score is "
                    "calibrated, the precision of support by how the text writes the value, and the verdicts by "
                    "kind of row.")
    evaluate.add_argument("dataset", type=Path, metavar="DATASET.jsonl",
                          help="one JSON object a line with id, subject, predicate, object, text, label (and "
                               "optionally datatype, kind, language, concept1/concept2, property_id, subject_local/"
                               "object_local)")
    evaluate.add_argument("--out", type=Path, metavar="FILE.jsonl",
                          help="judgements, one JSON line each; an existing file is resumed (judged ids are "
                               "skipped). Default: reports/eval-<dataset>-<template>.jsonl")
    evaluate.add_argument("--summary", type=Path, metavar="FILE.json",
                          help="where to write the JSON summary (default: the --out path with .summary.json)")
    evaluate.add_argument("--limit", type=positive_int, metavar="N", help="judge only the first N statements")
    evaluate.add_argument("--sample", type=positive_int, metavar="N",
                          help="judge a fixed sample of N statements, stratified by label, relation, concept "
                               "pair and kind (seed 42)")
    evaluate.add_argument("--descriptions", type=Path, metavar="FILE.json",
                          help="what each predicate means, as a JSON object predicate → description or → "
                               "{description, phrase, contrasts}; overrides the property profiles for the "
                               "predicates it names")
    evaluate.add_argument("--labels", choices=LABELS, default="given",
                          help="state each claim with the row's subject and object ('given', default) or with its "
                               "subject_local and object_local where it has them ('local': the forms the text "
                               "itself uses, as labels in the page's language give them)")
    evaluate.add_argument("--cross-validate", type=positive_int, metavar="K",
                          help="then fit a verdict on the judgements' features in K grouped folds (no fact, "
                               "subject or text on both sides) and print its out-of-fold figures beside the "
                               "rules', overall, by language, by property and by kind of row")
    evaluate.add_argument("--hold-out", choices=("groups", "properties"), default="groups",
                          help="with --cross-validate: hold out grouped folds (default) or each property in turn")
    relations = evaluate.add_mutually_exclusive_group()
    relations.add_argument("--look-up-properties", action="store_true",
                           help="look up the profiles of properties refbot's catalogue and cache lack on the "
                                "SPARQL endpoint (default: offline, catalogue and cache only)")
    relations.add_argument("--no-profiles", action="store_true",
                           help="judge each claim alone, without its property's phrase and contrasts (as refbot "
                                "did before property profiles; for comparison)")
    judge_options(evaluate)
    sparql_options(evaluate)

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
    judge_options(judge)


def run_eval(args: argparse.Namespace, options: Options) -> Ended | None:
    out = args.out or default_out(args.dataset, options.judge.template, args.labels)
    profiles = "none" if args.no_profiles else "look-up" if args.look_up_properties else "catalogue"
    bar: Bar | None = None

    def judged(done: int, todo: int) -> None:
        nonlocal bar
        if bar is None:  # the evaluation resumes: the bar counts only what is left
            bar = Bar(todo, "judgement", quiet=args.quiet)
        bar.step()
    parts = Wiring(options, endpoint=None) if profiles == "catalogue" else Wiring(options)
    try:
        evaluation = measure(options, args.dataset, out, judge=lambda: parts.judge,
                             profiles=None if profiles == "none" else parts.profiles, profiles_from=profiles,
                             descriptions=args.descriptions, sample=args.sample, limit=args.limit, labels=args.labels,
                             on_judged=judged)
    except JudgeError as error:
        return Ended(stopped=error, then=f"judgements made so far are saved in {out}; run the same command again "
                                         "to resume")
    finally:
        if bar is not None:
            bar.close()
    print(format_table(evaluation))
    if args.cross_validate:
        print("\n" + "\n".join(cross_validation_lines(evaluation, args.cross_validate, args.hold_out)))
    summary = write_summary(evaluation, args.dataset, options, args.summary or out.with_suffix(".summary.json"))
    if not args.quiet:
        print(f"\njudgements: {out}\nsummary: {summary}")
    return None


def run_judge(args: argparse.Namespace, options: Options) -> Ended:
    snippet = sys.stdin.read() if args.snippet == "-" else args.snippet
    parts = Wiring(options, endpoint=None)  # the property's profile from the catalogue and the cache
    claim = stated_claim(parts.profiles, args.subject, args.predicate, args.object, args.description,
                         args.property_id[0] if args.property_id else "")
    judgement = parts.judge.judge(claim, snippet)
    print(f"verdict {judgement.verdict.value} (support {judgement.support:.3f}) by {judgement.model}, "
          f"template {judgement.template!r}, {judgement.prompt_tokens} prompt tokens, {judgement.latency_s:.2f} s")
    for compared in judgement.compared:
        print(f"  {'claimed ' if compared is judgement.compared[0] else 'against '}{compared.label}: "
              f"“{compared.phrase}” log-probability {compared.score:.2f}, share {compared.share:.3f}")
    print(judgement.justification or judgement.answer)
    return Ended(failed=judgement.verdict.value == "unparseable")


def cross_validation_lines(evaluation: Evaluation, folds: int, hold_out: str) -> list[str]:
    """The out-of-fold comparison of a learned verdict with the rules (``bot.evaluation.crossval``)."""
    try:
        decided = cross_validate(evaluation.rows, evaluation.records, folds=folds, hold_out=hold_out,
                                 model=evaluation.model, template=evaluation.template)
    except ValueError as error:
        raise InputError(f"cannot cross-validate: {error}", hint="judge more statements, or ask for fewer folds") \
            from None
    how = f"{folds} grouped folds" if hold_out == "groups" else "each property held out in turn"
    lines = [f"Learned verdict, out of fold ({how}; no fact, subject or text on both sides):"]
    for key, heading in ((lambda row: row.language, "language"), (lambda row: row.relation, "property"),
                         (lambda row: row.kind, "kind of row")):
        lines += ["", *table(decided, key, heading)]
    return lines


HANDLERS = {"eval": run_eval, "judge": run_judge}
