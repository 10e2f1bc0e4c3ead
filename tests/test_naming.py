"""An item the text names another way reaches the judge only through the checked path (bot.judge.naming): the
model's words must be in the text verbatim, must not be the subject's name, and must name the value by a name, a
stem or an embedding similarity refbot can show; the judgement records the words and how they were checked."""

from __future__ import annotations

import pytest

from bot.checking.judging import Strategy, queue, worded_at_most
from bot.checking.ranking import Ranked
from bot.datamodel import Claim, Paragraph, Statement, Value, Verdict
from bot.judge.engine import Judge
from bot.judge.naming import NAMED, Naming, answered, checked, in_words, same_stem, verbatim, worded_sentences
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
    assert queue(paragraphs, statement, Strategy(naming=0, value_words=0), title="Jana Vlková") == []
    # With value_words, only the paragraph writing a word of the value's name in some form ("violist" of "viola").
    worded, = queue(paragraphs, statement, Strategy(naming=0, value_words=1), title="Jana Vlková")
    assert worded.paragraph.text == QUARTET
    born = Statement("Q990300", "Jana Vlková", "Q990300$B", "P569", "date of birth",
                     Value("time", "+1970-00-00T00:00:00Z/9", "1970"))
    assert queue(paragraphs, born, Strategy(naming=2), title="Jana Vlková") == []


@pytest.mark.parametrize("name, text, expected", [
    ("Department of the Treasury", "An Act to provide for first home saver accounts. Administered by: Treasury.", True),
    ("Member of the 1399 Parliament", "He sat in the parliaments of 1397 and 1399 for Bath.", True),
    ("viola", "She was its violist for twenty years.", True),
    ("homicide", "Fajge was murdered in the Shoah.", False),  # only an embedding could show "murdered"
    ("Department of the Treasury", "The weather in Canberra was fine.", False),
    ("art", "She studied the arteries of the heart.", False),  # a word too short to carry a stem
])
def test_a_text_writes_a_word_of_the_values_name_in_some_form(name, text, expected):
    assert in_words(Value("wikibase-item", "Q1", name), text) is expected


def test_a_page_writing_a_word_of_the_items_name_has_one_unit_about_the_subject_judged_with_value_words():
    """Where a page never writes the item whole but writes a word of its name, the best ranked paragraph about the
    subject holding such a word is judged (``Strategy.value_words``), the model naming the words; a paragraph
    holding none is not, and a page holding none costs no judgement."""
    treasury = Value("wikibase-item", "Q1", "Department of the Treasury")
    statement = Statement("Q2", "First Home Saver Accounts Act 2008", "Q2$1", "P126", "maintained by", treasury)
    texts = ["First Home Saver Accounts Act 2008. An Act to provide for first home saver accounts.",
             "First Home Saver Accounts Act 2008. Administered by: Treasury.",
             "First Home Saver Accounts Act 2008. Treasury portfolio, as amended."]
    paragraphs = [Paragraph(text, "https://act.example", position, 0, len(text))
                  for position, text in enumerate(texts)]
    chosen = queue(paragraphs, statement, Strategy(value_words=1), title="First Home Saver Accounts Act 2008")
    assert [entry.paragraph.position for entry in chosen] == [1]
    assert len(queue(paragraphs, statement, Strategy(value_words=2), title="First Home Saver Accounts Act 2008")) == 2
    assert queue(paragraphs, statement, Strategy(), title="First Home Saver Accounts Act 2008") == []  # off by default
    assert queue(paragraphs[:1], statement, Strategy(value_words=1), title="First Home Saver Accounts Act 2008") == []


def test_the_model_names_the_value_in_the_sentences_writing_a_word_of_its_name_and_its_words_are_found_in_all():
    """The naming question holds only the sentences that write a word of the value's name in some form (a fraction
    of a long paragraph's tokens); the words named are then found in the whole paragraph, which the judge reads."""
    text = ("Jana Vlková was born in Olomouc in 1975. She studied at the Brno conservatory under Karel Novák. "
            "She joined the Brno Quartet in 1998 and was its violist for twenty years. She lives in Brno.")
    assert worded_sentences(VIOLA, text) == "She joined the Brno Quartet in 1998 and was its violist for twenty years."
    backend, verdict, written, form, _ = judged("its violist", text=text)
    assert verdict is Verdict.SUPPORTS and (written, form) == (f"{NAMED}: same stem as “viola”", "its violist")
    naming_prompt = backend.asked("complete")[0].prompt
    assert "its violist" in naming_prompt and "Olomouc" not in naming_prompt and "lives in Brno" not in naming_prompt
    question, = backend.questions
    assert "Olomouc" in question  # the judge reads the whole paragraph
    # Where no sentence writes such a word ("murdered" for homicide), the model is asked in the whole text.
    assert worded_sentences(Value("wikibase-item", "Q1", "homicide"), "Fajge was murdered in 1942. She was 20.") == ""


def test_a_name_with_a_number_is_written_in_part_only_where_its_number_is():
    member = Value("wikibase-item", "Q1", "Member of the 1399 Parliament")
    assert in_words(member, "He sat in the parliament of 1399 for Bath.")
    assert not in_words(member, "He sat in the parliament of 1558 for Bath.")


def test_paragraphs_queued_for_a_word_of_the_values_name_are_bounded_per_statement_not_per_document():
    treasury = Value("wikibase-item", "Q1", "Department of the Treasury")
    statement = Statement("Q2", "First Home Saver Accounts Act 2008", "Q2$1", "P126", "maintained by", treasury)

    def page(url: str, text: str) -> list[Ranked]:
        return queue([Paragraph(text, url, 0, 0, len(text))], statement, Strategy(value_words=1),
                     title="First Home Saver Accounts Act 2008")
    one = page("https://a.example", "First Home Saver Accounts Act 2008. Administered by: Treasury.")
    other = page("https://b.example", "First Home Saver Accounts Act 2008. Administered by: Treasury.")
    assert one[0].worded and other[0].worded
    assert [len(entries) for entries in worded_at_most([one, other], 1)] == [1, 0]  # the first of equals
    assert [len(entries) for entries in worded_at_most([other, one[:0]], 1)] == [1, 0]
    assert [len(entries) for entries in worded_at_most([one, other], 2)] == [1, 1]
    assert worded_at_most([one, other], 0) == [[], []]
