"""The deployment an operator follows (deploy/, the Dockerfile, docs/toolforge.md, docs/kubernetes.md) works as
written, as far as this machine can tell: every refbot command in the Toolforge jobs, the Kubernetes manifests, the
image recipe and the guides is one refbot's parser accepts; every file a command names is in the repository; each
job has the memory a worker was measured to need and the default Toolforge quota holds them; the configurations
load; the helper scripts run (the latest run of a ledger; refbot.ini and the ToolsDB database written for a tool,
against a real MariaDB); no password is shipped."""

from __future__ import annotations

import re
import shlex
import subprocess
import sys
from pathlib import Path

import pytest
import yaml

from bot.cli import _validate, build_parser
from bot.ledger.database import PASSWORD_VARIABLE
from bot.modelstore import CATALOGUE
from bot.errors import ConfigError
from bot.options import load_options
from conftest import ROOT
from databases import free_port

DEPLOY = ROOT / "deploy"
TOOLFORGE = DEPLOY / "toolforge"
GUIDE = ROOT / "docs" / "toolforge.md"
KUBERNETES_GUIDE = ROOT / "docs" / "kubernetes.md"
HOME = "/data/project/refbot-tool"  # a tool's home, for the commands' $HOME
# Options a job of `toolforge jobs load` takes (toolforge-jobs(1), the jobs framework's loader).
JOB_KEYS = {"name", "command", "image", "schedule", "continuous", "wait", "retry", "emails", "mem", "cpu",
            "replicas", "no-filelog", "filelog-stdout", "filelog-stderr", "mount"}
# A tool's default quota on Toolforge (its Kubernetes LimitRange and ResourceQuota): per job, and in all.
JOB_MEMORY_MAX, TOOL_MEMORY, TOOL_CPU = 4 * 2**30, 8 * 2**30, 4.0
# Measured (docs/toolforge.md, "Memory"): a worker with a judge server peaked at 1,308 MB in the soak.
WORKER_PEAK = 1308 * 10**6


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


def quantity(text: str | int | float) -> float:
    """A Kubernetes quantity (``1536Mi``, ``500m``, ``"1"``) as a number (bytes, cores)."""
    match = re.fullmatch(r"([0-9.]+)(Ki|Mi|Gi|m)?", str(text))
    assert match, f"not a quantity: {text!r}"
    scale = {None: 1, "Ki": 2**10, "Mi": 2**20, "Gi": 2**30, "m": 1e-3}[match.group(2)]
    return float(match.group(1)) * scale


def in_repository(path: str) -> Path:
    """A path under the tool's clone ($HOME/refbot/…) as the file of this repository it names."""
    assert path.startswith("$HOME/refbot/"), path
    return ROOT / path.removeprefix("$HOME/refbot/")


def shell_words(command: str) -> tuple[list[str], list[str]]:
    """A job's command line (run by /bin/sh) as words, each ``"$(…)"`` replaced by a run id; and those inner
    commands."""
    inner = re.findall(r'"\$\((.*?)\)"', command)
    return shlex.split(re.sub(r'"\$\(.*?\)"', "1", command)), inner


def check_program(word: str) -> None:
    """A program of the clone: the virtual environment deploy/toolforge/setup makes, or a file of the repository."""
    if "/.venv/bin/" in word:
        assert word in ("$HOME/refbot/.venv/bin/refbot", "$HOME/refbot/.venv/bin/python"), word
        assert '"$(dirname "$0")/../.."' in (TOOLFORGE / "setup").read_text() and "-m venv .venv" in \
            (TOOLFORGE / "setup").read_text(), "setup makes the clone's .venv"
    else:
        assert in_repository(word).is_file(), f"{word} is not in the repository"


def toolforge_jobs() -> dict[str, dict]:
    jobs = yaml.safe_load((TOOLFORGE / "jobs.yaml").read_text(encoding="utf-8"))
    return {job["name"]: job for job in jobs}


def test_the_toolforge_jobs_run_refbot_commands_it_accepts_with_files_the_repository_has():
    commands = {}
    for name, job in toolforge_jobs().items():
        assert set(job) <= JOB_KEYS, f"{name}: {set(job) - JOB_KEYS} are no options of toolforge jobs"
        assert {"name", "command", "image", "mem", "emails"} <= set(job), job
        assert job["image"] == "python3.11", "the image deploy/toolforge/setup builds the virtual environment in"
        assert bool(job.get("schedule")) != bool(job.get("continuous")), f"{name}: scheduled or continuous"
        if job.get("schedule"):
            assert len(job["schedule"].split()) == 5, job["schedule"]
        words, inner = shell_words(job["command"])
        check_program(words[0])
        for command in inner:  # "$(… script.py --config …)": a script of the repository, run by the venv
            program, script, *rest = shlex.split(command)
            check_program(program)
            check_program(script)
            assert rest == ["--config", "$HOME/refbot.ini"], rest
        commands[name] = parsed(refbot_arguments(words))
        assert commands[name].config == Path("$HOME/refbot.ini"), "the configuration configure.py writes"
    assert commands["refbot-enqueue"].command == "run" and commands["refbot-enqueue"].enqueue
    assert commands["refbot-worker"].command == "worker"
    assert commands["refbot-report"].command == "report" and commands["refbot-report"].run == "latest", \
        "the latest run, not run 1"
    assert commands["refbot-apply"].command == "apply" and commands["refbot-apply"].live


def test_each_toolforge_job_has_the_memory_it_needs_within_the_default_quota():
    jobs = toolforge_jobs()
    memory = {name: quantity(job["mem"]) for name, job in jobs.items()}
    cpu = {name: quantity(job.get("cpu", "500m")) for name, job in jobs.items()}
    assert all(value <= JOB_MEMORY_MAX for value in memory.values()), memory
    worker = jobs["refbot-worker"]
    assert memory["refbot-worker"] >= WORKER_PEAK * 1.15, "a worker with a judge server: its peak and a margin"
    replicas = worker.get("replicas", 1)
    scheduled = [name for name, job in jobs.items() if job.get("schedule")]
    assert replicas * memory["refbot-worker"] + max(memory[name] for name in scheduled) <= TOOL_MEMORY
    assert replicas * cpu["refbot-worker"] + max(cpu[name] for name in scheduled) <= TOOL_CPU
    times = [tuple(jobs[name]["schedule"].split()[:2]) for name in scheduled]
    assert len(set(times)) == len(times), "no two scheduled jobs start together (the quota holds one at a time)"


def test_configure_writes_a_private_configuration_and_the_tools_database(mariadb, tmp_path):
    """As on Toolforge: replica.my.cnf's user names the database (<user>__refbot), configure.py creates it and writes
    refbot.ini (mode 0600) with which refbot opens its ledger there; run again, it keeps both."""
    from bot.ledger.ledger import RunLedger

    configure = configure_module()
    (tmp_path / "replica.my.cnf").write_text(f"[client]\nuser = '{mariadb.user}'\npassword = '{mariadb.password}'\n",
                                             encoding="utf-8")
    contact = ["--contact", "https://www.wikidata.org/wiki/User:Example"]
    arguments = [*contact, "--judge-url", "http://judge.example.org:8000/v1", "--home", str(tmp_path),
                 "--db-host", "127.0.0.1", "--db-port", str(mariadb.port)]
    assert configure.main(arguments) == 0
    ini = tmp_path / "refbot.ini"
    assert ini.stat().st_mode & 0o777 == 0o600
    written = ini.read_text(encoding="utf-8")
    options = load_options(ini, environ={})
    assert options.run.ledger == f"mysql+pymysql://127.0.0.1:{mariadb.port}/{mariadb.user}__refbot"
    assert Path(options.run.ledger_credentials) == tmp_path / "replica.my.cnf"
    assert options.queue.broker == configure.REDIS and re.fullmatch(r"[0-9a-f]{32}", options.queue.prefix)
    assert options.judge.backend == "openai" and options.judge.url == "http://judge.example.org:8000/v1"
    with RunLedger.of(options.run) as ledger:
        assert ledger.latest_run() is None  # the database is there and takes refbot's tables
    assert configure.main(arguments) == 0 and ini.read_text(encoding="utf-8") == written
    mariadb.made.append(f"{mariadb.user}__refbot")

    embedded = tmp_path / "embedded"
    embedded.mkdir()
    (embedded / "replica.my.cnf").write_text((tmp_path / "replica.my.cnf").read_text(), encoding="utf-8")
    assert configure.main([*contact, "--embedded-judge", "--home", str(embedded), "--db-host", "127.0.0.1",
                           "--db-port", str(mariadb.port)]) == 0
    assert load_options(embedded / "refbot.ini", environ={}).judge.backend == "transformers"
    # The jobs to load: the repository's with a judge server; with the embedded judge, its worker in 5Gi.
    shipped = yaml.safe_load((TOOLFORGE / "jobs.yaml").read_text(encoding="utf-8"))
    assert yaml.safe_load((tmp_path / "refbot-jobs.yaml").read_text(encoding="utf-8")) == shipped
    jobs = {job["name"]: job for job in yaml.safe_load((embedded / "refbot-jobs.yaml").read_text(encoding="utf-8"))}
    assert (jobs["refbot-worker"]["mem"], jobs["refbot-worker"]["replicas"]) == ("5Gi", 1)
    assert {name: job for name, job in jobs.items() if name != "refbot-worker"} == {
        job["name"]: job for job in shipped if job["name"] != "refbot-worker"}, "the other jobs as shipped"
    assert quantity(jobs["refbot-worker"]["mem"]) + max(quantity(job["mem"]) for job in shipped
                                                        if job["name"] != "refbot-worker") <= quantity("8Gi")


def test_the_setup_job_builds_what_the_jobs_run():
    setup = (TOOLFORGE / "setup").read_text(encoding="utf-8")
    assert subprocess.run(["bash", "-n", str(TOOLFORGE / "setup")]).returncode == 0
    assert (TOOLFORGE / "setup").stat().st_mode & 0o111, "executable: the one-off job runs it as its command"
    assert torch_pin(setup) == torch_pin((ROOT / "scripts" / "setup").read_text()), "the torch scripts/setup pins"
    assert "-c constraints.txt" in setup
    for line in setup.splitlines():
        if line.strip().startswith(".venv/bin/refbot "):
            args = parsed(shlex.split(line.strip())[1:])
            assert args.command == "models" and set(args.names) <= set(CATALOGUE), line


def torch_pin(text: str) -> str:
    return re.search(r"torch==([0-9.]+)", text).group(1)


def kubernetes_documents() -> list[dict]:
    return list(yaml.safe_load_all((DEPLOY / "kubernetes" / "refbot.yaml").read_text(encoding="utf-8")))


def test_the_kubernetes_manifests_run_refbot_commands_it_accepts_with_a_configuration_it_loads(tmp_path):
    named = {(document["kind"], document["metadata"]["name"]): document for document in kubernetes_documents()}
    documents = {kind: document for (kind, name), document in named.items() if name != "refbot-review"}
    assert {"ConfigMap", "Deployment", "CronJob"} <= set(documents)
    assert "Secret" not in documents, "no password in the repository: the Secret is made with kubectl"
    text = (DEPLOY / "kubernetes" / "refbot.yaml").read_text(encoding="utf-8")
    assert "kubectl create secret generic refbot-ledger" in text and "change-me" not in text
    worker = named[("Deployment", "refbot-worker")]["spec"]["template"]["spec"]["containers"][0]
    enqueue = named[("CronJob", "refbot-enqueue")]["spec"]["jobTemplate"]["spec"]["template"]["spec"]["containers"][0]
    assert parsed(refbot_arguments(worker["command"])).command == "worker"
    args = parsed(refbot_arguments(enqueue["command"]))
    assert args.command == "run" and args.enqueue and args.worklist == ("P166",)
    for container in (worker, enqueue):
        assert PASSWORD_VARIABLE in {variable["name"] for variable in container["env"]}
        assert container["command"][container["command"].index("--config") + 1] == "/etc/refbot/refbot.ini"
        assert container["image"].split(":")[0] in text.split("docker build -t ", 1)[1], "the image Dockerfile makes"
    assert quantity(worker["resources"]["limits"]["memory"]) >= WORKER_PEAK * 1.15
    ini = tmp_path / "refbot.ini"
    ini.write_text(documents["ConfigMap"]["data"]["refbot.ini"], encoding="utf-8")
    options = load_options(ini, environ={})
    assert options.run.ledger.startswith("postgresql://") and options.queue.broker.startswith("redis://")
    assert options.judge.backend == "openai" and options.judge.model.startswith("meta-llama/Llama-3.1-8B")

    # The review service: `refbot serve-review` on the port its Service targets, its secrets from a Secret.
    review = named[("Deployment", "refbot-review")]["spec"]["template"]["spec"]["containers"][0]
    args = parsed(refbot_arguments(review["command"]))
    assert args.command == "serve-review" and args.host == "0.0.0.0"
    assert review["ports"][0]["containerPort"] == args.port
    assert named[("Service", "refbot-review")]["spec"]["ports"][0]["targetPort"] == review["ports"][0]["name"]
    assert {"REFBOT_SERVICE_CLIENT_SECRET", "REFBOT_SERVICE_SECRET_KEY", PASSWORD_VARIABLE} <= {
        variable["name"] for variable in review["env"]}
    assert "kubectl create secret generic refbot-service" in text
    assert options.service.url.startswith("https://") and options.service.client_id

    # As the Toolforge jobs: the approved references written daily with the bot's account, its password a Secret.
    apply = named[("CronJob", "refbot-apply")]["spec"]["jobTemplate"]["spec"]["template"]["spec"]["containers"][0]
    args = parsed(refbot_arguments(apply["command"]))
    assert args.command == "apply" and args.live and args.limit == 300
    assert {"REFBOT_APPLY_PASSWORD", PASSWORD_VARIABLE} <= {variable["name"] for variable in apply["env"]}
    assert "kubectl create secret generic refbot-apply" in text and options.apply.user


def test_the_toolforge_webservice_serves_the_review_service_from_the_tools_configuration(tmp_path, monkeypatch):
    """deploy/toolforge/app.py, as uWSGI imports it: the service over the ledger refbot.ini names, with the secrets
    from the environment."""
    import importlib.util

    from bot.ledger.ledger import RunLedger

    RunLedger(tmp_path / "runs.sqlite").close()
    config = tmp_path / "refbot.ini"
    config.write_text("[refbot]\ncontact = refbot-tests@example.org\n"
                      f"[run]\nledger = {tmp_path / 'runs.sqlite'}\n"
                      "[service]\nurl = https://refbot.example.org\nclient_id = abc123\n", encoding="utf-8")
    monkeypatch.setenv("REFBOT_CONFIG", str(config))
    monkeypatch.setenv("REFBOT_SERVICE_CLIENT_SECRET", "consumer-secret")
    monkeypatch.setenv("REFBOT_SERVICE_SECRET_KEY", "k" * 32)
    spec = importlib.util.spec_from_file_location("toolforge_app", TOOLFORGE / "app.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    client = module.app.test_client()
    assert client.get("/api/item/Q1").get_json() == {"item": "Q1", "statements": []}
    assert client.get("/").status_code == 200  # no run yet: says so
    login = client.get("/login")
    assert login.status_code == 302 and login.headers["Location"].startswith(
        "https://meta.wikimedia.org/w/rest.php/oauth2/authorize?")
    assert "redirect_uri=https%3A%2F%2Frefbot.example.org%2Foauth%2Fcallback" in login.headers["Location"]
    assert "code_challenge_method=S256" in login.headers["Location"]

    monkeypatch.delenv("REFBOT_SERVICE_SECRET_KEY")
    with pytest.raises(ConfigError, match="secret_key"):
        spec.loader.exec_module(importlib.util.module_from_spec(spec))


def test_the_dockerfile_builds_refbot_from_the_files_it_copies():
    dockerfile = (ROOT / "Dockerfile").read_text(encoding="utf-8")
    lines = re.sub(r"\\\n\s*", " ", dockerfile).splitlines()
    base = next(line for line in lines if line.startswith("FROM ")).split()[1]
    locked = re.search(r"autogenerated by pip-compile with Python ([0-9.]+)",
                       (ROOT / "constraints.txt").read_text()).group(1)
    assert base.startswith(f"python:{locked}-"), "the Python constraints.txt is compiled for"
    ignored = (ROOT / ".dockerignore").read_text(encoding="utf-8").splitlines()
    copied = [word for line in lines if line.startswith("COPY ") for word in line.split()[1:-1]]
    assert {"pyproject.toml", "setup.cfg", "constraints.txt", "bot", "queries", "xslt"} <= set(copied)
    for source in copied:
        assert (ROOT / source).exists(), source
        assert f"!{source}" in ignored or f"!{source}/" in ignored, f".dockerignore leaves {source} out"
    run = " ".join(line for line in lines if line.startswith("RUN "))
    assert torch_pin(run) == torch_pin((ROOT / "scripts" / "setup").read_text()) and "-c constraints.txt ." in run
    for command in re.findall(r"(?:&&|then)\s+(refbot [^&;]+)", run):
        args = parsed(shlex.split(command)[1:])
        assert args.command == "models" and set(args.names) <= set(CATALOGUE), command
    assert [line.split()[1] for line in lines if line.startswith("USER ")][-1] != "root"


def guide_commands(guide: Path = GUIDE) -> list[str]:
    """The command lines of a guide's shell blocks (```sh), a line continued with a backslash joined, comments
    dropped."""
    blocks, block, language = [], [], None
    for line in guide.read_text(encoding="utf-8").splitlines():
        if line.startswith("```"):
            if language is None:
                language = line[3:].strip()
            else:
                if language == "sh":
                    blocks.append("\n".join(block))
                block, language = [], None
        elif language is not None:
            block.append(line)
    assert language is None, "a code block of the guide is not closed"
    lines = [line.split(" #")[0].strip() for text in blocks for line in re.sub(r"\\\n\s*", " ", text).splitlines()]
    return [line for line in lines if line]


def configure_module():
    sys.path.insert(0, str(TOOLFORGE))
    try:
        import configure
    finally:
        sys.path.remove(str(TOOLFORGE))
    return configure


def test_every_command_of_the_toolforge_guide_is_one_refbot_or_its_scripts_accept():
    """Each `toolforge jobs run` of the guide: the python3.11 image and a command of the clone (refbot, setup,
    configure.py) that accepts its arguments; each refbot line run by hand, one refbot accepts; the files it loads
    are the repository's."""
    commands = guide_commands()
    jobs = [shlex.split(line) for line in commands if line.startswith("toolforge jobs run ")]
    assert {words[3] for words in jobs} >= {"refbot-setup", "refbot-configure", "refbot-doctor"}
    for words in jobs:
        assert words[words.index("--image") + 1] == "python3.11", words
        command = shlex.split(words[words.index("--command") + 1])
        check_program(command[0])
        if command[0].endswith("/python"):
            check_program(command[1])
            assert command[1].endswith("/configure.py"), command
            configure_module().build_parser().parse_args(command[2:])
        elif command[0].endswith("/refbot"):
            parsed(refbot_arguments(command))
    by_hand = [line for line in commands if re.match(r"(\S*/)?refbot ", line)]
    assert by_hand, "the guide shows the commands a maintainer runs"
    for line in by_hand:
        parsed(refbot_arguments(shlex.split(line)))
    loaded = [words for words in map(shlex.split, commands) if words[:3] == ["toolforge", "jobs", "load"]]
    assert loaded and all(words[3] == "$HOME/refbot-jobs.yaml" for words in loaded), loaded  # configure.py's


def test_the_kubernetes_guide_builds_the_image_and_applies_the_manifest_it_names():
    """docs/kubernetes.md: the image it builds is the one the manifest runs, the Secret it makes the one the
    containers read, the file it applies and the Deployment it scales the repository's; its refbot line one refbot
    accepts, with the configuration the manifest mounts."""
    commands = [shlex.split(line) for line in guide_commands(KUBERNETES_GUIDE)]
    documents = {document["kind"]: document for document in kubernetes_documents()
                 if document["metadata"]["name"] != "refbot-review"}
    worker = documents["Deployment"]["spec"]["template"]["spec"]["containers"][0]
    builds = [words for words in commands if words[:2] == ["docker", "build"]]
    assert builds and all(words[words.index("-t") + 1] == worker["image"] for words in builds), builds
    secrets = [words for words in commands if words[:4] == ["kubectl", "create", "secret", "generic"]]
    review = next(document for document in kubernetes_documents() if document["metadata"]["name"] == "refbot-review"
                  and document["kind"] == "Deployment")["spec"]["template"]["spec"]["containers"][0]
    containers = [worker, review] + [document["spec"]["jobTemplate"]["spec"]["template"]["spec"]["containers"][0]
                                     for document in kubernetes_documents() if document["kind"] == "CronJob"]
    read = {variable["valueFrom"]["secretKeyRef"]["name"] for container in containers for variable in container["env"]}
    assert secrets and {words[4] for words in secrets} == read, (secrets, read)
    applied = [words[words.index("-f") + 1] for words in commands if words[:2] == ["kubectl", "apply"]]
    assert applied == ["deploy/kubernetes/refbot.yaml"]
    scaled = [words[2] for words in commands if words[:2] == ["kubectl", "scale"]]
    assert scaled == [f"deployment/{documents['Deployment']['metadata']['name']}"], scaled
    by_hand = [words[words.index("--") + 1:] for words in commands if words[:2] == ["kubectl", "exec"]]
    assert by_hand, "the guide shows how to follow a run"
    for words in by_hand:
        args = parsed(refbot_arguments(words))
        assert str(args.config) == worker["command"][worker["command"].index("--config") + 1]


def test_configure_names_the_database_it_cannot_reach_in_one_line(tmp_path, capsys):
    configure = configure_module()
    (tmp_path / "replica.my.cnf").write_text("[client]\nuser = 's0'\npassword = 'p'\n", encoding="utf-8")
    port = free_port()  # nothing listens there
    assert configure.main(["--contact", "https://www.wikidata.org/wiki/User:Example", "--judge-url",
                           "http://judge.example.org:8000/v1", "--home", str(tmp_path), "--db-host", "127.0.0.1",
                           "--db-port", str(port)]) == 1
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "Traceback" not in err
    assert f"cannot make the ledger's database s0__refbot on 127.0.0.1:{port}" in err and "run configure again" in err
    assert (tmp_path / "refbot.ini").exists(), "what was written is kept"


def test_the_operators_files_agree_on_the_jobs_file_the_image_and_the_review_services_address():
    """What cannot run here (Toolforge, Kubernetes), checked over the files: one name for the jobs file everywhere,
    one image tag in the Dockerfile, the manifest and the guide, an Ingress for the review service at [service] url,
    and the Toolforge guide saying which one webservice a tool runs."""
    guide = (ROOT / "docs" / "toolforge.md").read_text(encoding="utf-8")
    jobs_header = (TOOLFORGE / "jobs.yaml").read_text(encoding="utf-8").split("\n\n", 1)[0]
    loads = set(re.findall(r"toolforge jobs load (\S+?)`?(?:\s|$)", guide + "\n" + jobs_header))
    assert loads == {"$HOME/refbot-jobs.yaml"}, loads

    tags = set()
    for path in (ROOT / "Dockerfile", DEPLOY / "kubernetes" / "refbot.yaml", ROOT / "docs" / "kubernetes.md"):
        tags |= set(re.findall(r"registry\.example\.org/refbot:(\S+?)(?:\s|$|\")", path.read_text(encoding="utf-8")))
    assert tags == {"latest"}, tags

    named = {(document["kind"], document["metadata"]["name"]): document for document in kubernetes_documents()}
    ingress = named[("Ingress", "refbot-review")]["spec"]
    ini = named[("ConfigMap", "refbot-config")]["data"]["refbot.ini"]
    host = re.search(r"^\s*url = https://([^/\s]+)", ini, re.M).group(1)
    assert [rule["host"] for rule in ingress["rules"]] == [host] and ingress["tls"][0]["hosts"] == [host]
    backend = ingress["rules"][0]["http"]["paths"][0]["backend"]["service"]
    service = named[("Service", "refbot-review")]["spec"]["ports"][0]
    assert backend == {"name": "refbot-review", "port": {"name": service["name"]}}

    assert "A tool runs one webservice" in guide and "webservice php8.2" in guide and "webservice python3.11" in guide
