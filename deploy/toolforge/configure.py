r"""Write the tool's refbot.ini for Toolforge and create its ledger's database on ToolsDB (docs/toolforge.md).

Run once as a one-off job of the python3.11 image, after deploy/toolforge/setup built the virtual environment:

    toolforge jobs run refbot-configure --image python3.11 --mem 512Mi --wait 600 --command \
        "$HOME/refbot/.venv/bin/python $HOME/refbot/deploy/toolforge/configure.py \
         --contact https://www.wikidata.org/wiki/User:Example \
         --judge-url https://judge.example.wmcloud.org/v1 --judge-model meta-llama/Llama-3.1-8B-Instruct"

What it writes ($HOME/refbot.ini, mode 0600, never over an existing one):
- the ledger on ToolsDB, in the database ``<credential user>__refbot`` (the user of $HOME/replica.my.cnf: ToolsDB lets a
  tool create databases under its own name only), its password read from replica.my.cnf by refbot;
- the queue on Toolforge's Redis, every key under a prefix drawn here: a secret, since every tool shares that Redis;
- the judge: a server refbot reaches over the OpenAI API (``--judge-url``), or the embedded one
  (``--embedded-judge``, which needs 5 GiB a worker: see the guide).
And $HOME/refbot-jobs.yaml, the jobs for ``toolforge jobs load`` (never over an existing one): jobs.yaml beside this
script, with the embedded judge's worker given 5Gi, and one replica, so that the tool's 8 GiB hold it and a scheduled
job. Then ``CREATE DATABASE IF NOT EXISTS`` on ToolsDB, with the same credentials."""

from __future__ import annotations

import argparse
import configparser
import os
import secrets
import sys
from pathlib import Path

JOBS = Path(__file__).resolve().parent / "jobs.yaml"
EMBEDDED_WORKER = {"mem": "5Gi", "replicas": "1"}  # docs/toolforge.md, "Memory": bf16 peaks at 3,914 MiB
TOOLSDB = "tools.db.svc.wikimedia.cloud"
REDIS = "redis://redis.svc.tools.eqiad1.wikimedia.cloud:6379/0"


def credentials(home: Path) -> tuple[str, str]:
    """The [client] user and password of the tool's replica.my.cnf."""
    parser = configparser.ConfigParser(interpolation=None)
    path = home / "replica.my.cnf"
    if not parser.read(path, encoding="utf-8") or not parser.has_section("client"):
        sys.exit(f"configure: {path} has no [client] section (Toolforge writes it for every tool)")
    client = parser["client"]
    return client.get("user", "").strip("'\""), client.get("password", "").strip("'\"")


def ini_text(args: argparse.Namespace, home: Path, database: str) -> str:
    judge = ("backend = transformers                 ; the embedded judge: 5 GiB a worker (docs/toolforge.md)\n"
             if args.embedded_judge else
             f"backend = openai\nurl = {args.judge_url}\nmodel = {args.judge_model}\n")
    port = f":{args.db_port}" if args.db_port != 3306 else ""
    return f"""\
; refbot on Toolforge, written by deploy/toolforge/configure.py. Keep it mode 0600: [queue] prefix is a secret.
[refbot]
contact = {args.contact}

[judge]
{judge}
[check]
reports = {home / "reports"}

[run]
ledger = mysql+pymysql://{args.db_host}{port}/{database}
ledger_credentials = {home / "replica.my.cnf"}

[queue]
broker = {args.broker}
prefix = {secrets.token_hex(16)}
"""


def jobs_text(text: str, *, embedded_judge: bool) -> str:
    """jobs.yaml for this tool: as it is with a judge server; with the embedded judge, the worker job's memory and
    replicas set to EMBEDDED_WORKER (its other lines, and every comment, kept)."""
    if not embedded_judge:
        return text
    lines, in_worker = [], False
    for line in text.splitlines(keepends=True):
        if line.startswith("- name: "):
            in_worker = line.strip() == "- name: refbot-worker"
            if in_worker:
                lines.append("# (configure.py --embedded-judge: each worker loads the judge itself, in 5Gi; one "
                             "worker, so that the tool's 8Gi hold it and a scheduled job)\n")
        key = line.strip().split(":", 1)[0]
        if in_worker and key in EMBEDDED_WORKER and line.startswith("  "):
            line = f"  {key}: {EMBEDDED_WORKER[key]}\n"
        lines.append(line)
    return "".join(lines)


def create_database(host: str, port: int, user: str, password: str, database: str) -> None:
    import pymysql

    connection = pymysql.connect(host=host, port=port, user=user, password=password, autocommit=True)
    try:
        with connection.cursor() as cursor:
            cursor.execute(f"CREATE DATABASE IF NOT EXISTS `{database}` CHARACTER SET utf8mb4")
    finally:
        connection.close()


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--contact", required=True,
                        help="who runs the bot: your e-mail address or user page's URL (the User-Agent's contact)")
    judge = parser.add_mutually_exclusive_group(required=True)
    judge.add_argument("--judge-url", help="the judge server's OpenAI-compatible URL (…/v1)")
    judge.add_argument("--embedded-judge", action="store_true", help="judge in each worker (5 GiB a worker)")
    parser.add_argument("--judge-model", default="meta-llama/Llama-3.1-8B-Instruct",
                        help="the model the judge server serves")
    parser.add_argument("--home", type=Path, default=Path(os.environ.get("HOME", "~")).expanduser(),
                        help="the tool's home (default $HOME)")
    parser.add_argument("--db-host", default=TOOLSDB, help=f"ToolsDB (default {TOOLSDB})")
    parser.add_argument("--db-port", type=int, default=3306)
    parser.add_argument("--broker", default=REDIS, help=f"Toolforge's Redis (default {REDIS})")
    return parser


def main(argv: list[str] | None = None) -> int:
    parser = build_parser()
    args = parser.parse_args(argv)
    from bot.errors import ConfigError
    from bot.etiquette import check_contact

    try:
        check_contact(args.contact)
    except ConfigError as error:
        parser.error(str(error))

    user, password = credentials(args.home)
    database = f"{user}__refbot"
    ini = args.home / "refbot.ini"
    if ini.exists():
        print(f"configure: {ini} is there already: kept as it is")
    else:
        descriptor = os.open(ini, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
        with os.fdopen(descriptor, "w", encoding="utf-8") as out:
            out.write(ini_text(args, args.home, database))
        print(f"configure: wrote {ini} (mode 0600)")
    jobs = args.home / "refbot-jobs.yaml"
    if jobs.exists():
        print(f"configure: {jobs} is there already: kept as it is (delete it to write it again from {JOBS})")
    else:
        jobs.write_text(jobs_text(JOBS.read_text(encoding="utf-8"), embedded_judge=args.embedded_judge),
                        encoding="utf-8")
        print(f"configure: wrote {jobs}" + (" (a worker of 5Gi for the embedded judge)" if args.embedded_judge else ""))
    (args.home / "reports").mkdir(exist_ok=True)
    import pymysql

    try:
        create_database(args.db_host, args.db_port, user, password, database)
    except pymysql.MySQLError as error:  # unreachable, refused, no right: one line naming the server and the fix
        print(f"configure: error: cannot make the ledger's database {database} on {args.db_host}:{args.db_port}: "
              f"{error.args[-1] if error.args else error} (run this from the tool's account on Toolforge, where "
              "ToolsDB answers; refbot.ini and the jobs file are written: run configure again to make the database)",
              file=sys.stderr)
        return 1
    print(f"configure: the ledger's database {database} is on {args.db_host}; next: refbot doctor, then "
          "toolforge jobs load $HOME/refbot-jobs.yaml")
    return 0


if __name__ == "__main__":
    sys.exit(main())
