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
    assert not blames_the_page(raised(lambda: json.loads(b"{}", cls=1)))  # a TypeError inside the library


def test_a_fault_names_refbots_component_and_place(monkeypatch):
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


def checked(fault_error: BaseException | None = None, readable: bool = False) -> StatementCheck:
    documents = ()
    if readable:
        paragraph = Paragraph("Marta Novotná received the Brno Innovation Award in 2019.", "https://a.example/")
        page = Document("https://a.example/", "html", paragraph.text, (paragraph,))
        documents = (DocumentCheck(Candidate("https://a.example/", "search"),
                                   Retrieved("https://a.example/", Fetched("https://a.example/", FetchOutcome.OK),
                                             page)),)
    fault = fault_of(fault_error) if fault_error is not None else None
    return StatementCheck(AWARD, Outcome.ERROR if fault else Outcome.NOT_FOUND, str(fault or "none"), "", 0.0,
                          documents=documents, fault=fault)


def broken_extraction(monkeypatch) -> BaseException:
    import trafilatura

    monkeypatch.delattr(trafilatura, "extract")
    return raised(lambda: extract(PAGE, "text/html", "https://example.org/a"))


def test_the_breaker_stops_a_run_that_only_records_the_same_fault(monkeypatch):
    error = broken_extraction(monkeypatch)
    breaker = Breaker(3)
    breaker.observe(checked(error))
    breaker.observe(checked())  # a statement without a readable document proves nothing
    breaker.observe(checked(error))
    assert breaker.tripped is None and breaker.error() is None
    breaker.observe(checked(error))
    stop = breaker.error()
    assert isinstance(stop, InternalError) and stop.component == "paragraph extraction"
    assert "3 statement(s) failed the same way" in str(stop) and "refbot doctor" in str(stop)


def test_a_fault_among_working_statements_stays_that_statements_error(monkeypatch):
    error = broken_extraction(monkeypatch)
    breaker = Breaker(2)
    breaker.observe(checked(readable=True))
    for _ in range(5):
        breaker.observe(checked(error))
    assert breaker.tripped is None
