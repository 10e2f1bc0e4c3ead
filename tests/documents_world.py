"""Fixtures for the document stages, written for the tests: pages, a PDF made with fpdf2, encodings."""

from __future__ import annotations

from pathlib import Path

from bot.options import Options, load_options

DOCS = Path(__file__).resolve().parent / "data" / "documents"
HTML = {"Content-Type": "text/html; charset=utf-8"}
NEWS = (DOCS / "prize-news.html").read_bytes()
NEWS_PARAGRAPHS = [
    "OVIEDO — Václav Havel, the playwright who became president of the Czech Republic, has been awarded the Prince "
    "of Asturias Award for Communication and Humanities, the jury announced in Oviedo on Friday.",
    "The jury said the award recognised a lifetime spent defending freedom of expression, from the essays he wrote "
    "under the communist regime to the speeches he has given since the Velvet Revolution of 1989.",
    "“He has shown that words can be stronger than tanks,” the president of the jury told reporters after the "
    "deliberations, which lasted two days.",
    "Havel is expected to travel to Spain in the autumn to receive the prize, a sculpture by Joan Miró and a sum "
    "of five million pesetas, at a ceremony presided over by the Prince of Asturias.",
]


def prose(paragraphs) -> list[str]:
    """The texts of the prose paragraphs among a document's units (not its tables, lines, header, title)."""
    return [paragraph.text for paragraph in paragraphs if paragraph.kind == "paragraph"]


PDF_PARAGRAPHS = [
    "The Order of Tomas Garrigue Masaryk was conferred on 28 October 1990 on the following persons for outstanding "
    "merit in the development of democracy, humanity and human rights.",
    "Marta Kubisova, singer, received the Order of the Third Class for her steadfast attitude during the years of "
    "normalisation, when she was not allowed to perform in public.",
]


def make_pdf(paragraphs: list[str] = PDF_PARAGRAPHS, title: str = "Decorations conferred in 1990") -> bytes:
    from fpdf import FPDF

    pdf = FPDF()
    pdf.set_title(title)
    pdf.add_page()
    pdf.set_font("Helvetica", size=11)
    for paragraph in paragraphs:
        pdf.multi_cell(0, 5, paragraph, align="L")
        pdf.ln(8)
    return bytes(pdf.output())


def czech_page(encoding: str, declare_in_page: bool) -> bytes:
    text = (DOCS / "havel-cs.html").read_text(encoding="utf-8")
    meta = f'<meta charset="{encoding}">' if declare_in_page else ""
    return text.replace("META", meta).encode(encoding)


def world_options(**overrides) -> Options:
    """Options for a test: only 127.0.0.1 allowed, no cache, no pauses, short timeouts unless asked."""
    values = dict(contact="tester@example.org", fetch_allow_addresses=("127.0.0.1",), fetch_cache_days=0.0,
                  fetch_delay=0.0, fetch_backoff=0.01, fetch_connect_timeout=2.0, fetch_read_timeout=2.0)
    values.update(overrides)
    return load_options(DOCS / "empty.ini", environ={}, overrides=values)
