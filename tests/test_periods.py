"""When a claim holds (its point in time, start and end time) and a text that gives its value for another time:
the time put to the judge with the claim, and the deterministic rule beside it (bot.judge.periods), through the
real judge with a scripted model (bot.judge.scripted), which would say yes to anything."""

from __future__ import annotations

from dataclasses import replace

import pytest

from bot.datamodel import Claim, Qualifier, Statement, Value, Verdict
from bot.judge.engine import Judge
from bot.judge.periods import occurrences, other_time, period, when_text
from bot.judge.prompts import PAPER, REFBOT
from bot.judge.scripted import ScriptedBackend
from bot.properties.profile import statement_claim
from bot.values import value_finder


def year(property_id: str, number: int, label: str = "") -> Qualifier:
    return Qualifier(property_id, label or property_id, Value("time", f"+{number}-00-00T00:00:00Z/9", str(number)))


POPULATION = Claim("Kamenná Lhota", "population", "12480", value=Value("quantity", "12480", "12480"),
                   time_varying=True, when=(year("P585", 2021, "point in time"),))
PRIZE = Claim("Helena Marková", "award received", "Prague Spring Violin Prize", "", (), "received",
              as_sentence=True, value=Value("wikibase-item", "Q990218", "Prague Spring Violin Prize"),
              when=(year("P585", 2021),))


def judged(claim: Claim, text: str, template=REFBOT) -> tuple:
    backend = ScriptedBackend(0.97)
    return Judge(backend, template, justify=False).judge(claim, text), backend


@pytest.mark.parametrize("text, other", [
    ("In 2011 Kamenná Lhota had 12,480 inhabitants.", "2011"),
    ("Kamenná Lhota had 12,480 inhabitants in 2011, more than ever.", "2011"),
    ("At the 2011 census, Kamenná Lhota had 12,480 inhabitants.", "2011"),
])
def test_a_paragraph_giving_the_value_for_another_year_is_not_support(text, other):
    judgement, backend = judged(POPULATION, text)
    assert judgement.verdict is Verdict.NOT_INFERRABLE and judgement.support == 0.0
    assert judgement.answer == f"not asked: the paragraph gives the value for {other}; the statement holds in 2021"
    assert judgement.written == "amount" and judgement.written_form == "12,480"
    assert backend.asked("choose") == []  # decided without the model


def test_an_award_written_for_another_year_is_not_support_for_this_years():
    judgement, _ = judged(PRIZE, "Marková, who won the Prague Spring Violin Prize in 2004 at the age of 23, "
                                 "has built an international career.")
    assert judgement.verdict is Verdict.NOT_INFERRABLE
    assert "gives the value for 2004; the statement holds in 2021" in judgement.answer


@pytest.mark.parametrize("text", [
    "In 2021 Kamenná Lhota had 12,480 inhabitants.",
    # the nearest date is the claim's; the earlier figure's year is farther
    "Kamenná Lhota had 12,480 inhabitants in 2021, up from 12,080 in 2011.",
    # one occurrence for another year, one for the claim's
    "In 2011 the town had 12,480 inhabitants. By 2021 it still had 12,480 inhabitants.",
    # two dates beside the value, one the claim's: the other does not outweigh it
    "The town grew from 9,000 in 1990 to 12,480 in 2021.",
])
def test_the_value_beside_the_claims_year_is_asked_about_with_the_year(text):
    judgement, backend = judged(POPULATION, text)
    assert judgement.verdict is Verdict.SUPPORTS and len(backend.asked("choose")) == 1
    assert 'Claim: "Kamenná Lhota" - population - "12480" in 2021\n' in backend.asked("choose")[0].prompt


@pytest.mark.parametrize("text", [
    # no date beside the value: a page dated by its byline ("at the last census" in 2022)
    "At the last census Kamenná Lhota had 12,480 inhabitants, four hundred more than ten years earlier.",
    # another year in the sentence, but far from the value
    "Kamenná Lhota had 12,480 inhabitants according to the count of the statistical office, which moved its "
    "regional branch from Olomouc to the new building on the square in 2011.",
])
def test_a_value_the_text_dates_nowhere_is_asked_about_as_before(text):
    """The judge sees only the paragraph: asked "in 2021" of a text that gives no year, a small model says no to a
    page that supports the statement, so the claim is asked as if it had no time."""
    judgement, backend = judged(POPULATION, text)
    assert judgement.verdict is Verdict.SUPPORTS
    assert backend.asked("choose")[0].prompt == judged(replace(POPULATION, when=()), text)[1].asked("choose")[0].prompt
    justified = Judge(ScriptedBackend(0.97), REFBOT, justify=True)
    justified.explain(POPULATION, text)
    assert "in 2021" not in justified.backend.asked("complete")[0].messages[1]["content"]


def test_without_a_time_qualifier_nothing_changes():
    timeless = replace(POPULATION, when=())
    for text in ("In 2011 Kamenná Lhota had 12,480 inhabitants.", "In 2021 Kamenná Lhota had 12,480 inhabitants."):
        judgement, backend = judged(timeless, text)
        assert judgement.verdict is Verdict.SUPPORTS
        assert backend.asked("choose")[0].prompt.endswith(
            'Claim: "Kamenná Lhota" - population - "12480"\n\nDoes the text state this claim? Answer yes or no.')
    assert REFBOT.messages(timeless, "t") == REFBOT.messages(Claim("Kamenná Lhota", "population", "12480"), "t")


def test_the_judge_is_told_when_the_claim_holds():
    sentence = REFBOT.messages(PRIZE, "t")[1]["content"]
    assert "Claim: Helena Marková received Prague Spring Violin Prize in 2021." in sentence
    # the published prompt stays as published; the rule applies to it too
    assert "2021" not in PAPER.messages(PRIZE, "t")[1]["content"]
    judgement, _ = judged(PRIZE, "She won the Prague Spring Violin Prize in 2004.", PAPER)
    assert judgement.verdict is Verdict.NOT_INFERRABLE and "2004" in judgement.answer


def test_when_a_claim_holds_as_words_and_years():
    start, end = year("P580", 2015), year("P582", 2019)
    month = Qualifier("P585", "point in time", Value("time", "+2021-06-00T00:00:00Z/10", "June 2021"))
    day = Qualifier("P585", "point in time", Value("time", "+2021-06-14T00:00:00Z/11", "2021-06-14"))
    decade = Qualifier("P585", "point in time", Value("time", "+1930-00-00T00:00:00Z/8", "1930s"))
    assert when_text((year("P585", 2021),)) == "in 2021"
    assert when_text((month,)) == "in June 2021" and when_text((day,)) == "on 2021-06-14"
    assert when_text((decade,)) == "in the 1930s"
    assert when_text((start, end)) == "from 2015 to 2019"
    assert when_text((start,)) == "since 2015" and when_text((end,)) == "until 2019"
    assert period((start, end)).ranges == ((2015, 2019),)
    assert period((decade,)).ranges == ((1930, 1939),)
    assert period((start,)).holds_in(2030) and not period((end,)).holds_in(2020)
    assert period(()) is None
    text = "From 2012 she taught at Brno; in 2017 she received the Brno Innovation Award."
    value = Value("wikibase-item", "Q990212", "Brno Innovation Award")
    spans = occurrences(value_finder(value), text)
    assert spans == [(text.index("Brno Innovation"), len(text) - 1)]
    assert other_time((start, end), spans, text) == ""  # 2017 is within 2015–2019
    assert other_time((year("P585", 2019),), spans, text) == \
        "the paragraph gives the value for 2017; the statement holds in 2019"


def test_a_statements_time_qualifiers_reach_its_claim():
    statement = Statement("Q990207", "Kamenná Lhota", "Q990207$1", "P1082", "population",
                          Value("quantity", "12480", "12480"),
                          qualifiers=(Qualifier("P459", "determination method", Value("wikibase-item", "Q39825",
                                                                                      "census")),
                                      year("P585", 2021, "point in time")))
    assert [q.property_id for q in statement.claim.when] == ["P585"]
    assert [q.property_id for q in statement_claim(statement, None).when] == ["P585"]


@pytest.mark.parametrize("text", [
    "The Prague Spring Violin Prize, founded in 1952, went to Helena Marková in 2021.",  # the prize's own date
    "Marková (born 1998) won the Prague Spring Violin Prize.",  # an aside dates someone else
    "In 2021 Marková won the Prague Spring Violin Prize, first awarded in 1990.",
])
def test_a_date_in_another_clause_or_an_aside_does_not_date_the_value(text):
    judgement, backend = judged(PRIZE, text)
    assert judgement.verdict is Verdict.SUPPORTS and len(backend.asked("choose")) == 1, judgement.answer
