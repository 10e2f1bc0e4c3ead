"""Bytes → paragraphs (pure): HTML without boilerplate, PDF, plain text, encodings, offsets, long paragraphs."""

from __future__ import annotations

import pytest

from bot.documents.paragraphs import ParagraphRules, bounded_html, extract, html_blocks
from bot.documents.sentences import sentence_spans, split_long
from documents_world import DOCS, NEWS, NEWS_PARAGRAPHS, PDF_PARAGRAPHS, czech_page, make_pdf, prose

CZECH_FIRST = ("Prezident Václav Havel v pátek v Oviedu převzal Cenu knížete asturského za komunikaci a humanitní "
               "vědy.")


def offsets_hold(document) -> bool:
    return all(document.text[p.start:p.end] == p.text for p in document.paragraphs)


def test_a_news_page_loses_its_navigation_footer_and_repeats():
    document = extract(NEWS, "text/html", "http://127.0.0.1/news")
    assert prose(document.paragraphs) == NEWS_PARAGRAPHS
    assert [p.position for p in document.paragraphs if p.kind == "paragraph"] == [0, 1, 2, 3]
    assert document.title == "Havel honoured with Asturias prize" and document.language == "en"
    assert document.extractor == "trafilatura" and offsets_hold(document)
    for boilerplate in ("cookies", "All rights reserved", "Related stories", "Senate debates", "Home"):
        assert boilerplate not in document.text
    assert document.text.count("The jury said the award recognised") == 1, "the repeated paragraph is dropped"
    # Besides the prose: a short line read as such, the byline under the heading, the page's whole title.
    assert [(p.kind, p.text) for p in document.paragraphs if p.kind != "paragraph"] == [
        ("lines", "Short line."), ("header", "Havel honoured with Asturias prize. By Jana Novotná, 9 June 1997."),
        ("title", "Havel honoured with Asturias prize | The Prague Courier")]


def test_the_minimum_length_is_configurable():
    published = extract(NEWS, "text/html", "u", ParagraphRules(min_chars=200))
    assert prose(published.paragraphs) == [NEWS_PARAGRAPHS[0], NEWS_PARAGRAPHS[1]]
    everything = extract(NEWS, "text/html", "u", ParagraphRules(min_chars=1))
    assert "Short line." in prose(everything.paragraphs) and offsets_hold(everything)


def test_when_trafilatura_finds_nothing_every_p_is_taken():
    sentence = "The ministry announced on Tuesday that the award had been conferred on the singer in a short ceremony."
    page = f"<html><body><aside><p>{sentence} {sentence}</p><p>Too short.</p></aside></body></html>".encode()
    assert html_blocks(page.decode())[2] == "paragraphs", "a page whose only text sits in an <aside>"
    document = extract(page, "text/html", "u")
    assert document.extractor == "paragraphs" and prose(document.paragraphs) == [f"{sentence} {sentence}"]


@pytest.mark.parametrize("encoding, in_page", [("iso-8859-2", True), ("windows-1250", True), ("windows-1250", False),
                                               ("utf-8", False)])
def test_encodings_declared_or_not_are_read(encoding, in_page):
    document = extract(czech_page(encoding, in_page), "text/html", "u")
    assert document.paragraphs[0].text.startswith(CZECH_FIRST), document.encoding
    assert document.language == "cs"


@pytest.mark.parametrize("declared", ["hex", "base64", "rot13"])
def test_a_bytes_codec_declared_as_charset_is_ignored_not_raised(declared):
    """Python knows these names, but they are not text encodings: the declaration is ignored like a wrong one."""
    page = NEWS.replace(b"<head>", f'<head><meta charset="{declared}">'.encode(), 1)
    for document in (extract(NEWS, "text/html", "https://example.org/a", charset=declared),
                     extract(page, "text/html", "https://example.org/a")):
        assert prose(document.paragraphs) == NEWS_PARAGRAPHS


def test_the_http_charset_wins_and_a_wrong_page_declaration_is_ignored():
    page = czech_page("iso-8859-2", False).replace(b"<head>", b'<head><meta charset="utf-8">')
    assert extract(page, "text/html", "u", charset="iso-8859-2").paragraphs[0].text.startswith(CZECH_FIRST)
    page = czech_page("windows-1250", False).replace(b"<head>", b'<head><meta charset="utf-8">')
    assert extract(page, "text/html", "u").paragraphs[0].text.startswith(CZECH_FIRST), "undecodable utf-8 ignored"


def test_a_pdf_is_read_with_its_title():
    document = extract(make_pdf(), "application/pdf", "http://127.0.0.1/decorations.pdf")
    assert [p.text for p in document.paragraphs] == PDF_PARAGRAPHS
    assert document.title == "Decorations conferred in 1990" and document.kind == "pdf" and offsets_hold(document)


def test_a_broken_pdf_raises_for_the_caller_to_record():
    with pytest.raises(Exception):
        extract(b"%PDF-1.7\nthis is not really a pdf", "application/pdf", "u")


def test_plain_text_is_split_at_blank_lines_and_lines_joined():
    document = extract((DOCS / "notice.txt").read_bytes(), "text/plain", "u")
    assert [p.text for p in document.paragraphs] == [
        "The Jury of the Prince of Asturias Award for Communication and Humanities, meeting in Oviedo, has resolved "
        "to grant the 1997 Award to Václav Havel, writer and President of the Czech Republic, for his exemplary "
        "defence of human rights and of freedom of expression.",
        "The Award, which is one of eight granted each year by the Foundation, consists of a sculpture by Joan Miró, "
        "a diploma, an insignia and a cash prize. It will be presented in the autumn at the Campoamor Theatre in "
        "Oviedo."]
    assert offsets_hold(document)


def test_whitespace_and_invisible_characters_are_normalised():
    page = ("<html><body><article><p>Václav\u00a0Havel   received\nthe award in Oviedo\u00ad, where the jury "
            "had met for two days to decide among thirty candidates from\t\tfourteen countries.</p></article>"
            "</body></html>").encode()
    text = extract(page, "text/html", "u").paragraphs[0].text
    assert text.startswith("Václav Havel received the award in Oviedo, where") and "  " not in text


def test_long_paragraphs_are_split_between_sentences():
    sentences = ["Václav Havel was born in Prague in 1936 into a wealthy family.",
                 "Mr. Havel studied at the Academy of Performing Arts after his military service.",
                 "His plays were banned after 1968, and V. Havel worked in a brewery.",
                 "In 1989 he became president!", "He served until 2003."]
    paragraph = " ".join(sentences * 6)
    page = f"<html><body><article><p>{paragraph}</p></article></body></html>".encode()
    document = extract(page, "text/html", "u", ParagraphRules(min_chars=100, max_chars=300))
    pieces = [p.text for p in document.paragraphs]
    assert len(pieces) > 1 and all(len(piece) <= 300 for piece in pieces) and offsets_hold(document)
    assert " ".join(pieces) == paragraph
    assert all(piece.endswith((".", "!")) for piece in pieces)
    assert all(any(piece.startswith(s) for s in sentences) for piece in pieces)


def record(number: int) -> str:
    return (f"Record {number}: the committee's archive lists the laureates of that year with the citation read "
            f"at the ceremony and the notes of its members on the nominations.")


def records_page(count: int) -> bytes:
    return ("<html><head><title>Laureates</title></head><body><article><h1>Laureates</h1>"
            + "".join(f"<p>{record(number)}</p>" for number in range(count)) + "</article></body></html>").encode()


def test_a_page_with_more_paragraphs_than_the_cap_is_read_up_to_the_cap_and_says_so():
    whole = extract(records_page(40), "text/html", "u")
    assert len(whole.paragraphs) == 40 and whole.cut == "", "under the cap, a page is read whole"
    document = extract(records_page(40), "text/html", "u", ParagraphRules(max_paragraphs=15))
    assert [p.text for p in document.paragraphs] == [record(number) for number in range(15)]
    assert document.cut == "only the first 15 paragraphs were read" and offsets_hold(document)
    assert record(15) not in document.text


def test_a_page_with_more_text_than_the_budget_is_cut_before_it_is_extracted():
    page = records_page(200).decode()
    bounded, cut = bounded_html(page, 5_000, 2_000)
    assert cut == "only the first 5,000 characters of the page's text were read"
    assert record(0) in bounded and record(199) not in bounded and len(bounded) < len(page) / 5
    document = extract(page.encode(), "text/html", "u", ParagraphRules(max_text=5_000))
    texts = [p.text for p in document.paragraphs]
    assert 25 <= len(texts) <= 35 and texts == [record(number) for number in range(len(texts))], "whole paragraphs"
    assert document.cut == cut and document.title == "Laureates"


def test_a_page_within_the_budget_is_handed_on_as_it_is():
    page = NEWS.decode()
    assert bounded_html(page, len(page)) == (page, ""), "not even parsed"
    markup = page.replace("<p>", "<p class='" + "x" * 2_000 + "'>")
    assert bounded_html(markup, len(page)) == (markup, ""), "long markup, but not that much text"
    assert prose(extract(markup.encode(), "text/html", "u", ParagraphRules(max_text=len(page))).paragraphs
                 ) == NEWS_PARAGRAPHS


def test_one_huge_text_is_cut_at_a_sentence_end():
    sentence = "Marie Curie received the Nobel Prize in Physics in 1903 together with Pierre Curie and Becquerel. "
    page = f"<html><body><pre>{sentence * 1_000}</pre></body></html>"
    bounded, cut = bounded_html(page, 1_000, 500)
    assert cut and (sentence * 10).strip() in bounded and sentence * 11 not in bounded
    text = extract((sentence * 1_000).encode(), "text/plain", "u", ParagraphRules(max_text=1_000)).text
    assert text == (sentence * 10).strip()


def test_sentence_spans_respect_initials_and_abbreviations():
    text = "Mr. Havel met Dr. Ruml. V. Havel flew to the U.S. Senate at 5 p.m. on Monday. The end."
    expected = ["Mr. Havel met Dr. Ruml.", "V. Havel flew to the U.S. Senate at 5 p.m. on Monday.", "The end."]
    assert [text[a:b] for a, b in sentence_spans(text)] == expected
    # A biographical dictionary's abbreviations stay inside their sentence; run-together sentences are split.
    text = "GATTY, JULIANA HORATIA, author; b. 3 Aug. 1841 at Ecclesfield; d. 13 May 1885 at Bath.The end."
    assert [text[a:b] for a, b in sentence_spans(text)] == [text[:-8], "The end."]
    assert split_long("x" * 250, 100) == [(0, 100), (100, 200), (200, 250)]


def test_page_titles_lose_the_site_name():
    from bot.documents.paragraphs import page_title

    assert page_title("<title>Havel honoured with a prize | Courier</title>") == "Havel honoured with a prize"
    assert page_title("<title>Daily News – Havel wins the prize in Oviedo</title>") == "Havel wins the prize in Oviedo"
    assert page_title("<title>Site - Short</title><h1>Short</h1>") == "Short", "the part that is the <h1>"
    assert page_title('<meta property="og:title" content="Havel &amp; Asturias"><title>x</title>') == \
        "Havel & Asturias"
    assert page_title("<title>Havel: A Life in Letters</title>") == "Havel: A Life in Letters"
    assert page_title("<p>no title</p>") == ""


HIDDEN = """<html lang="en"><head><title>Eva Hostilová – Town Chronicle</title></head><body>
<main><article><h1>Eva Hostilová</h1>
<p>Eva Hostilová is a Czech painter whose landscapes of the Bohemian highlands have been shown in Prague and Vienna.</p>
<p style="color: grey; display: none">Eva Hostilová was born on 3 May 1961 in Brno, says a note left in the page.</p>
<div style="visibility:hidden !important"><p>Eva Hostilová married Karel Novák in 1985, says a block.</p></div>
<p class="lead visually-hidden">Eva Hostilová received the Brno Prize in 1999, says a line for screen readers.</p>
<p class="sr-only">Eva Hostilová was a member of the Academy of Arts, says another line for screen readers.</p>
<template><p>Eva Hostilová died in Vienna in 2020, says a template no script has used.</p></template>
<p hidden>Eva Hostilová taught at Charles University in Prague, says an element marked hidden.</p>
<p aria-hidden="true">Eva Hostilová was a citizen of Austria, says an element hidden from assistive technology.</p>
<p>She studied at the Academy of Fine Arts<span class="d-none"> in Bratislava</span> in Prague and taught drawing
in Olomouc for two decades, <span class="hidden-xs">as the town's records show</span>.</p>
</article></main></body></html>"""


@pytest.mark.parametrize("extractor", ["trafilatura", "paragraphs"])
def test_text_hidden_from_readers_is_never_read(extractor):
    page = HIDDEN
    if extractor == "paragraphs":  # a page trafilatura finds no prose in is read <p> by <p>
        page = HIDDEN.replace("<main><article>", "<div>").replace("</article></main>", "</div>")
    document = extract(page.encode("utf-8"), "text/html; charset=utf-8", "http://127.0.0.1/eva")
    for hidden in ("born on 3 May 1961", "Karel Novák", "Brno Prize", "Academy of Arts", "died in Vienna",
                   "Charles University", "Austria", "Bratislava"):
        assert hidden not in document.text, hidden
    assert "whose landscapes of the Bohemian highlands" in document.text
    # the text after a hidden element stays; a class that hides at some screen sizes only hides nothing
    assert "She studied at the Academy of Fine Arts in Prague" in document.text
    assert "as the town's records show" in document.text
    assert offsets_hold(document)
