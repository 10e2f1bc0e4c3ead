"""Whose fault: a damaged page is the page's outcome; refbot's own failure is named and can stop a run."""

from __future__ import annotations

import json

import pytest

from bot.checking.batch import Breaker
from bot.checking.records import Candidate, DocumentCheck, Outcome, StatementCheck
from bot.datamodel import Paragraph, Statement, Value, parse_entity_id
from bot.documents.fetching import Fetched, Outcome as FetchOutcome
from bot.documents.paragraphs import Document, Unreadable, extract
from bot.documents.retrieval import Retrieved
from bot.errors import InternalError
from bot.faults import blames_the_page, fault_of

AWARD = Statement("Q990201", "Marta Novotná", "Q990201$B", "P166", "award received",
                  Value("wikibase-item", "Q990212", "Brno Innovation Award"))
PAGE = ("<html><body><article><p>Marta Novotná received the Brno Innovation Award in 2019 for catalysts that turn "
        "plastic waste back into its building blocks, the city council said.</p></article></body></html>").encode()


def raised(action):
    try:
        action()
    except Exception as error:
        return error
    raise AssertionError("nothing was raised")


def test_a_parser_failing_on_bad_input_blames_the_page():
    assert blames_the_page(raised(lambda: json.loads("{")))


def test_refbots_own_code_and_a_broken_install_never_blame_the_page():
    assert not blames_the_page(raised(lambda: parse_entity_id("X1", "item"))), "a ValueError from refbot's code"
    assert not blames_the_page(raised(lambda: __import__("no_such_module_refbot_needs")))
    assert not blames_the_page(raised(lambda: json.no_such_function)), "a module without what refbot calls"


def test_a_library_failing_on_a_page_blames_it_only_while_the_library_reads_its_sample():
    inside_the_library = raised(lambda: json.loads(b"{}", cls=1))  # a TypeError raised in json's own code
    assert blames_the_page(inside_the_library, lambda: True)
    assert not blames_the_page(inside_the_library, lambda: False)


@pytest.mark.parametrize("damage, raised_by_pdfminer", [
    ((b"[0 0 1200 842]", b"[0 0 wide 842]"), "TypeError"),  # a word where the page size should be
    ((b"/Kids [3 0 R]", b"/Kids [page ]"), "AttributeError"),  # a word where the page's reference should be
    ((b"/Kids [3 0 R]", b"/Kids [3 0 Q]"), "PDFObjectNotFound")])
def test_a_damaged_pdf_is_unreadable_whatever_pdfminer_raises(damage, raised_by_pdfminer):
    """pdfminer raises TypeError and AttributeError of its own on damaged PDFs: still the page's outcome."""
    from bot.documents.samples import PDF_TEXT, pdf

    good = pdf(PDF_TEXT)
    with pytest.raises(Unreadable) as unreadable:
        extract(good.replace(*damage), "application/pdf", "https://example.org/a.pdf")
    assert unreadable.value.signature.startswith(f"{raised_by_pdfminer} in pdfminer/")


def test_a_fault_names_refbots_component_and_place(monkeypatch):
    """As after `import trafilatura` failed half-way: the module is there without its functions."""
    import trafilatura

    monkeypatch.delattr(trafilatura, "extract")
    error = raised(lambda: extract(PAGE, "text/html", "https://example.org/a"))
    assert isinstance(error, AttributeError), "not turned into the page's Unreadable"
    fault = fault_of(error)
    assert fault.component == "paragraph extraction"
    assert fault.where.startswith("bot/documents/paragraphs.py:") and fault.where.endswith("in html_blocks")
    assert str(fault).startswith("refbot's paragraph extraction failed: AttributeError: ")


def test_a_damaged_pdf_is_unreadable_not_a_fault():
    with pytest.raises(Unreadable, match="PSEOF|PDFSyntaxError"):
        extract(b"%PDF-1.4\n1 0 obj\n<< /Type /Catalog", "application/pdf", "https://example.org/a.pdf")


def checked(fault_error: BaseException | None = None, readable: bool = False, parser_failure: str = "",
            host: str = "a.example", guid: str = "Q990201$B") -> StatementCheck:
    url = f"https://{host}/"
    documents = ()
    if readable or parser_failure:
        paragraph = Paragraph("Marta Novotná received the Brno Innovation Award in 2019.", url)
        page = Document(url, "html", paragraph.text, (paragraph,)) if readable else None
        fetched = Fetched(url, FetchOutcome.UNSUPPORTED if parser_failure else FetchOutcome.OK,
                          reason="cannot read the text/html body: TypeError: boom" if parser_failure else "",
                          parser_failure=parser_failure)
        documents = (DocumentCheck(Candidate(url, "search"), Retrieved(url, fetched, page)),)
    fault = fault_of(fault_error) if fault_error is not None else None
    statement = Statement("Q990201", "Marta Novotná", guid, "P166", "award received", AWARD.value)
    return StatementCheck(statement, Outcome.ERROR if fault else Outcome.NOT_FOUND, str(fault or "none"), "", 0.0,
                          documents=documents, fault=fault)


def broken_extraction(monkeypatch) -> BaseException:
    import trafilatura

    monkeypatch.delattr(trafilatura, "extract")
    return raised(lambda: extract(PAGE, "text/html", "https://example.org/a"))


def test_the_breaker_stops_a_run_that_only_records_the_same_fault(monkeypatch):
    error = broken_extraction(monkeypatch)
    breaker = Breaker(3)
    breaker.observe(checked(error, guid="Q990201$1"))
    breaker.observe(checked(guid="Q990201$2"))  # a statement without a readable document proves nothing
    breaker.observe(checked(error, guid="Q990201$3"))
    assert breaker.tripped is None
    breaker.observe(checked(error, guid="Q990201$4"))
    stop = breaker.tripped
    assert isinstance(stop, InternalError) and stop.component == "paragraph extraction"
    assert "3 statement(s) failed the same way" in str(stop) and "refbot doctor" in str(stop)
    breaker.observe(checked(error, guid="Q990201$5"))  # one that was in progress when it tripped
    assert breaker.tripped is stop
    assert breaker.suspects == ["Q990201$1", "Q990201$3", "Q990201$4", "Q990201$5"], "to check again on resume"


def test_with_fewer_statements_than_the_limit_all_of_them_must_fail(monkeypatch):
    error = broken_extraction(monkeypatch)
    breaker = Breaker(3, statements=2)
    breaker.observe(checked(error))
    assert breaker.tripped is None
    breaker.observe(checked(error))
    assert breaker.tripped is not None


def test_a_fault_among_working_statements_stays_that_statements_error(monkeypatch):
    error = broken_extraction(monkeypatch)
    breaker = Breaker(2)
    breaker.observe(checked(readable=True))
    for _ in range(5):
        breaker.observe(checked(error))
    assert breaker.tripped is None and breaker.suspects == []


def test_the_breaker_stops_when_pages_of_three_sites_fail_alike_in_their_parser():
    breaker = Breaker(3)
    failure = "TypeError in trafilatura/core.py:120"
    breaker.observe(checked(parser_failure=failure, host="a.example"))
    breaker.observe(checked(parser_failure=failure, host="a.example"))  # one site's pages may all be odd
    breaker.observe(checked(parser_failure="PSEOF in pdfminer/psparser.py:256", host="b.example"))
    assert breaker.tripped is None
    breaker.observe(checked(parser_failure=failure, host="b.example"))
    breaker.observe(checked(parser_failure=failure, host="c.example"))
    assert breaker.tripped is not None and "pages of 3 sites all failed the same way" in str(breaker.tripped)
    assert failure in str(breaker.tripped)


def test_damaged_pages_among_readable_ones_never_stop_a_run():
    breaker = Breaker(3)
    breaker.observe(checked(readable=True, host="ok.example"))
    for host in ("a.example", "b.example", "c.example", "d.example"):
        breaker.observe(checked(parser_failure="PSEOF in pdfminer/psparser.py:256", host=host))
    assert breaker.tripped is None
