"""Pages read as a person reads them: tables, definition lists, header lines, label–value lines, breadcrumbs,
captions and the title become units the judge can read, each saying what it is; menus and footers stay out."""

from __future__ import annotations

import pytest

from bot.documents.paragraphs import extract

PROSE = ("The society was founded by a group of engineers who wanted a place to meet, to read papers to each other "
         "and to keep a record of the works they built across the county in the following decades.")


def page(body: str, title: str = "Ottilie Brandvold | Regional Biographies", after: str = "",
         before: str = "") -> bytes:
    return (f"<!doctype html><html lang='en'><head><title>{title}</title></head><body>"
            f"<nav><ul><li><a href='/'>Home</a></li><li><a href='/people'>People</a></li></ul></nav>"
            f"{before}<main><article>{body}</article></main>{after}"
            f"<footer><dl><dt>Contact</dt><dd>office@example.org</dd><dt>Opening hours</dt><dd>9 to 5</dd></dl>"
            f"<p>© 2024 Regional Biographies. All rights reserved.</p></footer>"
            f"<div class='cookie-notice'><table><tr><th>Cookie</th><td>session, kept 30 days</td></tr></table></div>"
            f"</body></html>").encode()


def units(body: str, **kwargs: str) -> list[tuple[str, str]]:
    document = extract(page(body, **kwargs), "text/html", "http://127.0.0.1/page")
    assert all(document.text[p.start:p.end] == p.text for p in document.paragraphs)
    return [(paragraph.kind, paragraph.text) for paragraph in document.paragraphs]


def test_a_details_table_is_read_as_label_value_lines_under_its_caption():
    found = units(f"<h1>Ottilie Brandvold</h1><p>{PROSE}</p><table><caption>Register entry</caption>"
                  "<tr><th>Registered</th><td>12 May 2004</td></tr><tr><th>Number</th><td>SC 40417</td></tr>"
                  "<tr><th>Status</th><td>Active</td></tr></table>")
    assert ("table", "Register entry. Registered: 12 May 2004. Number: SC 40417. Status: Active.") in found
    assert ("paragraph", PROSE) in found


def test_a_table_with_a_header_row_gives_one_unit_per_row_as_header_cell_pairs():
    found = units(f"<p>{PROSE}</p><h2>Works</h2><table><tr><th>Year</th><th>Work</th><th>Place</th></tr>"
                  "<tr><td>1931</td><td>Saltmarsh Bridge</td><td>Ebbing</td></tr>"
                  "<tr><td>1934</td><td>Mill Lane Viaduct</td><td>Corrow</td></tr></table>")
    rows = [text for kind, text in found if kind == "table"]
    assert rows == ["Works. Year: 1931; Work: Saltmarsh Bridge; Place: Ebbing",
                    "Works. Year: 1934; Work: Mill Lane Viaduct; Place: Corrow"]


def test_a_definition_list_is_read_as_term_definition_pairs():
    found = units(f"<p>{PROSE}</p><h2>Summary</h2><dl><dt>Local authority</dt><dd>Corrow and Ebbing</dd>"
                  "<dt>Date added</dt><dd>26/06/1986</dd></dl>")
    assert ("definitions", "Summary. Local authority: Corrow and Ebbing. Date added: 26/06/1986.") in found


def test_the_header_line_under_the_name_is_a_unit_with_the_name():
    header = ("<div class='intro'><h1>Ottilie Brandvold</h1><h2> </h2><p>(b. 4 March 1931, Ebbing – d. 14 June 1987, "
              "Corrow)</p></div>")
    found = units(f"{header}<p>{PROSE}</p>")
    assert ("header", "Ottilie Brandvold. (b. 4 March 1931, Ebbing – d. 14 June 1987, Corrow).") in found or \
        ("lines", "Ottilie Brandvold. (b. 4 March 1931, Ebbing – d. 14 June 1987, Corrow).") in found


def test_short_label_value_lines_are_read_together_under_their_heading():
    found = units(f"<p>{PROSE}</p><h4>Person</h4><p>Birth 1866-02-01</p><p>Death 1940-12-08</p>"
                  f"<h4>Variant names</h4><p>{PROSE.replace('society', 'club')}</p>")
    assert ("lines", "Person. Birth 1866-02-01. Death 1940-12-08.") in found
    assert not any(text == "Variant names." for _, text in found), "a heading alone is no unit"


def test_the_breadcrumb_the_caption_and_the_whole_title_are_units():
    body = (f"<ol class='breadcrumb'><li><a href='/'>Norway</a></li><li><a href='/v'>Vestland</a></li>"
            f"<li>Schools in Corrow</li></ol><p>{PROSE}</p>"
            "<figure><img src='a.jpg'><figcaption>Ottilie Brandvold at the opening of the viaduct, 1934</figcaption>"
            "</figure>")
    found = units(body, title="S.I. No. 80/1968 - Corrow Harbour Order, 1968")
    assert ("breadcrumb", "Norway › Vestland › Schools in Corrow") in found
    assert ("caption", "Ottilie Brandvold at the opening of the viaduct, 1934") in found
    assert ("title", "S.I. No. 80/1968 - Corrow Harbour Order, 1968") in found


def test_menus_footers_notices_and_link_lists_stay_out():
    links = "".join(f"<tr><td><a href='/p{n}'>Person {n}</a></td><td><a href='/q{n}'>Place {n}</a></td></tr>"
                    for n in range(6))
    document = extract(page(f"<p>{PROSE}</p>", after=f"<div class='more'><table>{links}</table></div>"),
                       "text/html", "http://127.0.0.1/page")
    found = [(paragraph.kind, paragraph.text) for paragraph in document.paragraphs]
    text = " ".join(text for _, text in found)
    for boilerplate in ("Home", "office@example.org", "Opening hours", "All rights reserved", "Cookie", "Person 3"):
        assert boilerplate not in text, boilerplate


def test_a_footnote_marker_in_superscript_stays_apart_from_the_date_it_follows():
    """trafilatura would glue "1871<sup>2</sup>" into "18712": the marker is read as "²", so the date is found;
    digits in <sub> stay a formula's ("C₄₂H₇₈")."""
    from bot.datamodel import Value
    from bot.values import value_finder

    sentence = ("Ottilie Brandvold was born on 3 May 1871<sup>2</sup> in Ebbing and studied engineering in Corrow"
                "<sup><a href='#n3'>[3]</a></sup>, where she later taught. ")
    found = units(f"<p>{sentence * 2}</p><p>{PROSE} Its seal shows C<sub>42</sub>H<sub>78</sub>.</p>")
    prose = [text for kind, text in found if kind == "paragraph"]
    assert "3 May 1871² in Ebbing" in prose[0] and "Corrow³," in prose[0]
    assert value_finder(Value("time", "+1871-05-03T00:00:00Z/11", "1871-05-03"))(prose[0]) is not None
    assert "C₄₂H₇₈" in prose[1]


# Each kind of unit is judged: the page writes the value only there, and the real judging path (queue, then the
# engine; the model scripted to say yes where the value is quoted) supports the statement from that unit.
BIOGRAPHY_PROSE = ("Ottilie Brandvold trained as an engineer in Bergen and worked on the bridges of the county for "
                   "most of her life, designing several of the viaducts that still carry its railway today.")


@pytest.mark.parametrize("body, kind, value", [
    (f"<p>{BIOGRAPHY_PROSE}</p><table><caption>Register entry</caption><tr><th>Name</th><td>Ottilie Brandvold</td>"
     "</tr><tr><th>Died</th><td>14 June 1987</td></tr></table>", "table", "14 June 1987"),
    (f"<p>{BIOGRAPHY_PROSE}</p><h2>Ottilie Brandvold</h2><dl><dt>Occupation</dt><dd>engineer</dd>"
     "<dt>Died</dt><dd>14 June 1987</dd></dl>", "definitions", "14 June 1987"),
    (f"<p>{BIOGRAPHY_PROSE}</p>", "header", "4 March 1931 – 14 June 1987"),
    (f"<p>{BIOGRAPHY_PROSE}</p><h4>Ottilie Brandvold</h4><p>Birth 1931-03-04</p><p>Death 1987-06-14</p>",
     "lines", "Death 1987-06-14"),
])
def test_a_table_row_a_definition_list_a_header_line_and_label_value_lines_are_judged(body, kind, value):
    """The header line is the page's own, above its article (trafilatura leaves it out; lxml reads it)."""
    from bot.checking.judging import Strategy, judge_in_rounds, queue
    from bot.datamodel import Statement, Value
    from bot.judge.engine import Judge
    from bot.judge.prompts import REFBOT
    from bot.judge.scripted import ScriptedBackend

    died = Statement("Q1", "Ottilie Brandvold", "Q1$1", "P570", "date of death",
                     Value("time", "+1987-06-14T00:00:00Z/11", "1987-06-14"))
    header = "<h1>Ottilie Brandvold</h1><div class='dates'>4 March 1931 – 14 June 1987</div><div>Engineer</div>" \
        if kind == "header" else ""
    document = extract(page(body, before=header), "text/html", "http://127.0.0.1/page")
    entries = queue(document.paragraphs, died, Strategy(), title=document.title)
    assert [entry.paragraph.kind for entry in entries] == [kind]
    backend = ScriptedBackend({value: 0.95})
    judged, = judge_in_rounds(Judge(backend, REFBOT, justify=False), died.claim, [entries], first_only=True)
    assert len(backend.questions) == 1 and value in backend.questions[0]
    assert judged[0].judgement.supported and judged[0].ranked.paragraph.kind == kind


def test_the_main_heading_is_the_first_h1_outside_menus_and_banners():
    body = f"<h1>Ottilie Brandvold</h1><p>{PROSE}</p>"
    document = extract(page(body, before="<header><h1>Regional Biographies</h1></header>"), "text/html",
                       "http://127.0.0.1/page")
    assert document.heading == "Ottilie Brandvold"
    assert extract(page(f"<p>{PROSE}</p>"), "text/html", "http://127.0.0.1/page").heading == ""
