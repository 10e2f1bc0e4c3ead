"""An item the text names another way reaches the judge only through the checked path (bot.judge.naming): the
model's words must be in the text verbatim, must not be the subject's name, and must name the value by a name, a
stem or an embedding similarity refbot can show; the judgement records the words and how they were checked."""

from __future__ import annotations

import pytest

from bot.checking.judging import Strategy, queue
from bot.datamodel import Claim, Paragraph, Statement, Value, Verdict
from bot.judge.engine import Judge
from bot.judge.naming import NAMED, Naming, answered, checked, same_stem, verbatim
from bot.judge.prompts import REFBOT
from bot.judge.scripted import ScriptedBackend

QUARTET = "Jana Vlková joined the Brno Quartet in 1998. She was its violist for twenty years."
VIOLA = Value("wikibase-item", "Q80019", "viola")
INSTRUMENT = Claim("Jana Vlková", "instrument", "viola", value=VIOLA)


def naming_backend(answer: str, p_yes: float = 0.9) -> ScriptedBackend:
    """A model that names ``answer`` when asked which words state the value, and says yes with ``p_yes``."""
    return ScriptedBackend(p_yes, completions=lambda prompt: answer if "Which words of the text" in prompt else "")


def judged(answer: str, claim: Claim = INSTRUMENT, text: str = QUARTET, *, p_yes: float = 0.9,
           naming: Naming | None = Naming()) -> tuple[ScriptedBackend, Verdict, str, str, str]:
    backend = naming_backend(answer, p_yes)
    judgement = Judge(backend, REFBOT, justify=False, naming=naming).judge(claim, text)
    return backend, judgement.verdict, judgement.written, judgement.written_form, judgement.answer


@pytest.mark.parametrize("one, other", [("violist", "viola"), ("murdered", "murder"), ("politician", "politics"),
                                        ("pianist", "piano"), ("Journalist", "journalism")])
def test_words_of_one_stem(one, other):
    assert same_stem(one, other) and same_stem(other, one)


@pytest.mark.parametrize("one, other", [("art", "artery"), ("organ", "organization"), ("singer", "single"),
                                        ("France", "French"), ("cellist", "viola")])
def test_words_that_only_begin_alike_are_not_one_stem(one, other):
    assert not same_stem(one, other)


def test_an_answer_gives_its_words_and_each_of_its_parts():
    assert answered('"the violist and composer".') == ["the violist and composer", "the violist", "composer"]
    assert answered('The words are "the violist".')[0] == "the violist"
    assert answered("None.") == [] and answered("") == []
    assert answered("a sentence far too long to be the words that name one value of a property") == []


def test_words_count_only_where_the_text_writes_them_whole():
    assert verbatim("its  VIOLIST", QUARTET) == (QUARTET.index("its violist"), QUARTET.index(" for twenty"))
    assert verbatim("violis", QUARTET) is None and verbatim("viola player", QUARTET) is None


def test_the_violist_supports_the_viola_by_its_stem_and_the_judge_is_asked_the_claim_as_usual():
    backend, verdict, written, form, _ = judged("its violist")
    assert verdict is Verdict.SUPPORTS
    assert (written, form) == (f"{NAMED}: same stem as “viola”", "its violist")
    question, = backend.questions
    assert '"viola"' in question  # the claim as usual, not the model's words
    assert "Jana Vlková's instrument" in backend.asked("complete")[0].prompt


def test_the_model_still_decides_on_the_words_it_named():
    _, verdict, written, form, _ = judged("its violist", p_yes=0.05)
    assert verdict is not Verdict.SUPPORTS and (written, form) == (f"{NAMED}: same stem as “viola”", "its violist")


@pytest.mark.parametrize("answer", [
    "viola player",  # not in the text: the model's own words
    "the Brno Quartet",  # in the text, but names something else
    "Jana Vlková",  # the subject
    "none",
])
def test_words_not_in_the_text_or_naming_something_else_never_support(answer):
    backend, verdict, written, form, said = judged(answer)
    assert verdict is not Verdict.SUPPORTS and (written, form) == ("", "")
    assert backend.questions == []  # the yes/no judge is never asked
    assert said.startswith('not asked: the text does not write "viola"')


def test_an_alias_counts_by_its_stem_and_says_it_was_an_alias():
    alto = Value("wikibase-item", "Q80019", "alto violin", aliases=("viola",))
    claim = Claim("Jana Vlková", "instrument", "alto violin", value=alto)
    _, verdict, written, form, _ = judged("violist", claim)
    assert verdict is Verdict.SUPPORTS and (written, form) == (f"{NAMED}: same stem as “viola” (alias)", "violist")


def test_a_word_of_the_values_name_is_not_its_name():
    representative = Value("wikibase-item", "Q13218630", "United States representative")
    text = "Hora served as a Representative from Ohio."
    assert checked("Representative", text, representative, ("Tomáš Hora",), Naming()) is None
    assert checked("a Representative", text, Value("wikibase-item", "Q1", "representative"), (), Naming()) \
        is not None


def test_without_the_checked_path_a_text_naming_the_item_another_way_never_supports():
    backend, verdict, written, _, _ = judged("its violist", naming=None)
    assert verdict is not Verdict.SUPPORTS and written == ""
    assert backend.calls == []


def test_a_date_is_never_named_by_the_model():
    born = Claim("Jana Vlková", "date of birth", "1970", value=Value("time", "+1970-00-00T00:00:00Z/9", "1970"))
    backend, verdict, _, _, _ = judged("in 1998", born)
    assert verdict is not Verdict.SUPPORTS and backend.asked("complete") == []


def embedding(vectors: dict[str, list[float]]):
    """An embedding model that knows a few words (the rest point nowhere near them)."""
    return lambda texts: [vectors.get(text.casefold(), [0.0, 0.0, 1.0]) for text in texts]


LAWYER = Claim("Tomáš Hora", "occupation", "lawyer", value=Value("wikibase-item", "Q40348", "lawyer"))
ATTORNEY = "Tomáš Hora worked as an attorney in Olomouc before he entered politics."


def test_an_embedding_similar_enough_names_the_value_and_one_less_similar_does_not():
    vectors = {"an attorney": [0.9, 0.1, 0.0], "lawyer": [1.0, 0.0, 0.0], "politics": [0.2, 1.0, 0.0]}
    near = Naming(embedding(vectors), threshold=0.95)
    _, verdict, written, form, _ = judged("an attorney", LAWYER, ATTORNEY, naming=near)
    assert verdict is Verdict.SUPPORTS and (written, form) == (f"{NAMED}: embedding similarity 0.99 to “lawyer”",
                                                               "an attorney")
    assert checked("politics", ATTORNEY, LAWYER.value, ("Tomáš Hora",), near) is None
    assert checked("an attorney", ATTORNEY, LAWYER.value, ("Tomáš Hora",), Naming(embedding(vectors), 0.995)) is None


def test_a_page_that_never_writes_the_item_has_its_best_units_about_the_subject_judged():
    """Besides the paragraphs giving another value, the best ranked about the subject are judged, at most
    ``Strategy.naming``: the model may name the value in their words."""
    statement = Statement("Q990300", "Jana Vlková", "Q990300$I", "P1303", "instrument", VIOLA)
    texts = [QUARTET, "Jana Vlková taught at the conservatory.", "Jana Vlková recorded three albums.",
             "The weather in Brno was fine."]
    paragraphs = [Paragraph(text, "https://quartet.example", position, 0, len(text))
                  for position, text in enumerate(texts)]
    chosen = queue(paragraphs, statement, Strategy(naming=2), title="Jana Vlková")
    assert len(chosen) == 2 and all("Jana Vlková" in entry.paragraph.text for entry in chosen)
    assert queue(paragraphs, statement, Strategy(naming=0), title="Jana Vlková") == []
    born = Statement("Q990300", "Jana Vlková", "Q990300$B", "P569", "date of birth",
                     Value("time", "+1970-00-00T00:00:00Z/9", "1970"))
    assert queue(paragraphs, born, Strategy(naming=2), title="Jana Vlková") == []
