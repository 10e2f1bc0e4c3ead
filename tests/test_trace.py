"""The XML trace: built from check records, valid against xslt/trace.xsd, rejected with the schema's first error
when invalid, free of secrets; and the HTML report rendered from it, with page text escaped."""

from __future__ import annotations

from dataclasses import replace
from datetime import date

import pytest
from lxml import etree

from bot.output import trace as traces
from bot.checking.items import ItemContext
from bot.checking.records import Candidate, DocumentCheck, Judged, Outcome, Search, StatementCheck
from bot.datamodel import Judgement, Paragraph, Statement, Value, Verdict
from bot.documents.fetching import Fetched, Outcome as FetchOutcome
from bot.documents.paragraphs import Document
from bot.documents.retrieval import Retrieved
from bot.documents.search import SearchResult
from bot.errors import InputError, TraceError
from bot.checking.ranking import rank
from bot.references import ProposedReference, quickstatements
from bot.checking.subject_check import NAMED
from bot.output.report import render

HOSTILE = ("Marta Novotná received the Purkyně Prize for Chemistry in 2021. <script>document.title='pwned'"
           "</script> <img src=x onerror=alert(1)>")
STATEMENT = Statement("Q990201", "Marta Novotná", "Q990201$AAAA-1", "P166", "award received",
                      Value("wikibase-item", "Q990211", "Purkyně Prize for Chemistry"))
CONTEXT = ItemContext("Q990201", "Marta Novotná", "https://www.wikidata.org", 2301234567)


def judgement(verdict=Verdict.SUPPORTS, support=0.91):
    return Judgement(verdict, support, "P(yes) 0.910", "The paragraph says so.", "qwen", "refbot", 120, 1, 0.8)


def supported_check() -> StatementCheck:
    paragraph = Paragraph(HOSTILE, "https://news.example.org/a", 7, 1200, 1200 + len(HOSTILE))
    ranked = replace(rank([paragraph], STATEMENT)[0], subject_rule=NAMED)
    fetched = Fetched("https://news.example.org/a", FetchOutcome.OK, final_url="https://news.example.org/a",
                      status=200, content_type="text/html", content=b"<html>...</html>",
                      retrieved="2026-11-21T10:00:00Z")
    document = Document("https://news.example.org/a", "html", HOSTILE, (paragraph,), title="Prize for Novotná",
                        language="en")
    retrieved = Retrieved("https://news.example.org/a", fetched, document)
    reference = ProposedReference("https://news.example.org/a", date(2026, 11, 21), "Prize for Novotná", "en",
                                  quotation="Marta Novotná received the Purkyně Prize for Chemistry in 2021.")
    return StatementCheck(
        STATEMENT, Outcome.SUPPORTED, "1 supporting paragraph(s) in 1 document(s)", "2026-11-21T10:00:00Z", 3.2,
        (Search("searxng", '"Marta Novotná" award received Purkyně Prize for Chemistry -wikipedia',
                (SearchResult("https://news.example.org/a", "Prize for Novotná", rank=1),)),),
        (DocumentCheck(Candidate("https://news.example.org/a", "search", "Prize for Novotná", rank=1), retrieved,
                       (Judged(ranked, judgement()),), 11),),
        reference, quickstatements(STATEMENT, reference, "reference proposed by refbot"))


def run_info(**overrides):
    values = dict(mode="check", started="2026-11-21T10:00:00Z", finished="2026-11-21T10:00:05Z", duration_s=5.0,
                  complete=True, judge_backend="openai", model="qwen", template="refbot",
                  prompt_template="[system]\n…", threshold=0.5, strategy="ranked", top=3,
                  embeddings="all-minilm-l6-v2",
                  endpoints=[("search (brave)", "https://user:pw@search.example/api?q=x&api_key=SECRET")],
                  options=[("contact", "bot@example.org")])
    values.update(overrides)
    return traces.RunInfo(**values)


def build():
    return traces.assemble(run_info(), [(traces.item_element(CONTEXT),
                                         [traces.statement_element(CONTEXT, supported_check())])])


def test_a_trace_validates_and_records_the_decision():
    tree = build()
    traces.validate(tree)
    ns = {"t": traces.NS}
    statement = tree.find("t:item/t:statement", ns)
    assert statement.get("outcome") == "supported" and statement.get("judgements") == "1"
    assert statement.get("url") == "https://www.wikidata.org/wiki/Q990201#Q990201$AAAA-1"
    judged = statement.find("t:document/t:judgement", ns)
    assert judged.get("start") == "1200" and judged.get("position") == "7" and judged.get("supports") == "true"
    assert judged.get("subject-rule") == "named"
    assert (judged.get("value-form"), judged.get("value-match")) == ("Purkyně Prize for Chemistry", "label")
    matches = [m.text for m in judged.findall("t:paragraph/t:match", ns)]
    assert matches == ["Marta Novotná", "Purkyně Prize for Chemistry"]
    assert "".join(judged.find("t:paragraph", ns).itertext()) == HOSTILE
    snaks = {s.get("property"): s.get("value") for s in statement.findall("t:reference/t:snak", ns)}
    assert snaks["P854"] == '"https://news.example.org/a"' and snaks["P813"] == "+2026-11-21T00:00:00Z/11"
    assert statement.findtext("t:reference/t:quickstatements", namespaces=ns).startswith(
        "Q990201\tP166\tQ990211\tS854\t")
    summary = tree.find("t:run/t:summary", ns)
    assert summary.get("supported") == "1" and summary.get("prompt-tokens") == "120"
    assert tree.find("t:item", ns).get("permalink") == \
        "https://www.wikidata.org/w/index.php?title=Q990201&oldid=2301234567"


def test_no_secret_reaches_the_trace():
    tree = traces.assemble(run_info(options=[("judge_url", "https://bot:hunter2@llm.example/v1?api_key=SECRET")]),
                           [(traces.item_element(CONTEXT), [traces.statement_element(CONTEXT, supported_check())])])
    text = etree.tostring(tree, encoding="unicode")
    assert "SECRET" not in text and "user:pw" not in text and "hunter2" not in text
    # A service's URL keeps its parameters' names, never their values: a key may go by any name.
    assert "https://search.example/api?q=…&amp;api_key=…" in text and "https://llm.example/v1?api_key=…" in text


def test_empty_titles_and_labels_still_make_a_valid_trace():
    check = supported_check()
    bare = StatementCheck(Statement("Q990201", "", "Q990201$B", "P166", "", Value("string", "", "")),
                          Outcome.NOT_FOUND, "", check.started, 0.0,
                          (Search("searxng", "q", (SearchResult("https://x.example/", ""),)),),
                          (DocumentCheck(Candidate("https://x.example/", "search"), None),))
    element = traces.checked_statement_element(CONTEXT, bare)
    assert element.get("outcome") == "not-found"
    traces.validate(traces.assemble(run_info(), [(traces.item_element(CONTEXT), [element])]))


def test_a_statement_that_cannot_be_recorded_becomes_an_error_not_a_broken_trace():
    check = supported_check()
    broken = StatementCheck(check.statement, check.outcome, check.reason, "not a time", 1.0)
    element = traces.checked_statement_element(CONTEXT, broken)
    assert element.get("outcome") == "error" and "could not record" in element.findtext(f"{{{traces.NS}}}reason")


def test_an_invalid_trace_raises_with_the_schemas_first_error(tmp_path):
    tree = build()
    statement = tree.find(f"{{{traces.NS}}}item/{{{traces.NS}}}statement")
    statement.set("outcome", "probably")
    with pytest.raises(TraceError, match="outcome.*probably"):
        traces.write(tree, tmp_path / "trace.xml")
    assert not (tmp_path / "trace.xml").exists()


def test_a_statement_twice_is_invalid():
    element = traces.statement_element(CONTEXT, supported_check())
    tree = traces.assemble(run_info(), [(traces.item_element(CONTEXT), [element, element])])
    with pytest.raises(TraceError, match="statementOnce|[Dd]uplicate"):
        traces.validate(tree)


def test_a_trace_round_trips_through_the_ledger_form_and_the_file(tmp_path):
    element = traces.from_string(traces.to_string(traces.statement_element(CONTEXT, supported_check())))
    tree = traces.assemble(run_info(), [(traces.item_element(CONTEXT), [element])])
    path = traces.write(tree, tmp_path / "trace.xml")
    again = traces.read(path)
    for before, after in zip(tree.iter(), again.iter()):
        assert (before.tag, dict(before.attrib)) == (after.tag, dict(after.attrib))
    paragraph = f"{{{traces.NS}}}paragraph"
    assert ["".join(p.itertext()) for p in again.iter(paragraph)] == [HOSTILE]


def test_reading_something_else_names_the_file(tmp_path):
    (tmp_path / "a.xml").write_text("<html/>")
    (tmp_path / "b.xml").write_text("<trace")
    with pytest.raises(InputError, match="a.xml.*not a refbot trace"):
        traces.read(tmp_path / "a.xml")
    with pytest.raises(InputError, match="b.xml.*not XML"):
        traces.read(tmp_path / "b.xml")


def test_control_characters_from_a_page_or_a_model_are_dropped():
    assert traces.clean("a\x00b\x1bc\u2028d") == "abc\u2028d"


def test_the_report_escapes_page_text_and_has_no_script():
    html = render(build())
    document = etree.HTML(html)
    assert not document.xpath("//script") and not document.xpath("//@onerror")
    assert "&lt;script&gt;document.title='pwned'&lt;/script&gt;" in html
    assert "Content-Security-Policy" in html and "default-src 'none'" in html
    assert [m.text for m in document.xpath("//div[@class='support']//mark")] == \
        ["Marta Novotná", "Purkyně Prize for Chemistry"]
    meta = " ".join(" ".join(document.xpath("//div[@class='support']//p[@class='meta']")[0].itertext()).split())
    assert "about the subject: named · value as written: “Purkyně Prize for Chemistry” (label)" in meta
    assert document.xpath("//a[@href='https://www.wikidata.org/wiki/Q990201#Q990201$AAAA-1']")
    assert document.xpath("//textarea[@class='qs']")[0].text.startswith("Q990201\tP166\tQ990211")
    assert not [href for href in document.xpath("//@href") if not href.startswith(("http", "#"))]


def test_only_http_links_become_links():
    check = supported_check()
    hostile = Candidate("javascript:alert(1)", "search")
    tree = traces.assemble(run_info(), [(traces.item_element(CONTEXT), [traces.statement_element(
        CONTEXT, StatementCheck(STATEMENT, Outcome.NOT_FOUND, "none", check.started, 1.0,
                                documents=(DocumentCheck(hostile, None),)))])])
    html = render(tree)
    assert "javascript:alert(1)" in html and 'href="javascript' not in html


def test_a_records_huge_literal_is_shown_cut_in_the_trace():
    """A record may hold a literal of megabytes; the trace (and so the ledger and the report) keeps its start."""
    from bot.corroboration.facts import Fact
    from bot.corroboration.identifiers import Identifier, IdentifierProperty
    from bot.corroboration.matching import Agreement, Candidate as FactCandidate, Comparison
    from bot.corroboration.records import Record
    from bot.corroboration.stage import Corroboration, Finding, RecordCheck

    prop = IdentifierProperty("P227", "GND ID", "https://d-nb.info/gnd/$1/about/lds.ttl", "https://d-nb.info/gnd/$1",
                              "Q36578", "Integrated Authority File")
    note = "a very long note " * 60_000
    fact = Fact("https://vocab.example/note", "note", note, note)
    check = RecordCheck(Identifier(prop, "1"), Record("https://d-nb.info/gnd/1/about/lds.ttl", format="turtle"),
                        Finding.SILENT, "none of the record's 1 fact(s) is recognised", facts=1, step="subject",
                        candidates=(FactCandidate(fact, "subject", 0.1, Comparison(Agreement.UNRELATED, "name")),))
    statement = replace(supported_check(), corroboration=Corroboration(Finding.SILENT, "silent", (check,)))
    tree = traces.assemble(run_info(), [(traces.item_element(CONTEXT),
                                         [traces.statement_element(CONTEXT, statement)])])
    (candidate,) = tree.iter(traces.tag("candidate"))
    assert len(candidate.get("object")) == len(candidate.get("object-text")) == traces.SHOWN_FACT
    assert candidate.get("object").startswith("a very long note") and candidate.get("object").endswith("…")
    assert len(traces.to_string(tree)) < 50_000


def test_the_statements_qualifiers_are_recorded_and_shown_with_it():
    from bot.datamodel import Qualifier

    qualified = replace(STATEMENT, qualifiers=(
        Qualifier("P585", "point in time", Value("time", "+2021-00-00T00:00:00Z/9", "2021")),
        Qualifier("P1027", "", Value("wikibase-item", "Q990299", "Purkyně Foundation"))))
    check = replace(supported_check(), statement=qualified)
    tree = traces.assemble(run_info(), [(traces.item_element(CONTEXT), [traces.statement_element(CONTEXT, check)])])
    traces.validate(tree)
    ns = {"t": traces.NS}
    statement = tree.find("t:item/t:statement", ns)
    assert [dict(q.attrib) for q in statement.findall("t:qualifier", ns)] == [
        {"property": "P585", "label": "point in time", "datatype": "time", "value": "+2021-00-00T00:00:00Z/9",
         "value-text": "2021"},
        {"property": "P1027", "label": "P1027", "datatype": "wikibase-item", "value": "Q990299",
         "value-text": "Purkyně Foundation"}]
    assert statement[1].tag == traces.tag("qualifier")  # right after the reason
    document = etree.HTML(render(tree))
    heading = " ".join("".join(document.xpath("//section[@class='statement']/h3")[0].itertext()).split())
    assert heading.startswith("award received: Purkyně Prize for Chemistry — point in time: 2021; "
                              "P1027: Purkyně Foundation")
    row = " ".join("".join(document.xpath("//tr[@class='statement-row']/td")[2].itertext()).split())
    assert row == "Purkyně Prize for Chemistry — point in time: 2021; P1027: Purkyně Foundation"
    # A statement without qualifiers is written as before.
    assert build().find("t:item/t:statement/t:qualifier", ns) is None


def test_the_trace_records_what_each_unit_is_and_the_report_and_queue_name_it():
    """A unit read from a table is recorded as such (kind="table"), shown as "Table, unit 7" in the report and as
    "From the page's table" on the curator's card; prose stays "Paragraph 7"."""
    from bot.review.queue import cards

    check = supported_check()
    document = check.documents[0]
    judged = document.judged[0]
    row = replace(judged.ranked.paragraph, kind="table")
    in_table = replace(check, documents=(replace(document, judged=(
        replace(judged, ranked=replace(judged.ranked, paragraph=row)),)),))
    for statement_check, kind, shown in ((check, "paragraph", "Paragraph 7"), (in_table, "table", "Table, unit 7")):
        tree = traces.assemble(run_info(), [(traces.item_element(CONTEXT),
                                             [traces.statement_element(CONTEXT, statement_check)])])
        traces.validate(tree)
        assert tree.find("t:item/t:statement/t:document/t:judgement", {"t": traces.NS}).get("kind") == kind
        support = etree.HTML(render(tree)).xpath("//div[@class='support']/p[@class='meta']")[0]
        assert " ".join("".join(support.itertext()).split()).startswith(f"{shown} of Prize for Novotná")
        card = next(iter(cards(tree)))
        assert card.block == ("" if kind == "paragraph" else "table")


def test_the_words_the_model_named_for_an_item_are_recorded_and_shown_to_the_curator():
    """Support through the checked path (``bot.judge.naming``): the trace keeps the model's words and how they were
    checked, and the curator's card shows both in one line; a value the page writes itself shows no such line."""
    from bot.judge.naming import NAMED as NAMED_BY_MODEL
    from bot.review.queue import cards

    check = supported_check()
    document = check.documents[0]
    judged = document.judged[0]
    how = f"{NAMED_BY_MODEL}: embedding similarity 0.91 to “Purkyně Prize for Chemistry”"
    named = replace(check, documents=(replace(document, judged=(
        replace(judged, judgement=replace(judged.judgement, written=how, written_form="Purkyně Prize")),)),))
    tree = traces.assemble(run_info(), [(traces.item_element(CONTEXT), [traces.statement_element(CONTEXT, named)])])
    traces.validate(tree)
    recorded = tree.find("t:item/t:statement/t:document/t:judgement", {"t": traces.NS})
    assert (recorded.get("written"), recorded.get("written-form")) == (how, "Purkyně Prize")
    assert next(iter(cards(tree))).named == \
        "“Purkyně Prize”, checked: embedding similarity 0.91 to “Purkyně Prize for Chemistry”"
    assert next(iter(cards(build()))).named == ""


def test_a_paragraph_read_across_alphabets_is_marked_in_the_report_and_on_the_card():
    """Support where refbot did not find the value (a Russian paragraph, an English label: ``ACROSS_ALPHABETS``):
    the report says the value was not found but read by the model, and the card asks the curator to check it."""
    from bot.judge.engine import ACROSS_ALPHABETS
    from bot.review.queue import cards

    check = supported_check()
    document = check.documents[0]
    judged = document.judged[0]
    across = replace(check, documents=(replace(document, judged=(
        replace(judged, judgement=replace(judged.judgement, written=ACROSS_ALPHABETS, written_form="")),)),))
    tree = traces.assemble(run_info(), [(traces.item_element(CONTEXT), [traces.statement_element(CONTEXT, across)])])
    traces.validate(tree)
    shown = " ".join("".join(etree.HTML(render(tree)).xpath("//span[@class='value-written']")[0].itertext()).split())
    assert shown == f"value not found in the text by refbot, read by the model ({ACROSS_ALPHABETS})"
    assert next(iter(cards(tree))).unfound and not next(iter(cards(build()))).unfound


def test_the_schema_knows_every_kind_of_unit_a_page_is_read_into():
    from bot.assets import asset_path
    from bot.documents.blocks import KINDS

    schema = etree.parse(str(asset_path("xslt", "trace.xsd")))
    xs = {"xs": "http://www.w3.org/2001/XMLSchema"}
    kinds = schema.xpath("//xs:simpleType[@name='blockKind']//xs:enumeration/@value", namespaces=xs)
    assert tuple(kinds) == KINDS
