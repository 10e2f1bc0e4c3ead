from bot.judge.focus import focus

ABSTRACT = ("Aspirin and headache: a trial.Headache is common. We enrolled 200 adults. "
            "Aspirin relieved headache within two hours. Placebo did not. Aspirin was well tolerated.")


def test_long_snippets_are_reduced_to_the_sentences_naming_both_entities():
    assert focus(ABSTRACT, "aspirin", "headache") == ("Aspirin and headache: a trial. … "
                                                      "Aspirin relieved headache within two hours.")


def test_when_no_sentence_names_both_those_naming_either_are_kept():
    assert focus(ABSTRACT, "placebo", "adults") == "We enrolled 200 adults. … Placebo did not."


def test_short_snippets_and_snippets_naming_neither_are_left_whole():
    short = "She won the prize in 1903. Marie Curie was the first woman to do so."
    assert focus(short, "Marie Curie", "Nobel Prize") == short
    assert focus(ABSTRACT, "ibuprofen", "fever") == ABSTRACT
