"""What the trace and the report say about a statement a page contradicts and one the judge left undecided: each
judgement's value as written, its calibrated support and the other value a page gives; the trace stays valid
against xslt/trace.xsd, and the report lists page contradictions first, beside the authority records'."""

from __future__ import annotations

from lxml import etree

from bot.output import trace as traces
from bot.checking.items import ItemContext
from bot.checking.records import Candidate, DocumentCheck, Judged, Outcome, StatementCheck
from bot.datamodel import Contradiction, Judgement, Paragraph, Statement, Value, Verdict
from bot.documents.fetching import Fetched, Outcome as FetchOutcome
from bot.documents.paragraphs import Document
from bot.documents.retrieval import Retrieved
from bot.checking.ranking import Ranked
from bot.output.report import render

NS = {"t": traces.NS}
BORN = "Bořivoj Halaška was born on 3 March 1921 in Prostějov, the son of a stonemason. A hundred years later …"
SENTENCE = "Bořivoj Halaška was born on 3 March 1921 in Prostějov, the son of a stonemason."
PAGE = "https://chronicle.example/2021/03/halaska-sculptor-centenary.html"
DATE_OF_BIRTH = Statement("Q990208", "Bořivoj Halaška", "Q990208$S", "P569", "date of birth",
                          Value("time", "+1912-03-03T00:00:00Z/11", "3 March 1912"))
COUNTRY = Statement("Q990208", "Bořivoj Halaška", "Q990208$C", "P27", "country of citizenship",
                    Value("wikibase-item", "Q145", "United Kingdom", ("UK",)))
CONTEXT = ItemContext("Q990208", "Bořivoj Halaška", "https://www.wikidata.org", 2301234823)
STARTED = "2026-11-25T10:00:00Z"


def judgement(verdict: Verdict, support: float, **fields) -> Judgement:
    return Judgement(verdict, support, "No", "", "qwen", "refbot", 120, 1, 0.4, **fields)


def document(url: str, text: str, *answers: Judgement) -> DocumentCheck:
    paragraph = Paragraph(text, url, 0, 0, len(text))
    fetched = Fetched(url, FetchOutcome.OK, final_url=url, status=200, content_type="text/html",
                      retrieved=STARTED)
    retrieved = Retrieved(url, fetched, Document(url, "html", text, (paragraph,), title="Halaška at 100",
                                                 language="en"))
    judged = tuple(Judged(Ranked(paragraph, 0.8, 1.0, 0.0, matched=("Bořivoj Halaška",), subject_rule="named"),
                          answer) for answer in answers)
    return DocumentCheck(Candidate(url, "search", rank=1), retrieved, judged, 4)


def contradicted_check() -> StatementCheck:
    said = judgement(Verdict.CONTRADICTS, 0.0, contradiction=Contradiction("3 March 1921", SENTENCE, 0.93))
    return StatementCheck(DATE_OF_BIRTH, Outcome.CONTRADICTED,
                          f'{PAGE} gives another value: "3 March 1921" ("{SENTENCE}")', STARTED, 2.0,
                          documents=(document(PAGE, BORN, said),))


def undecided_check() -> StatementCheck:
    written = "Halaška, who lived in the UK from 1948, carved the fountains of Olomouc."
    answers = (judgement(Verdict.INDICATES, 0.71, written="alias", written_form="UK", calibrated=0.48),)
    return StatementCheck(COUNTRY, Outcome.UNDECIDED, "undecided: 1 of 1 paragraph(s) …", STARTED, 1.0,
                          documents=(document("https://museum.example/halaska", written, *answers),))


def text(node) -> str:
    """A node's text as a reader sees it, whitespace collapsed."""
    return " ".join("".join(node.itertext()).split())


def trace(*checks: StatementCheck):
    info = traces.RunInfo(mode="check", started=STARTED, finished="2026-11-25T10:00:05Z", duration_s=5.0,
                          complete=True, judge_backend="openai", model="qwen", template="refbot",
                          prompt_template="[system]\n…", threshold=0.5, strategy="ranked", top=3,
                          embeddings="all-minilm-l6-v2")
    return traces.assemble(info, [(traces.item_element(CONTEXT),
                                   [traces.checked_statement_element(CONTEXT, check) for check in checks])])


def test_a_page_contradiction_is_recorded_with_the_other_value_its_sentence_and_support(tmp_path):
    tree = trace(contradicted_check())
    path = traces.write(tree, tmp_path / "trace.xml")  # validated against the schema before it is written
    statement = traces.read(path).find("t:item/t:statement", NS)
    assert statement.get("outcome") == "contradicted" and statement.find("t:reference", NS) is None
    judged = statement.find("t:document/t:judgement", NS)
    assert (judged.get("verdict"), judged.get("supports")) == ("contradicts", "false")
    assert (judged.get("written"), judged.get("written-form"), judged.get("calibrated")) == ("", "", None)
    contradiction = judged.find("t:contradiction", NS)
    assert (contradiction.get("form"), contradiction.get("support"), contradiction.text) == \
        ("3 March 1921", "0.93", SENTENCE)
    assert tree.find("t:run/t:summary", NS).get("contradicted") == "1"


def test_an_undecided_statement_is_counted_and_its_judgement_keeps_how_the_value_is_written(tmp_path):
    tree = trace(undecided_check())
    traces.validate(tree)
    statement = tree.find("t:item/t:statement", NS)
    assert statement.get("outcome") == "undecided"
    judged = statement.find("t:document/t:judgement", NS)
    assert (judged.get("verdict"), judged.get("written"), judged.get("written-form"), judged.get("calibrated")) == \
        ("b", "alias", "UK", "0.48")
    assert judged.find("t:contradiction", NS) is None
    summary = tree.find("t:run/t:summary", NS)
    assert (summary.get("undecided"), summary.get("not-found"), summary.get("statements")) == ("1", "0", "1")


def test_a_trace_written_before_these_fields_still_validates():
    tree = trace(undecided_check())
    for judged in tree.iter(f"{{{traces.NS}}}judgement"):
        for name in ("written", "written-form", "calibrated"):
            judged.attrib.pop(name, None)
    tree.find("t:run/t:summary", NS).attrib.pop("undecided")
    traces.validate(tree)


def test_a_contradiction_without_the_value_it_gives_is_invalid():
    tree = trace(contradicted_check())
    contradiction = tree.find(".//t:contradiction", NS)
    del contradiction.attrib["form"]
    assert not traces.schema().validate(tree)


def test_the_report_lists_the_page_contradiction_first_with_the_value_the_sentence_and_the_page():
    supported = StatementCheck(Statement("Q990208", "Bořivoj Halaška", "Q990208$A", "P166", "award received",
                                         Value("wikibase-item", "Q990211", "Purkyně Prize")),
                               Outcome.NOT_FOUND, "no supporting paragraph", STARTED, 1.0)
    page = etree.HTML(render(trace(supported, undecided_check(), contradicted_check())))
    box = page.xpath("//section[@class='contradictions']")
    assert box, "the contradictions come first"
    listed = text(box[0])
    assert "Bořivoj Halaška (Q990208), date of birth: 3 March 1912" in listed
    assert f"{PAGE} gives 3 March 1921: “{SENTENCE}”" in listed
    assert box[0].xpath(f".//a[@href='{PAGE}']")
    rows = page.xpath("//table[@class='statements']//tr[@class='statement-row']")
    assert "contradicted" in "".join(rows[0].itertext())
    section = page.xpath("//section[@data-guid='Q990208$S']")[0]
    block = text(section.xpath(".//div[@class='contradiction']")[0])
    assert "Another value: Halaška at 100 gives 3 March 1921 where the statement says 3 March 1912" in block
    assert SENTENCE in block and "value not written" in block
    # The per-paragraph listing names the verdict in words.
    listing = text(section.xpath(".//div[@class='judgement']")[0])
    assert "verdict contradicts" in listing and "gives 3 March 1921 (support 0.93)" in listing


def test_the_report_counts_undecided_statements_and_says_they_were_neither_proposed_nor_called_unsupported():
    page = etree.HTML(render(trace(undecided_check())))
    counts = text(page.xpath("//p[@class='counts']")[0])
    assert "1 undecided" in counts
    assert not page.xpath("//section[@class='contradictions']")
    section = page.xpath("//section[@data-guid='Q990208$C']")[0]
    note = text(section.xpath(".//p[@class='undecided-note']")[0])
    assert "Nothing is proposed, and the statement is not called unsupported" in note
    listing = text(section.xpath(".//div[@class='judgement']")[0])
    assert "verdict undecided" in listing and "support 0.71 (calibrated 0.48)" in listing
    assert "value as written: “UK” (alias)" in listing
