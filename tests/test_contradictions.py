"""Contradictions that hold (bot.judge.contradictions, bot.values.own_dates, bot.checking.judging.contradicting).

The judge is the real engine with a scripted backend (bot.judge.scripted) that says yes to every question: a value
that is no finding must therefore never be asked about, and the questions recorded show which one was.
"""

from __future__ import annotations

import pytest

from bot.checking.judging import Strategy, contradicting, judge_in_rounds, queue
from bot.checking.ranking import Ranked
from bot.datamodel import Claim, Paragraph, Relation, Statement, Value, Verdict
from bot.judge.contradictions import stated_for
from bot.judge.engine import Judge
from bot.judge.prompts import REFBOT
from bot.judge.scripted import ScriptedBackend
from bot.values.date_mentions import find_dates
from bot.values.dates import DATE_LANGUAGES
from bot.values.own_dates import DATELINE, page_date

DIED = Claim("Marta Novotná", "date of death", "1987-06-09", predicate_phrase="died on", as_sentence=True,
             value=Value("time", "+1987-06-09T00:00:00Z/11", "1987-06-09"))
BORN = Claim("Marta Novotná", "date of birth", "1912-03-03", "", (Relation("date of death", "", "died on"),),
             "was born on", as_sentence=True, value=Value("time", "+1912-03-03T00:00:00Z/11", "1912-03-03"))


def judged(claim: Claim, text: str) -> tuple[Verdict, list[str]]:
    """The verdict of a judge whose model says yes to anything, and the questions it was asked."""
    backend = ScriptedBackend(0.95, logprobs=lambda prefix, continuation: (-0.5,))
    judgement = Judge(backend, REFBOT, justify=False).judge(claim, text)
    return judgement.verdict, backend.questions


def own(text: str) -> list[tuple[str, str]]:
    """Each date the text writes, with what it dates when it is the page's own ("" when it is not)."""
    return [(mention.form, page_date(text, mention.start, mention.end)) for mention in find_dates(text, DATE_LANGUAGES)]


# -- the page's own dates ----------------------------------------------------------------------------------------

def test_datelines_publication_and_archive_dates_are_the_pages_own():
    assert own("LONDON, June 14, 1987 (Reuters) – The violinist died on Tuesday.") == [("June 14, 1987", DATELINE)]
    assert own("June 14, 1987 — Marta Novotná died on Tuesday.") == [("June 14, 1987", DATELINE)]
    assert own("Published: 14 June 1987 | Updated 14:23 BST, 15 June 1987") == [
        ("14 June 1987", "published"), ("15 June 1987", "updated")]
    assert own("Posted by J. Novák on June 14, 2010") == [("June 14, 2010", "posted")]
    assert own("“Obituary”. The Times. Retrieved 2 March 2020. Archived from the original on 3 March 2016.") == [
        ("2 March 2020", "retrieved"), ("3 March 2016", "archived")]
    assert own("This page was last edited on 3 May 2020, at 10:00.") == [("3 May 2020", "last edited")]
    assert own("| archivedate = 2022-03-08 }}") == [("2022-03-08", "archivedate")]
    assert own("{{cite web |url=https://a.example/ |title=Obituary |date=14 June 1987 |access-date=3 May 2020}}") \
        == [("14 June 1987", "date"), ("3 May 2020", "access-date")]


def test_dates_a_text_gives_for_its_subject_are_not_the_pages():
    assert own("Her last novel was published on 14 June 1987.") == [("14 June 1987", "")]
    assert own("{{Infobox person | birth_date = 3 March 1921 | date = 1966 }}") == [("3 March 1921", ""), ("1966", "")]
    # A catalogue's life span and a chronology's year open their line with a dash after them: no dateline.
    assert own("Novotná, Marta, 3 March 1921 – 9 May 1990.") == [("3 March 1921", ""), ("9 May 1990", "")]
    assert own("1921 – born in Brno") == [("1921", "")]
    assert own("Death\n14 June 1987") == [("14 June 1987", "")]


@pytest.mark.parametrize("text", [
    "LONDON, June 14, 1987 (Reuters) – Marta Novotná, the violinist, died at her home in Brno, her family said.",
    "June 14, 1987 — Marta Novotná, the violinist, died on Tuesday at her home in Brno.",
    "Published: 14 June 1987. Marta Novotná, the violinist, died last week at her home in Brno.",
    "Marta Novotná died at her home in Brno. | archivedate = 2022-03-08 | access-date = 2021-01-02 }}",
])
def test_a_dateline_or_an_archive_date_never_contradicts_a_date_of_death(text):
    # An obituary is dated days after the death it reports; the model, which says yes to anything, is never asked.
    verdict, questions = judged(DIED, text)
    assert verdict is Verdict.NOT_INFERRABLE and questions == []


def test_a_publication_dates_own_label_names_the_property():
    published = Claim("Notes on Brno", "publication date", "1987-06-15",
                      value=Value("time", "+1987-06-15T00:00:00Z/11", "1987-06-15"))
    verdict, questions = judged(published, "Notes on Brno. Published: 14 June 1987. A survey of the city.")
    assert verdict is Verdict.CONTRADICTS and "14 June 1987" in questions[0]


# -- the sentence's subject ------------------------------------------------------------------------------------

@pytest.mark.parametrize("text", [
    "Marta Novotná was a violinist. Novotná's first husband, Karel Novák, died on 2 May 1950.",
    "Marta Novotná climbed with her friend Jana Dvořáková, who died in a fall on 4 July 1960.",
    "Marta Novotná lived in Brno. Her mother died on 2 May 1950.",
    "Marta Novotná moved to Brno after her husband's death on 2 May 1950.",
    "Marta Novotná was a violinist. Petr Novotná died on 2 May 1950 in Prague.",
])
def test_a_sentence_about_the_subjects_spouse_friend_or_namesake_never_contradicts(text):
    verdict, questions = judged(DIED, text)
    assert verdict is Verdict.NOT_INFERRABLE and questions == []


def test_another_date_of_birth_in_a_sentence_about_the_subject_still_contradicts():
    text = ("Her father died on 2 May 1950. Marta Novotná, whose mother was born on 5 June 1890, "
            "was born on 3 March 1921 in Brno.")
    verdict, questions = judged(BORN, text)
    assert verdict is Verdict.CONTRADICTS
    assert len(questions) == 1 and "Marta Novotná was born on 3 March 1921" in questions[0]


@pytest.mark.parametrize("sentence, value, whose", [
    ("Smith's first wife, Mary Jones, died in 1950.", "1950", "Smith's first wife"),
    ("John Smith's brother Karel was born in 1925.", "1925", "John Smith's brother"),  # the owner named whole
    ("In Leeds, John Smith's cousin died in 1950.", "1950", "John Smith's cousin"),
    ("John Smith's brother said he was born in 1921.", "1921", ""),
    ("He and his friend Karel Novák, who died in a fall in 1960, climbed.", "1960", "Karel Novák"),
    ("His friend, who died in a fall in 1960, was a climber.", "1960", "His friend"),
    ("In 1950, his wife died.", "1950", "his wife"),
    ("She was born in 1921, and her brother in 1925.", "1925", "her brother"),
    ("Jane Smith died in 1950.", "1950", "Jane Smith"),
    ("John Smith, whose father died in 1921, was born in 1900.", "1900", ""),
    ("She was born to her mother Anna on 3 March 1921.", "3 March 1921", ""),
    ("Her husband died in 1950 and she died in 1990.", "1990", ""),
    ("The daughter of a carpenter, Smith was born in 1921.", "1921", ""),
    ("Dr. Smith died in 1950.", "1950", ""),
])
def test_whose_value_a_sentence_gives(sentence, value, whose):
    start = sentence.index(value)
    assert stated_for(sentence, start, start + len(value), "John Smith") == whose


# -- the property named, for every datatype -----------------------------------------------------------------------

def test_an_identifier_of_a_distinctive_shape_contradicts_by_its_shape_a_short_number_only_where_named():
    isbn = Claim("Notes on Brno", "ISBN-13", "978-0-306-40615-7",
                 value=Value("external-id", "978-0-306-40615-7", "978-0-306-40615-7"))
    verdict, _ = judged(isbn, "Notes on Brno (Brno: Host, 1987), 978-0-306-40615-2, 312 pages.")
    assert verdict is Verdict.CONTRADICTS
    number = Claim("Notes on Brno", "OCLC control number", "123456789",
                   value=Value("external-id", "123456789", "123456789"))
    assert judged(number, "Notes on Brno. Call 555123456 to order a copy.") == (Verdict.NOT_INFERRABLE, [])
    verdict, _ = judged(number, "Notes on Brno is catalogued under OCLC number 987654321.")
    assert verdict is Verdict.CONTRADICTS


# -- every paragraph that gives another value is considered --------------------------------------------------------

STATEMENT = Statement("Q1", "Marta Novotná", "Q1$1", "P569", "date of birth", BORN.value)


def test_the_paragraph_naming_the_property_is_asked_before_a_better_ranked_one_that_does_not():
    recorded = Paragraph("Marta Novotná recorded the Janáček sonatas on 9 May 1958 in Brno.", "u", 0)
    born = Paragraph("Novotná was born on 3 March 1921 in Prostějov.", "u", 1)
    ranked = [Ranked(recorded, 0.9, 1.0, 0.0, subject_rule="named"), Ranked(born, 0.4, 1.0, 0.0, subject_rule="named")]
    assert [entry.paragraph.position for entry in contradicting(ranked, BORN)] == [1]
    # On a page, whatever the ranking prefers, the paragraph whose sentence names birth is asked, and contradicts.
    page = [recorded, born, Paragraph("Marta Novotná taught in Brno from 1950 to 1985.", "u", 2)]
    queued = queue(page, STATEMENT, Strategy(unnamed=1), claim=BORN, title="Marta Novotná")
    assert [entry.paragraph.position for entry in queued] == [1]
    backend = ScriptedBackend(0.95, logprobs=lambda prefix, continuation: (-0.5,))
    answers, = judge_in_rounds(Judge(backend, REFBOT, justify=False), BORN, [queued], first_only=True)
    assert answers[0].judgement.verdict is Verdict.CONTRADICTS
    assert answers[0].judgement.contradiction.form == "3 March 1921"


def test_several_paragraphs_giving_another_value_are_asked_bounded_by_unnamed():
    page = [Paragraph(f"Marta Novotná was born on {day} March 1921, the register says ({day}).", "u", day)
            for day in range(1, 6)]
    assert len(queue(page, STATEMENT, Strategy(unnamed=2), claim=BORN, title="Marta Novotná")) == 2
    assert len(queue(page, STATEMENT, Strategy(unnamed=4), claim=BORN, title="Marta Novotná")) == 3  # top
    # Without the judge's claim, the statement's labels say which sentences name the property ("birth" → "born").
    assert len(queue(page, STATEMENT, Strategy(unnamed=2), title="Marta Novotná")) == 2
    # A page that gives only its own dates and another person's is asked nothing.
    obituary = [Paragraph("June 14, 1987 — Marta Novotná, the violinist, was born in Brno.", "u", 0),
                Paragraph("Her brother was born on 2 May 1925.", "u", 1)]
    assert queue(obituary, STATEMENT, Strategy(), claim=BORN, title="Marta Novotná") == []


# -- whose fact: a relative's value is not the subject's; the subject's other value beside it is a finding ---------

EVA = Claim("Eva Hostilová", "date of birth", "1970-03-15", "", (Relation("date of death", "", "died on"),),
            "was born on", as_sentence=True, value=Value("time", "+1970-03-15T00:00:00Z/11", "1970-03-15"))


@pytest.mark.parametrize("text, whose", [
    ("Eva Hostilová grew up in Brno. Eva's cousin Jan was born on 15 March 1970.", "Eva's cousin"),
    ("Eva Hostilová's brother Karel was born on 15 March 1970 in Brno.", "Eva Hostilová's brother"),
    # a relative clause on another name: the rule the subject check reads paragraphs by too
    ("Eva Hostilová grew up in Brno with Jan Novák, who was born on 15 March 1970.", "Jan Novák"),
])
def test_the_value_written_only_for_a_relative_is_never_support(text, whose):
    backend = ScriptedBackend(0.95, logprobs=lambda prefix, continuation: (-0.5,))
    judgement = Judge(backend, REFBOT, justify=False).judge(EVA, text)
    assert judgement.verdict is Verdict.NOT_INFERRABLE and backend.questions == []
    assert judgement.answer == f'not asked: it writes "15 March 1970" only for {whose}' and not judgement.written


@pytest.mark.parametrize("text, whose", [
    ("The mother of Eva Hostilová was born on 15 March 1970.", "The mother of Eva Hostilová"),
    ("Karel, the brother of Eva Hostilová, was born on 15 March 1970.", "the brother of Eva Hostilová"),
    ("Eva Hostilová, whose mother was born on 15 March 1970, is a painter.", "whose mother"),
    ("Eva Hostilová gave birth to her daughter Jana on 15 March 1970.", "birth to her daughter"),
])
def test_a_relatives_date_is_never_support_however_the_sentence_names_the_relative(text, whose):
    verdict, questions = judged(EVA, text)
    assert verdict is Verdict.NOT_INFERRABLE and questions == []


def test_the_subjects_own_value_given_in_the_same_breath_as_a_relatives_contradicts():
    text = "Eva Hostilová grew up in Brno. Eva's cousin Jan was born on 15 March 1970. Eva herself was born in 1975."
    verdict, questions = judged(EVA, text)
    assert verdict is Verdict.CONTRADICTS
    assert len(questions) == 1 and "Eva Hostilová was born on 1975" in questions[0]


def test_the_value_written_for_the_subject_as_well_as_for_a_relative_is_asked():
    text = "Eva Hostilová was born on 15 March 1970. Her cousin Jan was born on 15 March 1970 too."
    verdict, questions = judged(EVA, text)
    assert verdict is Verdict.SUPPORTS and len(questions) == 1


@pytest.mark.parametrize("text", [
    "Marta Novotná was sentenced to death on 2 May 1950; the sentence was commuted to life imprisonment.",
    "On 2 May 1950 the court passed a death sentence on Marta Novotná.",
    "Marta Novotná faced the death penalty from 2 May 1950 until her pardon.",
])
def test_a_death_sentence_is_no_date_of_death(text):
    verdict, questions = judged(DIED, text)
    assert verdict is Verdict.NOT_INFERRABLE and questions == []


@pytest.mark.parametrize("text", [
    # the words that name a death here name others' deaths or a sentence passed, never hers
    "Marta Novotná was sentenced to death in 1947 for the deaths of 22 prisoners. Her term was commuted to life.",
    "Marta Novotná was tried for the deaths of 22 prisoners in 1947.",
    "Marta Novotná was tried in 1947 for the death of her husband.",
    # another event's date, beside a death in another predicate
    "Marta Novotná's trial began in 1947, and she died in prison years later.",
    "Marta Novotná received the Order of Labour in 1947 and died in Brno.",
])
def test_a_date_of_another_event_never_contradicts_the_date_of_death(text):
    verdict, questions = judged(DIED, text)
    assert verdict is Verdict.NOT_INFERRABLE and questions == []


def test_her_own_death_in_another_year_beside_such_events_still_contradicts():
    text = "Marta Novotná was sentenced to death in 1947 for the deaths of 22 prisoners. She died in 1961 in Brno."
    verdict, questions = judged(DIED, text)
    assert verdict is Verdict.CONTRADICTS and len(questions) == 1 and "died on 1961" in questions[0]


def test_a_birth_dated_by_another_event_gives_that_events_date_not_the_birth():
    verdict, questions = judged(BORN, "Marta Novotná was born in the year of the great flood, which began on "
                                      "3 March 1921 in Brno.")
    assert verdict is Verdict.NOT_INFERRABLE and questions == []
    assert judged(DIED, "Marta Novotná died on 2 May 1950 in Prague.")[0] is Verdict.CONTRADICTS
