"""MkDocs hook: a pipe escaped inside a table cell's code (`all\\|kg`, for GitHub, which splits a table row at every
unescaped pipe, code or not) is shown without its backslash, as GitHub shows it; Python-Markdown keeps code whole
already and would show the backslash."""

import re

ROW = re.compile(r"^\|.*\|[ \t]*$", re.M)
CODE = re.compile(r"`[^`\n]*`")


def unescape_pipes(markdown: str) -> str:
    return ROW.sub(lambda row: CODE.sub(lambda code: code.group(0).replace("\\|", "|"), row.group(0)), markdown)


def on_page_markdown(markdown: str, **_) -> str:
    return unescape_pipes(markdown)
