"""The subject check: a paragraph is judged only when it is about the statement's subject."""

from __future__ import annotations

import re

import pytest

from bot.checking.judging import Strategy, queue
from bot.datamodel import Paragraph, Statement, Value
from bot.checking.subject_check import (FAMILY_NAME, NAMED, NO_LABEL, OFFICIAL, OPENING, TITLE, admitting_rule,
                                        family_name, on_official_site, page_context, page_rule)
from bot.judge.contradictions import stated_for_another as for_another

ARCHITECT = Statement("Q990202", "Tomáš Beneš", "Q990202$1", "P69", "educated at",
                      Value("wikibase-item", "Q990217", "Czech Technical University in Prague"))
STUDIO = [
    "The brief on the wall of studio 512 at the Faculty of Architecture of the Czech Technical University in "
    "Prague is unusual: the sixteen students in this semester's guest studio design flats for real households.",
    "“The students have to present to the people who will live in the building,” the architect said.",
    "Several of the Czech Technical University in Prague's regular teachers sit in on the reviews.",
]


@pytest.mark.parametrize("label, surname", [
    ("Marta Novotná", "Novotná"),
    ("Jean-Paul Sartre", "Sartre"),
    ("Martin Luther King Jr.", "King"),
    ("Czech Technical University in Prague", ""),  # not shaped like a personal name
    ("Madonna", ""),
    ("Q990201", ""),
    ("Li Na", ""),  # too short to stand alone
])
def test_the_family_name_of_a_personal_name(label, surname):
    assert family_name(label) == surname


def test_a_paragraph_naming_the_subject_is_admitted_by_label_alias_or_family_name():
    names = ["Tomáš Beneš", "T. Beneš"]
    assert admitting_rule("Tomáš Beneš studied in Vienna.", names) == (NAMED, "Tomáš Beneš")
    assert admitting_rule("Since 2016 Beneš has led guest studios.", names) == (FAMILY_NAME, "Beneš")
    assert admitting_rule("The Benešov district was founded in 1850.", names) == ("", "")


@pytest.mark.parametrize("text, admitted", [
    ("Professor Novotná gave the lecture.", True),  # a title
    ("The Novotná group in Brno works on zeolites.", True),  # a word that starts a sentence
    ("According to Novotná, the process scales.", True),
    ("Her sister Jana Novotná won the medal in 2020.", False),  # another given name: someone else
    ("Jana Novotná won the medal; Novotná's sister watched.", True),  # the bare family name counts
])
def test_a_family_name_after_another_given_name_is_someone_else(text, admitted):
    assert bool(admitting_rule(text, ["Marta Novotná"])[0]) is admitted


@pytest.mark.parametrize("text, label, admitted", [
    ("Kenneth Harry Clarke (born July 2, 1940), British politician", "Kenneth Clarke", True),  # a middle name
    ("Marta J. Novotná won the medal.", "Marta Novotná", True),  # a middle initial
    ("Jana Marie Novotná won the medal.", "Marta Novotná", False),  # middle name after another given name
    ("Kenneth Harry Paul George Clarke spoke.", "Kenneth Clarke", False),  # more than MIDDLE_NAMES: a list
    ("MacLEOD, NORMAND, army officer; d. 1796 at Montreal", "Normand MacLeod", True),  # capitals in part
    ("the macleod clan gathered", "Normand MacLeod", False),  # not written as a name
])
def test_a_name_with_middle_names_or_in_capitals_is_the_subjects(text, label, admitted):
    assert bool(admitting_rule(text, [label])[0]) is admitted
    assert bool(page_rule([label], title=text)) is admitted


@pytest.mark.parametrize("url, websites, on_it", [
    ("https://www.hko.example/en/about.html", ["https://hko.example/"], True),  # "www." aside
    ("https://example.org/orchestra/history", ["https://example.org/orchestra/"], True),
    ("https://example.org/orchestra/history", ["https://example.org/orchestra/index.html"], True),
    ("https://example.org/choir/history", ["https://example.org/orchestra/"], False),  # another folder
    ("https://hko.example.evil.org/about", ["https://hko.example/"], False),
    ("https://hko.example/about", [], False),
])
def test_a_page_on_the_subjects_official_website_is_about_it(url, websites, on_it):
    assert on_official_site(url, websites) is on_it
    names = ["Haná Chamber Orchestra"]
    assert page_rule(names, title="About us", opening="We are a string orchestra.", official=on_it) == (
        OFFICIAL if on_it else "")


def test_a_place_that_shares_a_word_with_the_subject_is_another_place():
    # Kamenná Lhota and Horní Lhota are neighbouring places: the village's area is not the town's.
    names = ["Kamenná Lhota"]
    assert admitting_rule("Horní Lhota covers 18.6 km², most of it beech forest.", names) == ("", "")
    assert page_rule(names, title="Horní Lhota: the village that doubled in size",
                     opening="Up the valley from the district town, Horní Lhota has become the fastest-growing") == ""
    assert admitting_rule("Many newcomers work in Kamenná Lhota, the district town.", names)[0] == NAMED


def test_a_paragraph_of_a_page_about_the_subject_is_admitted_by_its_title_or_opening():
    names = ["Marta Novotná"]
    text = "She studied chemistry at the Faculty of Science from 1986 to 1991."

    def rule(**page):
        return admitting_rule(text, names, page_rule(names, **page))

    assert rule(title="Chemist Marta Novotná to deliver the Kalous Lecture") == (TITLE, "")
    assert rule(title="Kalous Lecture 2022", opening="Professor Novotná will give this year's lecture.") == \
        (OPENING, "")
    assert rule(title="Kalous Lecture 2022", opening="The lecture is on Thursday.") == ("", "")
    assert admitting_rule(text, ["", ""]) == (NO_LABEL, "")


def test_the_page_line_naming_the_subject_is_its_title_or_a_sentence_of_its_opening():
    names = ["Haná Chamber Orchestra"]
    assert page_context(names, title="Haná Chamber Orchestra", opening="We play.") == "Haná Chamber Orchestra"
    opening = "Welcome! The Haná Chamber Orchestra is a string orchestra. It plays in Olomouc."
    assert page_context(names, title="About us", opening=opening) == "The Haná Chamber Orchestra is a string orchestra."
    assert page_context(names, title="About us", opening="We play in Olomouc.") == ""


def _paragraphs(texts):
    return [Paragraph(text, "https://news.example.org/studio", position) for position, text in enumerate(texts)]


def test_paragraphs_about_someone_else_are_not_judged_and_the_admitted_ones_say_why():
    studio = _paragraphs(STUDIO)
    assert queue(studio, ARCHITECT, Strategy(), title="Students design homes for real tenants") == []
    admitted = queue(studio, ARCHITECT, Strategy(), title="Tomáš Beneš's guest studio")
    assert [(entry.paragraph.position, entry.subject_rule) for entry in admitted] == [(0, TITLE), (2, TITLE)]
    # Such a paragraph is read by the judge after the page's line that names the subject.
    assert admitted[0].context == "Tomáš Beneš's guest studio"
    assert admitted[0].snippet == f"Tomáš Beneš's guest studio\n\n{STUDIO[0]}"
    named = _paragraphs([*STUDIO[:2], "Beneš leads the studio at the Czech Technical University in Prague."])
    entry, = queue(named, ARCHITECT, Strategy(), title="Students design homes for real tenants")
    assert (entry.paragraph.position, entry.subject_rule) == (2, FAMILY_NAME) and "Beneš" in entry.matched
    assert entry.context == "" and entry.snippet == entry.paragraph.text  # it names him itself
    # The published method's strategy judges every paragraph, as the paper did, and still records the rule.
    paper = queue(studio, ARCHITECT, Strategy(name="paper"), title="Students design homes for real tenants")
    assert [entry.subject_rule for entry in paper] == ["", "", ""]
    # Switched off, the paragraph that names only the value is judged again.
    assert len(queue(studio, ARCHITECT, Strategy(require_subject=False))) == 2


def stated_for_another(text, form, names):
    return for_another(text, [(match.start(), match.end()) for match in re.finditer(re.escape(form), text)], names)


def test_a_value_stated_in_a_relative_clause_about_someone_else_is_not_the_subjects():
    names = ["Tomáš Beneš"]
    university = "Czech Technical University in Prague"
    partner = ("Back in Prague he and Vlček, who studied at the Czech Technical University in Prague and taught "
               "there for several years, founded Beneš Vlček Architekti in 2009.")
    assert stated_for_another(partner, university, names) == "Vlček"
    assert stated_for_another(f"Beneš, who studied at the {university}, founded a practice.", university, names) == ""
    assert stated_for_another(f"His partner, who studied at the {university}, helps.", university,
                              names) == "His partner"
    both = f"Beneš studied at the {university} with Vlček, who studied at the {university} too."
    assert stated_for_another(both, university, names) == ""  # stated for him as well
    # "which" is about a thing: not someone else of a person's kind.
    assert stated_for_another(f"Beneš lectures at Dejvice, which is part of the {university}.", university, names) == ""
    entries = queue(_paragraphs([partner]), ARCHITECT, Strategy(), title="Tomáš Beneš: Prague forgot how to build")
    assert entries == []


@pytest.mark.parametrize("text, whose", [
    ("Eva's cousin Jan was born on 15 March 1970. Eva herself was born in 1975.", "Eva's cousin"),
    ("Eva Hostilová's brother Karel was born on 15 March 1970.", "Eva Hostilová's brother"),
    ("In Brno her brother Karel was born on 15 March 1970.", "her brother"),
    ("Eva Hostilová was born on 15 March 1970 in Brno. Her brother Karel was born on 15 March 1970 too.", ""),
    ("Eva Hostilová's brother says she was born on 15 March 1970.", ""),
    ("Eva Hostilová was born on 15 March 1970 at the Faculty Hospital of Brno.", ""),
    # the relative named before the subject, by "of": whose relative the words after "of" say
    ("The mother of Eva Hostilová was born on 15 March 1970.", "The mother of Eva Hostilová"),
    ("Karel, the brother of Eva Hostilová, was born on 15 March 1970.", "the brother of Eva Hostilová"),
    ("Eva Hostilová, the daughter of Karel Novák, was born on 15 March 1970.", ""),
    ("The daughter of Karel Novák, Eva Hostilová, was born on 15 March 1970.", ""),
    ("The daughter of a miner, Eva Hostilová was born on 15 March 1970.", ""),
    # a relative clause on the subject whose own subject is her relative
    ("Eva Hostilová, whose mother was born on 15 March 1970, is a painter.", "whose mother"),
    ("Eva Hostilová is a painter, whose mother was born on 15 March 1970.", "whose mother"),
    ("Eva Hostilová, whose mother was born in Ostrava, was born on 15 March 1970.", ""),
    # a birth she gave is her child's
    ("Eva Hostilová gave birth to her daughter Jana on 15 March 1970.", "birth to her daughter"),
    ("In Brno, Eva Hostilová gave birth to a daughter, Jana, on 15 March 1970.", "birth to a daughter"),
    ("Eva Hostilová was born to her mother Jana on 15 March 1970.", ""),
])
def test_a_value_whose_clause_is_about_a_relative_is_not_the_subjects(text, whose):
    assert stated_for_another(text, "15 March 1970", ["Eva Hostilová"]) == whose


def test_a_page_about_another_ship_with_the_same_tonnage_is_no_evidence_and_an_obituary_saying_he_is():
    tonnage = Statement("Q1", "Queen Mary 2", "Q1$1", "P1093", "gross tonnage",
                        Value("quantity", "149215U1", "149215"))
    sister = _paragraphs(["Queen Victoria, launched in 2007, has a gross tonnage of 149,215 at her latest survey.",
                          "Her sister ships sail the same routes in summer."])
    assert queue(sister, tonnage, Strategy(), title="Queen Victoria (ship) – fleet list") == []
    obituary = Statement("Q2", "Roger Cholmeley", "Q2$1", "P570", "date of death",
                         Value("time", "+1565-06-02T00:00:00Z/11", "1565-06-02"))
    page = _paragraphs(["Sir Roger Cholmeley, judge and founder of Highgate School, was a Londoner by birth.",
                        "He died on 2 June 1565 and was buried in St Martin Orgar."])
    entry, = queue(page, obituary, Strategy(), title="A judge remembered")
    assert (entry.paragraph.position, entry.subject_rule, entry.value_form) == (1, OPENING, "2 June 1565")


def test_the_opening_paragraph_is_the_pages_first_prose_not_a_line_or_a_table_before_it():
    """A page's first unit may be a heading's lines or a table; the page is about the subject when its first prose
    names it, and a table row further down is read as about the subject too."""
    from dataclasses import replace

    death = Statement("Q2", "Roger Cholmeley", "Q2$1", "P570", "date of death",
                      Value("time", "+1565-06-02T00:00:00Z/11", "1565-06-02"))
    units = _paragraphs(["Judges. Founders. Londoners.",
                         "Sir Roger Cholmeley, judge and founder of Highgate School, was a Londoner by birth.",
                         "Buried: St Martin Orgar. Died: 2 June 1565."])
    units = [replace(units[0], kind="lines"), units[1], replace(units[2], kind="table")]
    entry, = queue(units, death, Strategy(), title="A judge remembered")
    assert (entry.paragraph.kind, entry.subject_rule, entry.value_form) == ("table", OPENING, "2 June 1565")


def test_a_title_writing_every_word_of_the_name_in_another_order_names_the_subject():
    """Registers write a building's name with its parts in their own order."""
    names = ["Peebles, Innerleithen Road, Hydro Hotel, Lodge"]
    assert page_rule(names, title="INNERLEITHEN ROAD, PEEBLES HOTEL HYDRO LODGE (LB39221)") == TITLE
    assert page_rule(names, title="INNERLEITHEN ROAD, PEEBLES HOTEL (LB39220)") == "", "a word missing: another"
    assert page_rule(["old mill"], title="MILL ROAD, OLD TOWN") == "", "two words are too few to tell"


def test_a_page_whose_prose_writes_the_value_is_judged_on_its_prose_not_its_terse_units():
    """A header line naming the subject beside the value is read only where no prose paragraph writes the value."""
    from dataclasses import replace

    medal = Statement("Q1", "Marta Novotná", "Q1$1", "P166", "award received",
                      Value("wikibase-item", "Q2", "European Catalysis Medal"))
    units = _paragraphs(["The medal went to Janssens alone; Marta Novotná was a finalist but did not receive the "
                         "European Catalysis Medal itself.",
                         "Janssens wins the European Catalysis Medal. A shortlist that included Marta Novotná."])
    units = [units[0], replace(units[1], kind="header")]
    assert [entry.paragraph.kind for entry in queue(units, medal, Strategy(), title="Medal news")] == ["paragraph"]
    header_only = [replace(units[1], position=0)]
    assert [entry.paragraph.kind for entry in queue(header_only, medal, Strategy(), title="Medal news")] == ["header"]


def test_a_catalogues_heading_names_the_page_where_its_title_names_the_catalogue():
    """A record's page titled by its catalogue ("Social Networks and Archival Context") names the person in its main
    heading, surname first: its label–value lines are the subject's and are judged."""
    born = Statement("Q1", "Conyers Middleton", "Q1$1", "P569", "date of birth",
                     Value("time", "+1683-12-27T00:00:00Z/11", "1683-12-27"))
    units = [Paragraph("From the description of Letters, 1720-1750: a collection held by the library.", "u", 0),
             Paragraph("Person. Birth 1683-12-27. Death 1750-07-28. Britons. English.", "u", 1, kind="lines")]
    title = "Social Networks and Archival Context"
    assert queue(units, born, Strategy(), title=title) == []
    entry, = queue(units, born, Strategy(), title=title, heading="Middleton, Conyers, 1683-1750")
    assert (entry.paragraph.position, entry.subject_rule) == (1, TITLE)
    assert page_rule(["distilled water"], title="Water: Uses and Interactions", heading="Water") == "", \
        "a heading shorter than the name does not write it"
