"""The deployment files operators start from (deploy/): Toolforge's jobs.yaml and the Kubernetes manifests run real
`refbot` commands with options refbot accepts, their configuration loads, and the ledger's password comes from
where refbot reads it."""

from __future__ import annotations

import shlex

import pytest
import yaml

from bot.cli import _validate, build_parser
from bot.ledger.database import PASSWORD_VARIABLE
from bot.options import load_options
from conftest import ROOT

DEPLOY = ROOT / "deploy"


def refbot_arguments(command: list[str]) -> list[str]:
    """The arguments after the refbot program in a command line."""
    program = next(i for i, word in enumerate(command) if word == "refbot" or word.endswith("/refbot"))
    return command[program + 1:]


def parsed(arguments: list[str]):
    parser = build_parser()
    try:
        args = parser.parse_args(arguments)
        _validate(parser, args)
    except SystemExit:
        pytest.fail(f"refbot refuses {' '.join(arguments)}")
    return args


def test_the_toolforge_jobs_run_refbot_commands_it_accepts():
    jobs = yaml.safe_load((DEPLOY / "toolforge" / "jobs.yaml").read_text(encoding="utf-8"))
    commands = {}
    for job in jobs:
        assert {"name", "command", "image"} <= set(job), job
        assert bool(job.get("schedule")) != bool(job.get("continuous")), f"{job['name']}: scheduled or continuous"
        if job.get("schedule"):
            assert len(job["schedule"].split()) == 5, job["schedule"]
        commands[job["name"]] = parsed(refbot_arguments(shlex.split(job["command"])))
    assert commands["refbot-enqueue"].command == "run" and commands["refbot-enqueue"].enqueue
    assert commands["refbot-worker"].command == "worker"
    assert commands["refbot-report"].command == "report" and commands["refbot-report"].run


def test_the_kubernetes_manifests_run_refbot_commands_it_accepts_with_a_configuration_it_loads(tmp_path):
    documents = {document["kind"]: document for document in
                 yaml.safe_load_all((DEPLOY / "kubernetes" / "refbot.yaml").read_text(encoding="utf-8"))}
    assert {"ConfigMap", "Secret", "Deployment", "CronJob"} <= set(documents)
    worker = documents["Deployment"]["spec"]["template"]["spec"]["containers"][0]
    enqueue = documents["CronJob"]["spec"]["jobTemplate"]["spec"]["template"]["spec"]["containers"][0]
    assert parsed(refbot_arguments(worker["command"])).command == "worker"
    args = parsed(refbot_arguments(enqueue["command"]))
    assert args.command == "run" and args.enqueue and args.worklist == ("P166",)
    for container in (worker, enqueue):
        assert PASSWORD_VARIABLE in {variable["name"] for variable in container["env"]}
        assert container["command"][container["command"].index("--config") + 1] == "/etc/refbot/refbot.ini"
    ini = tmp_path / "refbot.ini"
    ini.write_text(documents["ConfigMap"]["data"]["refbot.ini"], encoding="utf-8")
    options = load_options(ini, environ={})
    assert options.run.ledger.startswith("postgresql://") and options.queue.broker.startswith("redis://")
    assert options.judge.backend == "openai" and options.judge.model.startswith("meta-llama/Llama-3.1-8B")
