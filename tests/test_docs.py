"""The README and the pages under docs/ stay true: their commands exist, CI runs exactly the README's test command
(which builds the pages with ``mkdocs build --strict``), every page is in mkdocs.yml's nav and the README's map, and
every link of the README reaches a file and its heading."""

import html
import re
import shlex
import subprocess
from pathlib import Path

import pytest

from bot.cli import _validate, build_parser
from conftest import ROOT

README = (ROOT / "README.md").read_text(encoding="utf-8")
DOCS = ROOT / "docs"


def page(name: str) -> str:
    return (DOCS / name).read_text(encoding="utf-8")


def pages() -> list[Path]:
    """The pages of the site: every Markdown file under docs/ but the hooks mkdocs.yml excludes."""
    return sorted(path for path in DOCS.rglob("*.md") if "hooks" not in path.relative_to(DOCS).parts)


def test_ci_runs_the_readme_test_command():
    command = subprocess.run(["sed", "-n", r"s/^    \(scripts\/setup --test && .*\)$/\1/p", "README.md"],
                             cwd=ROOT, capture_output=True, text=True, check=True).stdout.strip()
    assert command.startswith("scripts/setup --test && ")
    assert command.endswith(".venv/bin/pytest")
    assert " && .venv/bin/mkdocs build --strict && " in command, "CI builds the pages, every link and anchor checked"
    assert "bash -c \"$command\"" in (ROOT / ".ci" / "run").read_text()


def test_the_main_command_is_a_real_refbot_invocation():
    main = re.search(r"^    scripts/setup && \.venv/bin/refbot (.+)$", README, re.M).group(1).split()
    args = build_parser().parse_args(main)
    assert args.command == "demo"


def test_the_home_page_shows_the_readmes_two_commands():
    def commands(text):
        return re.findall(r"^    (scripts/setup .*)$", text, re.M)

    assert len(commands(README)) == 2 and commands(page("index.md")) == commands(README)


def test_every_command_is_documented():
    commands = page("commands.md")
    for command in ("refbot eval", "refbot judge", "refbot select", "refbot properties", "refbot models list",
                    "refbot models fetch", "refbot fetch URL", "refbot sources QID", "refbot check QID",
                    "refbot run --items FILE", "refbot report TRACE.xml", "refbot demo", "refbot doctor",
                    "refbot worker", "refbot review", "refbot approve", "refbot reject", "refbot export",
                    "refbot apply", "refbot profile", "refbot serve-judge"):
        assert command in commands
    documented = set(re.findall(r"^\| `refbot ([\w-]+)", commands, re.M))
    subcommands = next(action for action in build_parser()._actions if action.dest == "command").choices
    assert set(subcommands) <= documented | {"reject"}, f"not in docs/commands.md: {set(subcommands) - documented}"


def test_every_option_is_in_the_configuration_example():
    from bot.options import FLAT, SECRET_FIELDS, section_key

    example = re.search(r"```ini\n(.*?)```", page("configuration.md"), re.S).group(1)
    sections = {name: body for name, body in re.findall(r"\[(\w+)\]\n(.*?)(?=\n\[|\Z)", example, re.S)}
    for name in FLAT:
        if name in SECRET_FIELDS:
            continue
        section, key = section_key(name)
        assert re.search(rf"^{key} = ", sections[section], re.M), \
            f"[{section}] {key} is not in docs/configuration.md's example"


def test_the_named_endpoints_are_documented():
    from bot.selection import ENDPOINTS

    selecting = page("selecting.md")
    for name, url in ENDPOINTS.items():
        assert f"`{name}`" in selecting and url in selecting


def test_the_lock_pins_every_requirement_of_setup_cfg_within_its_range():
    """constraints.txt is what scripts/setup and CI install: it must keep up with setup.cfg (scripts/lock)."""
    import configparser

    from packaging.requirements import Requirement
    from packaging.utils import canonicalize_name

    config = configparser.ConfigParser()
    config.read(ROOT / "setup.cfg", encoding="utf-8")
    extras = config["options.extras_require"]
    wanted = [Requirement(line) for block in [config["options"]["install_requires"]]
              + [extras[name] for name in ("demo", "test", "lint", "docs")]
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
    assert "--extra docs" in (ROOT / "scripts" / "lock").read_text(), "scripts/lock keeps mkdocs in the lock"
    assert re.search(r'-e "\.\[[a-z,]*\bdocs\b[a-z,]*\]"', (ROOT / "scripts" / "setup").read_text()), \
        "scripts/setup --test installs mkdocs, which the README's test command runs"


def nav_pages(entries) -> list[str]:
    """The pages named in mkdocs.yml's nav, at any depth."""
    found = []
    for entry in entries:
        value = next(iter(entry.values())) if isinstance(entry, dict) else entry
        found += nav_pages(value) if isinstance(value, list) else [value]
    return found


def test_every_page_is_in_the_nav_once_and_every_nav_entry_is_a_page():
    import yaml

    config = yaml.safe_load((ROOT / "mkdocs.yml").read_text(encoding="utf-8"))
    assert config["docs_dir"] == "docs" and config["site_dir"] == "site"
    assert "/site/" in (ROOT / ".gitignore").read_text().splitlines(), "the built site is not committed"
    listed = nav_pages(config["nav"])
    assert len(listed) == len(set(listed)), "a page is in the nav twice"
    assert set(listed) == {path.relative_to(DOCS).as_posix() for path in pages()}
    assert listed[0] == "index.md", "the site opens on its home page"


def github_anchors(markdown: str) -> set[str]:
    """The anchors GitHub (and, for these headings, MkDocs) gives a page's headings: lower case, punctuation but
    ``-`` and ``_`` dropped, each space a ``-``."""
    headings = re.findall(r"^#{1,6} (.+?)\s*$", re.sub(r"^```.*?^```", "", markdown, flags=re.M | re.S), re.M)
    return {re.sub(r"[^\w\- ]", "", heading.lower()).replace(" ", "-") for heading in headings}


def test_every_link_of_the_readme_reaches_a_file_and_its_heading_and_the_map_names_every_page():
    links = re.findall(r"\]\(([^)\s]+)\)", README)
    local = [link for link in links if not re.match(r"[a-z]+:", link)]
    assert local, "the README links its pages"
    for link in local:
        path, _, anchor = link.partition("#")
        target = ROOT / path
        assert target.exists(), f"the README links {link}: there is no {path}"
        if anchor:
            assert anchor in github_anchors(target.read_text(encoding="utf-8")), f"{path} has no heading #{anchor}"
    linked = {(ROOT / link.partition("#")[0]).resolve() for link in local}
    for path in pages():
        assert path.resolve() in linked, f"the README's map does not name {path.relative_to(ROOT)}"


def code_blocks(markdown_text: str) -> list[tuple[str, str]]:
    """Each code block of a page as MkDocs renders it (Python-Markdown with mkdocs.yml's extensions): its language
    ("" for an indented block) and its text."""
    import markdown

    rendered = markdown.markdown(markdown_text, extensions=["tables", "fenced_code", "sane_lists"])
    return [(language, html.unescape(text)) for language, text in
            re.findall(r'<pre><code(?: class="language-(\w+)")?>(.*?)</code></pre>', rendered, re.S)]


def refbot_arguments(line: str) -> list[list[str]]:
    """The arguments of each refbot invocation in a shell line: a command of a ``&&`` chain, after ``VAR=value``
    words, after ``kubectl exec … --``, or inside ``--command "…"``; up to a redirection or a pipe."""
    found = []
    for command in line.split("&&"):
        words = shlex.split(command)
        if "--command" in words:
            found += refbot_arguments(words[words.index("--command") + 1])
            continue
        if "--" in words:
            words = words[words.index("--") + 1:]
        while words and re.fullmatch(r"[A-Z_]+=.*", words[0]):
            words = words[1:]
        if words and (words[0] == "refbot" or words[0].endswith("/refbot")):
            ends = [i for i, word in enumerate(words) if word in ("|", ">", ">>") or word.startswith(("2>", ">"))]
            found.append(words[1:ends[0] if ends else None])
    return found


def shell_lines(path: Path) -> list[str]:
    """The command lines of a page's shell blocks (```sh and indented ones): a line continued with a backslash or
    inside an open quote joined to the next, comments dropped. Text no shell reads (output shown as printed) must
    not name refbot as a program."""
    lines = []
    for language, block in code_blocks(path.read_text(encoding="utf-8")):
        if language not in ("", "sh"):
            continue
        pending = ""
        for line in re.sub(r"\\\n\s*", " ", block).splitlines():
            line = pending + line.split(" #")[0].strip()
            if not line or line.startswith("#"):
                continue
            try:
                shlex.split(line)
            except ValueError:  # a quote still open: the command goes on
                pending = line + "\n"
                continue
            lines.append(line)
            pending = ""
        assert not re.search(r"(^|\s)(\S*/)?refbot\s", pending), f"{path.name}: a shell cannot read {pending!r}"
    return lines


@pytest.mark.parametrize("path", pages(), ids=lambda path: path.name)
def test_every_refbot_command_a_page_shows_is_one_refbot_accepts(path):
    parser = build_parser()
    for line in shell_lines(path):
        for arguments in refbot_arguments(line):
            try:
                _validate(parser, parser.parse_args(arguments))
            except SystemExit:
                pytest.fail(f"{path.name}: refbot refuses {shlex.join(arguments)}")


def test_the_pages_show_refbot_commands_to_run():
    """The test above has something to read: the pages' commands are found as MkDocs shows them."""
    shown = {path.name: sum(len(refbot_arguments(line)) for line in shell_lines(path)) for path in pages()}
    assert sum(shown.values()) >= 30, shown
    for name in ("index.md", "selecting.md", "curators.md", "workers.md", "operators.md", "toolforge.md",
                 "kubernetes.md", "documents.md", "judge.md"):
        assert shown[name], f"no refbot command found in {name}"
