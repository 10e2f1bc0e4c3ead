"""Fuzzing with Hypothesis: whatever a page, a title, a label or a URL holds — control characters, lone surrogates,
bidi marks, markup, words of thousands of letters — the paragraphs come out as text or the page is unreadable (never
a crash of refbot's own), the trace validates, and the report shows it all as text: no script, no event handler,
no link other than http(s), nothing escaping its element."""

from __future__ import annotations

import html
from dataclasses import replace

import lxml.html
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from bot.output import trace as traces
from bot.checking.records import Candidate
from bot.datamodel import Paragraph
from bot.documents.paragraphs import ParagraphRules, Unreadable, extract
from bot.output.report import render
from test_trace import CONTEXT, STATEMENT, supported_check

FUZZ = settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
# Anything Unicode holds, surrogates and control characters included, with what attacks and confuses a reader.
NASTY = st.sampled_from(["<script>alert(1)</script>", "]]>", "</textarea>", "<!--", "javascript:alert(1)",
                         "\u202e", "\u200f", "\u2028", "\x00", "\x1b[31m", "\ud800", "&amp;", "{{7*7}}", "'\"",
                         "<img src=x onerror=alert(1)>", "x" * 5000])
TEXT = st.lists(st.one_of(st.text(), NASTY), max_size=6).map("".join)
# Addresses as refbot meets them (candidates are http(s): search results and citations are filtered so), with
# anything after the scheme, and the hostile ones a page can put there.
URL = st.one_of(st.builds(str.__add__, st.sampled_from(["http://", "https://"]), st.text(max_size=80)),
                st.sampled_from(["https://x.example/javascript:alert(1)", "https://x.example/\"><script>1</script>",
                                 "https://user:pw@x.example/a?sig=S", "http://[::1", "https://a.example/ b\x00",
                                 "https://x.example/?q=</textarea>&r=]]>"]))
RULES = ParagraphRules(min_chars=20, max_chars=400)


def encoded(text: str) -> bytes:
    return text.encode("utf-8", "surrogatepass")


@FUZZ
@given(st.lists(TEXT, min_size=1, max_size=8), TEXT)
def test_any_html_becomes_text_paragraphs_or_is_unreadable(blocks, title):
    page = (f"<html><head><title>{html.escape(title)}</title></head><body>"
            + "".join(f"<p>{html.escape(block)}</p>" for block in blocks) + "</body></html>")
    try:
        document = extract(encoded(page), "text/html", "https://news.example/a", RULES)
    except Unreadable:
        return
    assert all(isinstance(p.text, str) and p.text for p in document.paragraphs)


@FUZZ
@given(st.binary(max_size=4000), st.sampled_from(["text/html", "text/plain", "application/pdf"]))
def test_any_bytes_under_any_type_are_read_or_unreadable(body, kind):
    try:
        document = extract(body, kind, "https://news.example/a", RULES)
    except Unreadable:
        return
    assert all(isinstance(p.text, str) for p in document.paragraphs)


def _hostile_check(text: str, url: str, title: str, label: str):
    check = supported_check()
    document = check.documents[0]
    judged = document.judged[0]
    paragraph = Paragraph(text or "x", url, 3, 0, len(text or "x"))
    ranked = replace(judged.ranked, paragraph=paragraph)
    statement = replace(STATEMENT, item_label=label, property_label=label,
                        value=replace(STATEMENT.value, text=label))
    reference = replace(check.reference, url=url, title=title, quotation=text)
    return replace(check, statement=statement, reference=reference, documents=(replace(
        document, candidate=Candidate(url, "search", title, rank=1), judged=(replace(judged, ranked=ranked),)),))


@FUZZ
@given(TEXT, URL, TEXT, TEXT)
def test_the_trace_always_validates_and_the_report_always_escapes(text, url, title, label):
    context = replace(CONTEXT, label=label)
    tree = traces.assemble(
        traces.RunInfo(mode="check", started="2026-11-21T10:00:00Z", finished="2026-11-21T10:00:05Z",
                       duration_s=5.0, complete=True, judge_backend="openai", model="m", template="refbot",
                       prompt_template=label, threshold=0.5, strategy="ranked", top=3, embeddings="none",
                       notes=[title]),
        [(traces.item_element(context), [traces.statement_element(context, _hostile_check(text, url, title, label))])])
    traces.validate(tree)
    page = lxml.html.fromstring(render(tree))
    assert page.xpath("//script") == [] and page.xpath("//iframe|//object|//embed|//img[@onerror]") == []
    assert page.xpath("//@*[starts-with(name(), 'on')]") == [], "no event handler attribute"
    for href in page.xpath("//a/@href"):
        assert href.startswith(("http://", "https://", "#")), href
    assert page.xpath("//meta[@http-equiv='Content-Security-Policy']")
    assert len(page.xpath("//section[@data-guid]")) == 1, "the statement's section holds all that belongs to it"
    assert len(page.xpath("//form")) == 0 and len(page.xpath("//textarea")) <= 1
