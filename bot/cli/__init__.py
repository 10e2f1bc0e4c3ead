"""The ``refbot`` command: thin argparse subcommands over the library; errors become one line and an exit code.

One module per command group — ``evaluation`` (eval, judge), ``selection`` (select, properties, profile),
``checking`` (check, run, report, demo), ``workers`` (worker; run --enqueue and --status, report --run),
``reviewing`` (review, approve, reject, export, apply), ``documents``
(fetch, sources), ``models`` (models, doctor) — each adding
its parsers and mapping its commands to handlers that parse, call the library, and print; ``arguments`` holds the
shared option groups and types and the one adapter from arguments to options and worklists, ``exits`` the one
mapping from how a command ended to its exit code and error lines, ``progress`` the progress bar. Nothing outside
this package imports it.
"""

from __future__ import annotations

import argparse
import sys
from collections.abc import Sequence
from pathlib import Path

from bot import __version__
from bot.cli import asking, checking, documents, evaluation, models, reviewing, selection, verifying, workers
from bot.cli.arguments import options_from
from bot.cli.exits import Outcome, error_lines, exit_code
from bot.doctor import fix_for
from bot.errors import RefbotError

# in the order `refbot --help` lists them
GROUPS = (evaluation, selection, checking, verifying, workers, reviewing, documents, models)
HANDLERS = {command: handler for group in GROUPS for command, handler in group.HANDLERS.items()}
WITHOUT_OPTIONS = {"doctor"}  # it reports a broken configuration instead of stopping at it


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
    for group in GROUPS:
        group.add_parsers(commands)
    return parser


def _validate(parser: argparse.ArgumentParser, args: argparse.Namespace) -> None:
    """Option combinations argparse cannot express."""
    if args.command == "eval" and args.limit is not None and args.sample is not None:
        parser.error("--limit and --sample cannot be combined")
    selection.validate(parser, args)
    asking.validate(parser, args)
    reviewing.validate(parser, args)
    if args.command == "report" and (args.trace is None) == (args.run is None):
        parser.error("name a trace file or --run RUN")
    if args.command == "run" and args.enqueue and (args.time_budget or args.status or args.new_identity
                                                   or args.ledger_moved):
        parser.error("--enqueue puts the worklist on the queue: --time-budget, --status, --new-identity and "
                     "--ledger-moved do not go with it")


def main(argv: Sequence[str] | None = None) -> int:
    parser = build_parser()
    args = parser.parse_args(argv)
    _validate(parser, args)
    outcome: Outcome
    try:
        outcome = HANDLERS[args.command](args, None if args.command in WITHOUT_OPTIONS else options_from(args))
    except (RefbotError, ImportError, OSError, KeyboardInterrupt) as error:
        outcome = error
    for line in error_lines(outcome, fix=fix_for(outcome) if isinstance(outcome, ImportError) else ""):
        print(line, file=sys.stderr)
    return exit_code(outcome)
