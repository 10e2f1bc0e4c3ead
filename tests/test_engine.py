"""How the judge weighs a claim against its contrasting relations, on constructed log-likelihoods.

The backend is scripted (bot.judge.scripted, as httpx's MockTransport scripts a server): it answers P(yes) and each
phrase's token log-probabilities from a table, so the comparison itself is what is tested. The real models are
exercised in test_transformers_backend and test_openai_backend.
"""

from __future__ import annotations

from dataclasses import replace

import pytest

from bot.checking.judging import Strategy, queue
from bot.datamodel import Claim, Paragraph, Relation, Statement, Value, Verdict
from bot.judge.engine import ACROSS_ALPHABETS, Judge
from bot.judge.prompts import REFBOT
from bot.judge.scripted import ScriptedBackend

RECEIVED = Relation("award received", "", "received")
NOMINATED = Relation("nominated for", "", "was nominated for")
TEXT = "Marta Novotná was nominated for the European Catalysis Medal, which went to Pieter Janssens."


def judge(backend: ScriptedBackend) -> Judge:
    return Judge(backend, REFBOT, justify=False)


def rendered(backend: ScriptedBackend) -> list[bool]:
    """Whether each prefix read was a rendered chat prompt."""
    return [call.rendered for call in backend.asked("continuation_logprobs")]


def claim(*alternatives: Relation) -> Claim:
    return Claim("Marta Novotná", "award received", "European Catalysis Medal", "", alternatives, "received",
                 as_sentence=True)


def test_a_longer_phrase_the_text_predicts_is_not_beaten_for_its_length():
    # "was nominated for" is four tokens to "received"'s one, but the text predicts each of them.
    backend = ScriptedBackend(0.9, logprobs={
        "received European Catalysis Medal": (-2.5, -0.1),
        "was nominated for European Catalysis Medal": (-0.9, -0.2, -0.1, -0.1)})
    judgement = judge(backend).judge(claim(NOMINATED), TEXT)
    received, nominated = judgement.compared
    assert (received.label, nominated.label) == ("award received", "nominated for")
    assert (received.phrase, nominated.phrase) == ("received European Catalysis Medal",
                                                   "was nominated for European Catalysis Medal")
    assert received.score == pytest.approx(-2.6) and nominated.score == pytest.approx(-1.3)
    assert received.share == pytest.approx(1 / (1 + 2.718281828 ** 1.3), abs=1e-4)
    assert received.share + nominated.share == pytest.approx(1.0)
    assert judgement.support == pytest.approx(received.share, abs=1e-5)
    assert judgement.verdict is Verdict.NOT_INFERRABLE and not judgement.supported
    assert "against nominated for" in judgement.answer


def test_one_prefix_per_paragraph_and_the_claim_asked_as_a_sentence():
    backend = ScriptedBackend(0.9, logprobs={
        "received European Catalysis Medal": (-0.2, -0.1),
        "was nominated for European Catalysis Medal": (-3.0, -2.0, -0.1, -0.1)})
    judgement = judge(backend).judge(claim(NOMINATED), "Novotná received the European Catalysis Medal in 2020.")
    assert judgement.supported and judgement.compared[0].share > 0.99
    assert len(backend.prefixes) == 2 and all(p.endswith("In summary, Marta Novotná") for p in backend.prefixes)
    assert "Claim: Marta Novotná received European Catalysis Medal." in backend.questions[0]


def test_two_summaries_are_weighed_both_beginning_as_the_question_does():
    # The text's own summary says "received", the model's says "was nominated for": each relation scores the
    # mean of its two log-probabilities.
    received_, nominated_ = "received European Catalysis Medal", "was nominated for European Catalysis Medal"
    texts = {received_: (-0.2,), nominated_: (-3.0,)}
    models = {received_: (-2.0,), nominated_: (-0.4,)}  # after the request for a summary, answered
    backend = ScriptedBackend(0.9, logprobs=lambda prefix, continuation: (
        models if "Summarise the text" in prefix else texts)[continuation])
    judgement = judge(backend).judge(claim(NOMINATED), TEXT)
    received, nominated = judgement.compared
    assert received.score == pytest.approx(-1.1) and nominated.score == pytest.approx(-1.7)
    summary = backend.render(REFBOT.summary_messages(TEXT))
    question = backend.render([{"role": "system", "content": REFBOT.system},
                               {"role": "user", "content": backend.questions[0]}])
    assert summary is not None and question is not None
    assert backend.prefixes == [summary[: summary.index(TEXT) + len(TEXT)] + "\n\nIn summary, Marta Novotná",
                                summary + "In summary, Marta Novotná"] and rendered(backend) == [True, True]
    # All three begin with the system prompt and the text: a backend keeping the last prompt's cache reads them once.
    shared = question[: question.index(TEXT) + len(TEXT)]
    assert all(prefix.startswith(shared) for prefix in backend.prefixes)
    assert summary.endswith("Summarise the text in one sentence.<|im_end|>\n<|im_start|>assistant\n")
    # A backend that cannot render its prompts is given the text alone, as a plain language model reads it.
    plain = ScriptedBackend(0.9, logprobs={
        "received European Catalysis Medal": (-0.2,),
        "was nominated for European Catalysis Medal": (-3.0,)}, chat_template=None)
    judge(plain).judge(claim(NOMINATED), TEXT)
    assert plain.prefixes == [TEXT + "\n\nIn summary, Marta Novotná"] and rendered(plain) == [False]


def test_when_the_model_doubts_the_claim_the_share_cannot_raise_it():
    backend = ScriptedBackend(0.3, logprobs={
        "received European Catalysis Medal": (-0.2,),
        "was nominated for European Catalysis Medal": (-5.0,)})
    judgement = judge(backend).judge(claim(NOMINATED), TEXT)
    assert judgement.compared[0].share > 0.99
    assert judgement.support == pytest.approx(0.3) and not judgement.supported
    assert judgement.p_yes == pytest.approx(0.3)  # recorded apart from the support, for a learned verdict


def test_without_contrasts_the_claim_is_judged_alone():
    backend = ScriptedBackend(0.8)
    judgement = judge(backend).judge(claim(), TEXT)
    assert backend.prefixes == [] and judgement.compared == ()
    assert judgement.support == pytest.approx(0.8) and judgement.supported


def test_a_relation_with_other_phrasings_counts_by_its_best_one_in_the_same_prefix():
    # "Beneš also teaches … he has led guest studios at the university": "taught at" is how the text would be
    # summarised, not "worked at", so the employer wins although its first phrase alone would not.
    studied = Relation("educated at", "", "studied at", ("graduated from",))
    employer = Relation("employer", "", "worked at", ("taught at",))
    backend = ScriptedBackend(0.7, logprobs={
        "studied at CTU": (-1.5, -0.5), "graduated from CTU": (-2.0, -0.5),
        "worked at CTU": (-2.0, -0.5), "taught at CTU": (-0.3, -0.5)})
    teacher = Claim("Tomáš Beneš", "educated at", "CTU", "", (employer,), "studied at", ("graduated from",),
                    as_sentence=True)
    judgement = judge(backend).judge(teacher, "Beneš also teaches guest studios at CTU.")
    assert len(backend.prefixes) == 2  # the text's own summary and the model's, each read once for all phrasings
    claimed, other = judgement.compared
    assert (claimed.phrase, claimed.score) == ("studied at CTU", pytest.approx(-2.0))
    assert (other.label, other.phrase, other.score) == ("employer", "taught at CTU", pytest.approx(-0.8))
    assert claimed.share == pytest.approx(1 / (1 + 2.718281828 ** 1.2), abs=1e-4) and not judgement.supported
    assert studied == teacher.relation


def test_a_date_is_looked_for_and_asked_about_as_the_text_writes_it():
    born = Value("time", "+1943-01-14T00:00:00Z/11", "1943-01-14")
    birth = Claim("Marta Novotná", "date of birth", "1943-01-14", "", (Relation("date of death", "", "died on"),),
                  "was born on", as_sentence=True, value=born)
    backend = ScriptedBackend(0.9, logprobs={"was born on 14. ledna 1943": (-0.5,), "died on 14. ledna 1943": (-4.0,)})
    judgement = judge(backend).judge(birth, "Marta Novotná se narodila 14. ledna 1943 v Brně.")
    assert judgement.supported and judgement.compared[0].phrase == "was born on 14. ledna 1943"
    assert "Claim: Marta Novotná was born on 14. ledna 1943." in backend.questions[0]
    assert (judgement.written, judgement.written_form) == ("date", "14. ledna 1943")


def test_a_name_written_by_its_sound_in_another_alphabet_is_asked_about_beside_its_label():
    creator = Claim("The Arrow", "creator", "Paul Gustavson", value=Value("wikibase-item", "Q7", "Paul Gustavson"))
    backend = ScriptedBackend(0.9)
    judgement = judge(backend).judge(creator, 'Пол Густавсон создал комикс "Стрела" в 1938 году.')
    assert judgement.supported and (judgement.written, judgement.written_form) == ("label, transcribed",
                                                                                   "Пол Густавсон")
    assert "Paul Gustavson (Пол Густавсон)" in backend.questions[0]
    # A name the text writes in the label's letters is asked about as it is.
    backend = ScriptedBackend(0.9)
    judge(backend).judge(creator, 'Paul Gustavson создал комикс "Стрела" в 1938 году.')
    assert "(Paul Gustavson)" not in backend.questions[0] and "Paul Gustavson" in backend.questions[0]


def test_a_value_the_text_does_not_write_is_never_supported_and_the_model_is_not_asked():
    backend = ScriptedBackend(0.99)
    claim = Claim("Marta Novotná", "country of citizenship", "Czech Republic",
                  value=Value("wikibase-item", "Q213", "Czech Republic"))
    judgement = judge(backend).judge(claim, "She was born in Brno.")
    assert backend.questions == [] and judgement.verdict is Verdict.NOT_INFERRABLE and judgement.support == 0.0
    assert judgement.written == "" and 'does not write "Czech Republic"' in judgement.answer


def test_a_text_in_another_alphabet_that_cannot_write_an_english_label_is_asked_about_it():
    # "Военно-воздушные силы" is the Royal Air Force translated: no form of the English label can be in the text.
    unit = Claim("Brian Kingcome", "military branch", "Royal Air Force",
                 value=Value("wikibase-item", "Q165862", "Royal Air Force"))
    russian = "Брайан Кингком служил в Военно-воздушных силах во время Второй мировой войны."
    backend = ScriptedBackend(0.9)
    judgement = judge(backend).judge(unit, russian)
    assert judgement.supported and len(backend.questions) == 1 and "Royal Air Force" in backend.questions[0]
    assert (judgement.written, judgement.written_form) == (ACROSS_ALPHABETS, "")
    # What the model says still decides.
    assert not judge(ScriptedBackend(0.1)).judge(unit, russian).supported


def test_a_page_in_another_alphabet_has_its_best_units_about_the_subject_judged_for_an_english_label():
    """``refbot check`` queues the units of a page that write the value; a Russian page cannot write "Royal Air
    Force", so its best units about the subject are judged besides, at most ``Strategy.across``."""
    value = Value("wikibase-item", "Q165862", "Royal Air Force")
    statement = Statement("Q990400", "Brian Kingcome", "Q990400$M", "P241", "military branch", value)
    russian = ["Брайан Кингком служил в Военно-воздушных силах во время войны.", "Брайан Кингком родился в Калькутте.",
               "Брайан Кингком командовал эскадрильей.", "Погода в Лондоне была хорошей."]
    english = ["Brian Kingcome served in the air force during the war.", "Brian Kingcome was born in Calcutta."]

    def paragraphs(texts: list[str]) -> list[Paragraph]:
        return [Paragraph(text, "https://wings.example", position, 0, len(text)) for position, text in enumerate(texts)]
    chosen = queue(paragraphs(russian), statement, Strategy(), title="Брайан Кингком")
    assert len(chosen) == 2 and all("Кингком" in entry.paragraph.text for entry in chosen)
    assert queue(paragraphs(russian), statement, Strategy(across=0), title="Брайан Кингком") == []
    assert queue(paragraphs(english), statement, Strategy(), title="Brian Kingcome") == []
    # With value_words, an English page writing a word of the label ("the air force") has that unit judged.
    worded, = queue(paragraphs(english), statement, Strategy(value_words=1), title="Brian Kingcome")
    assert worded.paragraph.text == english[0]


@pytest.mark.parametrize("text, value", [
    # A text in Latin letters could have written the label: not writing it stays a refusal.
    ("Brian Kingcome diente während des Zweiten Weltkriegs in der Luftwaffe.",
     Value("wikibase-item", "Q165862", "Royal Air Force")),
    # A Russian name of the value is known (an alias in Cyrillic): the text does not write it.
    ("Брайан Кингком служил в армии во время Второй мировой войны.",
     Value("wikibase-item", "Q165862", "Royal Air Force", aliases=("Королевские военно-воздушные силы",))),
    # CLDR names the country in Russian: a text that does not write "Чехия" does not name it.
    ("Брайан Кингком служил в армии во время Второй мировой войны.", Value("wikibase-item", "Q213", "Czechia")),
    # An English paragraph quoting a Russian title is in Latin letters.
    ("Brian Kingcome wrote «Война» about the war in the air.", Value("wikibase-item", "Q165862", "Royal Air Force")),
])
def test_a_text_that_could_write_the_value_and_does_not_is_still_refused_unasked(text, value):
    backend = ScriptedBackend(0.99)
    claim = Claim("Brian Kingcome", "military branch", value.text, value=value)
    judgement = judge(backend).judge(claim, text)
    assert backend.questions == [] and not judgement.supported and judgement.written == ""


BIRTH = Claim("Marta Novotná", "date of birth", "1912-03-03", "", (Relation("date of death", "", "died on"),),
              "was born on", as_sentence=True, value=Value("time", "+1912-03-03T00:00:00Z/11", "1912-03-03"))


def test_another_date_of_birth_on_the_page_contradicts_the_statement():
    backend = ScriptedBackend(0.9, logprobs={
        "was born on 3 March 1921": (-0.5,), "died on 3 March 1921": (-4.0,),
        "was born on 9 May 1990": (-4.0,), "died on 9 May 1990": (-0.5,)})
    text = "She retired in 1985. Marta Novotná died on 9 May 1990. Marta Novotná was born on 3 March 1921 in Brno."
    judgement = judge(backend).judge(BIRTH, text)
    assert judgement.verdict is Verdict.CONTRADICTS and not judgement.supported and judgement.support == 0.0
    # The date in the sentence naming the property is asked first, and it is the one the page gives for it.
    assert "Claim: Marta Novotná was born on 3 March 1921." in backend.questions[0] and len(backend.questions) == 1
    assert judgement.contradiction.form == "3 March 1921"
    assert judgement.contradiction.sentence == "Marta Novotná was born on 3 March 1921 in Brno."
    assert judgement.contradiction.support > 0.9 and judgement.prompt_tokens > 0
    assert judgement.p_yes is None  # the model was asked about the page's other date, not the claim's


def test_another_date_the_page_gives_for_another_property_is_no_contradiction():
    backend = ScriptedBackend(0.9, logprobs={"was born on 9 May 1990": (-4.0,), "died on 9 May 1990": (-0.5,)})
    judgement = judge(backend).judge(BIRTH, "Marta Novotná, born in Brno, died on 9 May 1990.")
    assert judgement.verdict is Verdict.NOT_INFERRABLE and judgement.contradiction is None
    assert '"9 May 1990"' in judgement.answer and judgement.support == 0.0 and len(backend.questions) == 1


@pytest.mark.parametrize("text", ["Marta Novotná died on 9 May 1990 in Brno.",
                                  "| archivedate = 2022-03-08 }} Obituary of Marta Novotná."])
def test_a_date_in_a_sentence_that_does_not_name_the_property_is_not_asked_about(text):
    backend = ScriptedBackend(0.9)
    judgement = judge(backend).judge(BIRTH, text)
    assert backend.questions == [] and judgement.verdict is Verdict.NOT_INFERRABLE


def test_a_registers_abbreviation_names_the_property():
    backend = ScriptedBackend(0.9, logprobs={"was born on 12 December 1855": (-0.5,),
                                             "died on 12 December 1855": (-4.0,)})
    judgement = judge(backend).judge(BIRTH, "Marta Novotná, #333436, b. 12 December 1855, d. 28 June 1931.")
    assert judgement.verdict is Verdict.CONTRADICTS and judgement.contradiction.form == "12 December 1855"


def test_another_years_figure_of_a_property_that_changes_over_time_is_no_contradiction():
    backend = ScriptedBackend(0.9)
    revenue = Value("quantity", "4915361U4917", "4915361 United States dollar")
    claim = Claim("Island Institute", "total revenue", revenue.text, value=revenue, time_varying=True)
    judgement = judge(backend).judge(claim, "Island Institute's total revenue in FY2018 was $5,924,346.")
    assert backend.questions == [] and judgement.verdict is Verdict.NOT_INFERRABLE


@pytest.mark.parametrize("value", [Value("quantity", "85868U1", "85868 gross tonnage"),
                                   Value("wikibase-item", "Q1", "Member of the 1558 Parliament")])
def test_a_number_the_text_does_not_write_is_not_asked_about(value):
    backend = ScriptedBackend(0.9)
    claim = Claim("Queen Mary 2", "p", value.text, value=value)
    judgement = judge(backend).judge(claim, "Its sister ship sat in the 1559 Parliament, 1,200 years on.")
    assert judgement.prompt_tokens == 0 and backend.questions == [] and not judgement.supported


def test_another_amount_on_the_page_is_asked_about_and_contradicts_when_the_model_gives_it():
    backend = ScriptedBackend(0.9)
    tonnage = Value("quantity", "85868U1", "85868 gross tonnage")
    judgement = judge(backend).judge(Claim("Queen Mary 2", "gross tonnage", tonnage.text, value=tonnage),
                                     "Queen Mary 2 has a gross tonnage of 148,528 GT.")
    # (the sentence names the property: "tonnage")
    assert judgement.verdict is Verdict.CONTRADICTS and judgement.contradiction.form == "148,528"
    assert "Claim: Queen Mary 2 gross tonnage 148,528" in backend.questions[0].replace('"', "").replace(" -", "")


def test_the_calibrated_support_decides_and_a_band_below_the_threshold_is_undecided():
    from bot.judge.calibration import Calibration, Curve

    calibration = Calibration("scripted", "refbot", {"all": Curve((0.0, 1.0), (0.0, 0.78))}, accept=0.8,
                              undecided=0.5)
    text = "Marta Novotná is a woman from Brno."
    claim = Claim("Marta Novotná", "sex or gender", "woman", value=Value("wikibase-item", "Q6581072", "woman"))
    undecided = Judge(ScriptedBackend(0.9), REFBOT, justify=False, calibration=calibration).judge(claim, text)
    assert undecided.support == pytest.approx(0.9) and undecided.calibrated == pytest.approx(0.702)
    assert undecided.verdict is Verdict.INDICATES and undecided.undecided and not undecided.supported
    rejected = Judge(ScriptedBackend(0.4), REFBOT, justify=False, calibration=calibration).judge(claim, text)
    assert rejected.verdict is Verdict.NOT_INFERRABLE and rejected.calibrated == pytest.approx(0.312)
    # An operator's threshold overrides the calibration's.
    lenient = Judge(ScriptedBackend(0.9), REFBOT, justify=False, calibration=calibration, threshold=0.7)
    assert lenient.threshold == 0.7 and lenient.judge(claim, text).supported
    assert Judge(ScriptedBackend(0.9), REFBOT, calibration=calibration).threshold == 0.8


REGISTRY = Claim("Ramble On", "country of registry", "Panama", "", (), "is registered in", as_sentence=True,
                 value=Value("wikibase-item", "Q804", "Panama"), single_valued=True)


def test_another_country_of_registry_on_the_page_contradicts_a_single_valued_statement():
    backend = ScriptedBackend(0.9)
    text = "Rating: Ramble On is a Yacht built in Italy. She is registered and sailing under the flag of Bermuda."
    judgement = judge(backend).judge(REGISTRY, text)
    # The name in the sentence naming the property ("registered") is asked first, and the model gives it.
    assert judgement.verdict is Verdict.CONTRADICTS and judgement.contradiction.form == "Bermuda"
    assert "Claim: Ramble On is registered in Bermuda." in backend.questions[0] and len(backend.questions) == 1


def test_another_item_for_a_property_with_many_values_is_no_contradiction():
    backend = ScriptedBackend(0.9)
    employer = Claim("Marta Novotná", "employer", "Charles University", value=Value("wikibase-item", "Q31519",
                                                                                    "Charles University"))
    judgement = judge(backend).judge(employer, "Marta Novotná taught at Masaryk University in Brno.")
    assert backend.questions == [] and judgement.verdict is Verdict.NOT_INFERRABLE


def test_a_life_span_after_the_subjects_name_contradicts_a_date_of_birth_in_another_year():
    backend = ScriptedBackend(0.9, logprobs={"was born on 1943": (-0.5,), "died on 1943": (-4.0,)})
    catalogue = "Novotná, Marta, 1943-1990. Papers, 1931-1988."
    judgement = judge(backend).judge(BIRTH, catalogue)
    assert judgement.verdict is Verdict.CONTRADICTS and judgement.contradiction.form == "1943"
    assert backend.questions and all("born on 1931" not in question for question in backend.questions)


def test_a_year_that_holds_the_day_is_no_contradiction():
    backend = ScriptedBackend(0.9)
    judgement = judge(backend).judge(BIRTH, "Novotná, Marta, 1912-1990.")  # the statement's year: less, not other
    assert backend.questions == [] and judgement.verdict is Verdict.NOT_INFERRABLE


@pytest.mark.parametrize("text", ["At his death on 18 March 1906 Lansell was mentioned in all the churches.",
                                  "Richard Hattersley (1877-1949) was born on June 13 in Keighley."])
def test_another_persons_dates_on_a_page_that_never_names_the_subject_are_no_contradiction(text):
    backend = ScriptedBackend(0.9)
    died = replace(BIRTH, predicate="date of death", predicate_phrase="died on", alternatives=())
    for claim in (BIRTH, died):
        judgement = judge(backend).judge(claim, text)
        assert judgement.verdict is Verdict.NOT_INFERRABLE and judgement.contradiction is None
    assert backend.questions == []


def test_the_subjects_family_name_is_enough_to_name_them():
    backend = ScriptedBackend(0.9, logprobs={"was born on 3 March 1921": (-0.5,), "died on 3 March 1921": (-4.0,)})
    judgement = judge(backend).judge(BIRTH, "Novotná was born on 3 March 1921 in Prostějov.")
    assert judgement.verdict is Verdict.CONTRADICTS
