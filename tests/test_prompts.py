import re

import pytest

from bot.datamodel import Claim
from bot.errors import ConfigError
from bot.judge.prompts import PAPER, REFBOT, template_by_id
from conftest import SHARED

METHOD = SHARED / "docs" / "method.md"


def test_paper_template_reproduces_the_published_prompt_exactly():
    if not METHOD.exists():
        pytest.skip(f"method description not found at {METHOD}")
    method = METHOD.read_text(encoding="utf-8")
    published = re.search(r"User prompt[^\n]*\n```\n(.*?)\n```", method, re.S).group(1)
    expected = (published.replace('"SUBJECT"', '"Marie Curie"').replace('"PREDICATE"', '"award received"')
                .replace('"OBJECT"', '"Nobel Prize in Physics"').replace('"SNIPPET"', '"She won it in 1903."'))
    messages = PAPER.messages(Claim("Marie Curie", "award received", "Nobel Prize in Physics"), "She won it in 1903.")
    assert messages[1]["content"] == expected
    system = re.search(r"System prompt: `([^`]*)`", method).group(1)
    assert messages[0] == {"role": "system", "content": system}
    assert PAPER.generation.as_request() == {"max_tokens": 500, "temperature": 0.1, "top_p": 0.9, "seed": 42}
    assert dict(PAPER.option_support)["a"] == 1.0 and dict(PAPER.option_support)["b"] < 1.0


def test_snippets_with_braces_and_quotes_are_inserted_verbatim():
    snippet = 'A {weird} "snippet" with {placeholders} and \\ backslashes'
    for template in (PAPER, REFBOT):
        assert snippet in template.messages(Claim("s", "p", "o"), snippet)[1]["content"]


def test_a_predicate_description_is_shown_only_when_known():
    with_description = REFBOT.messages(Claim("s", "member of", "o", "organisation the subject belongs to"), "x")
    assert "organisation the subject belongs to" in with_description[1]["content"]
    assert "(member of:" not in REFBOT.messages(Claim("s", "member of", "o"), "x")[1]["content"]


def test_unknown_template_names_the_choices():
    with pytest.raises(ConfigError, match="paper, refbot"):
        template_by_id("fancy")


def test_refbot_asks_the_same_question_for_a_contrasting_relation():
    from bot.datamodel import Relation
    from bot.judge.prompts import as_relation

    negative = Relation("Negative_Correlation", "one falls as the other rises")
    claim = Claim("aspirin", "Positive_Correlation", "headache", "one rises with the other", (negative,))
    asked = REFBOT.messages(claim, "Aspirin relieved headache.")[1]["content"]
    rival = REFBOT.messages(as_relation(claim, negative), "Aspirin relieved headache.")[1]["content"]
    assert 'Claim: "aspirin" - positive correlation - "headache" (positive correlation: one rises with' in asked
    assert 'Claim: "aspirin" - negative correlation - "headache" (negative correlation: one falls as' in rival
    assert asked.split("Claim:")[0] == rival.split("Claim:")[0], "the snippet prefix is shared"
    assert PAPER.messages(claim, "x")[1]["content"].count('"Positive_Correlation"') == 1


def test_contrasting_relations_are_compared_as_continuations_of_the_text():
    from bot.datamodel import Relation
    from bot.judge.prompts import summary_continuation, summary_prefix

    negative = Relation("Negative_Correlation", "one falls as the other rises", "decreases")
    claim = Claim("aspirin", "Positive_Correlation", "headache", "", (negative,), "increases")
    assert summary_prefix(claim, "Aspirin relieved headache.") == "Aspirin relieved headache.\n\nIn summary, aspirin"
    assert summary_continuation(claim, claim.relation) == " increases headache"
    assert summary_continuation(claim, negative) == " decreases headache"
    assert summary_continuation(claim, Relation("Bind")) == " bind headache"


def test_a_claim_with_a_phrase_is_asked_as_the_sentence_a_text_would_state():
    from bot.judge.prompts import REFBOT

    claim = Claim("France", "capital", "Paris", "seat of government", (), "'s capital is", as_sentence=True)
    user = REFBOT.messages(claim, "Paris is the capital of France.")[1]["content"]
    assert "Claim: France's capital is Paris." in user and "seat of government" not in user
    for plain in (Claim("France", "capital", "Paris", "seat of government"),  # no phrase, or one made from a label
                  Claim("France", "capital", "Paris", "seat of government", (), "'s capital is")):
        triple = REFBOT.messages(plain, "t")[1]["content"]
        assert 'Claim: "France" - capital - "Paris" (capital: seat of government)' in triple
    assert "[user, when the relation has a phrase]" in REFBOT.text


def test_a_text_in_another_language_is_said_to_be_so_before_the_question_and_an_english_one_is_asked_as_before():
    claim = Claim("Sacramento Heatwave", "headquarters location", "California", "", (), "has its headquarters in",
                  as_sentence=True)
    german = "Die Sacramento Heatwave ist ein Team der American Basketball Association mit Sitz in Kalifornien."
    english = "The Sacramento Heatwave is an American Basketball Association team based in Sacramento, California."
    note = "The text may be in another language. Does the text state this claim?"
    assert note in REFBOT.messages(claim, german)[1]["content"]
    asked = REFBOT.messages(claim, english)[1]["content"]
    assert asked.endswith("\n\nDoes the text state this claim? Answer yes or no.") and "another language" not in asked
    # Too short to tell its language: asked as before. The published prompt is never changed.
    assert "another language" not in REFBOT.messages(claim, "Sitz: Kalifornien")[1]["content"]
    assert "another language" not in PAPER.messages(claim, german)[1]["content"]
    assert "[note, when the text is not in English]" in REFBOT.text
