"""The README stays true: its commands exist and CI runs exactly its test command."""

import re
import subprocess

from bot.cli import build_parser
from conftest import ROOT

README = (ROOT / "README.md").read_text(encoding="utf-8")


def test_ci_runs_the_readme_test_command():
    command = subprocess.run(["sed", "-n", r"s/^    \(scripts\/setup --test && .*\)$/\1/p", "README.md"],
                             cwd=ROOT, capture_output=True, text=True, check=True).stdout.strip()
    assert command.startswith("scripts/setup --test && ")
    assert command.endswith(".venv/bin/pytest")
    assert "bash -c \"$command\"" in (ROOT / ".ci" / "run").read_text()


def test_the_main_command_is_a_real_refbot_invocation():
    main = re.search(r"^    scripts/setup && \.venv/bin/refbot (.+)$", README, re.M).group(1).split()
    args = build_parser().parse_args(main)
    assert args.command == "demo"


def test_every_command_is_documented():
    for command in ("refbot eval", "refbot judge", "refbot select", "refbot properties", "refbot models list",
                    "refbot models fetch", "refbot fetch URL", "refbot sources QID", "refbot check QID",
                    "refbot run --items FILE", "refbot report TRACE.xml", "refbot demo", "refbot doctor"):
        assert command in README


def test_every_option_is_in_the_configuration_example():
    from bot.options import FLAT, SECRET_FIELDS, section_key

    example = re.search(r"```ini\n(.*?)```", README, re.S).group(1)
    sections = {name: body for name, body in re.findall(r"\[(\w+)\]\n(.*?)(?=\n\[|\Z)", example, re.S)}
    for name in FLAT:
        if name in SECRET_FIELDS:
            continue
        section, key = section_key(name)
        assert re.search(rf"^{key} = ", sections[section], re.M), f"[{section}] {key} is not in the README example"


def test_the_named_endpoints_are_documented():
    from bot.selection import ENDPOINTS

    for name, url in ENDPOINTS.items():
        assert f"`{name}`" in README and url in README


def test_the_lock_pins_every_requirement_of_setup_cfg_within_its_range():
    """constraints.txt is what scripts/setup and CI install: it must keep up with setup.cfg (scripts/lock)."""
    import configparser

    from packaging.requirements import Requirement
    from packaging.utils import canonicalize_name

    config = configparser.ConfigParser()
    config.read(ROOT / "setup.cfg", encoding="utf-8")
    extras = config["options.extras_require"]
    wanted = [Requirement(line) for block in [config["options"]["install_requires"]]
              + [extras[name] for name in ("demo", "test", "lint")]
              for line in block.splitlines() if line.strip() and not line.strip().startswith("#")]
    pins = dict(re.findall(r"^([A-Za-z0-9_.-]+)==(\S+)", (ROOT / "constraints.txt").read_text(), re.M))
    pins = {canonicalize_name(name): version for name, version in pins.items()}
    for requirement in wanted:
        name = canonicalize_name(requirement.name)
        if name == "torch":  # the machine's build, installed first by scripts/setup
            continue
        assert name in pins, f"{requirement.name} is not in constraints.txt: run scripts/lock"
        assert requirement.specifier.contains(pins[name], prereleases=True), \
            f"constraints.txt pins {requirement.name} {pins[name]}, setup.cfg wants {requirement.specifier}"
    assert "lxml-html-clean" in pins, "trafilatura cannot import without it (lxml 6.1 dropped the extra)"
