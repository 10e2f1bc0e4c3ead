"""Print the id of the ledger's latest run, for the report job of deploy/toolforge/jobs.yaml
(``refbot report --run "$(… latest_run.py --config …)"``); exit 1, printing nothing on standard output, when the ledger
has no run yet. Read-only: it never creates a ledger."""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from bot.errors import RefbotError
from bot.options import load_options
from bot.runledger import RunLedger


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--config", type=Path, help="refbot.ini (default: as refbot finds it)")
    args = parser.parse_args(argv)
    try:
        options = load_options(args.config)
        with RunLedger.of(options.run, create=False) as ledger:
            latest = ledger.latest_run()
    except RefbotError as error:
        print(f"latest_run: {error}", file=sys.stderr)
        return 2
    if latest is None:
        print("latest_run: the ledger has no run yet (the enqueue job opens one)", file=sys.stderr)
        return 1
    print(latest.id)
    return 0


if __name__ == "__main__":
    sys.exit(main())
