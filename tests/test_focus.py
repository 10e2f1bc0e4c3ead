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


def _cued(predicate: str, phrase: str, value: str, text: str, subject: str = "Conyers Middleton") -> list[str]:
    from bot.datamodel import Claim, Value
    from bot.judge.focus import ranked_others
    from bot.values import other_values

    claim = Claim(subject, predicate, value, predicate_phrase=phrase, value=Value("time", value, value))
    return [other.found.form for other in ranked_others(claim, text, other_values(claim.value, text)) if other.named]


def test_a_life_span_after_a_name_gives_the_years_of_birth_and_death():
    catalogue = "creatorOf. Middleton, Conyers, 1683-1750. An examination of the Ld."
    assert _cued("date of birth", "was born on", "1677-12-27", catalogue) == ["1683"]
    assert _cued("date of death", "died on", "1757-07-28", catalogue) == ["1750"]
    assert _cued("date of birth", "was born on", "1677-12-27", "Conyers Middleton (1683–1750) was a clergyman.") \
        == ["1683"]
    assert _cued("date of birth", "was born on", "1878-10-25", "Russell, Henry Norris, 1877- . Papers.",
                 "Henry Norris Russell") == ["1877"]
    assert _cued("date of death", "died on", "1866-01-26",
                 "Guérin-Méneville, F.-É. (Félix-Édouard), 1799-1874.", "Félix Édouard Guérin-Méneville") == ["1874"]


def test_years_that_are_no_life_span_name_no_birth():
    assert _cued("date of birth", "was born on", "1677-12-27", "The archive holds papers, 1894-1956.") == []
    assert _cued("date of birth", "was born on", "1677-12-27", "Middleton, Conyers, 1683-1850.") == []  # 167 years
    assert _cued("date of birth", "was born on", "1677-12-27", "He wrote it in 1683 and 1750.") == []


def test_a_span_after_another_name_is_no_life():
    assert _cued("date of birth", "was born on", "1677-12-27",
                 "From the guide to the Conyers Middleton Papers, 1894-1956, 1894-1980.") == []
    assert _cued("date of birth", "was born on", "1677-12-27", "Middleton 1683-1750.") == ["1683"]


def test_full_dates_of_a_life_span_and_an_infoboxs_label_name_birth_and_death():
    kane = "Admiral Sir Henry Coey Kane (15 December, 1843 – 30 January, 1917) was an officer of the Royal Navy."
    assert _cued("date of death", "died on", "1916-01-30", kane, "Henry Coey Kane") == ["30 January, 1917"]
    assert _cued("date of birth", "was born on", "1843-12-16", kane, "Henry Coey Kane") == ["15 December, 1843"]
    infobox = "Left by a reader on 18 Oct 2021.\nDeath. 3 Mar 1983 (aged 75) Brussels."
    assert _cued("date of death", "died on", "1986-03-03", infobox, "Hergé") == ["3 Mar 1983"]
    # Another person's dates in a parenthesis, a label that names another property.
    assert _cued("date of death", "died on", "1916-01-30", "Her father (1 May 1801 – 2 June 1870) was a judge.",
                 "Henry Coey Kane") == []
    assert _cued("date of death", "died on", "1986-03-03", "Published.\n3 Mar 1983.", "Hergé") == []


def test_a_date_at_the_values_precision_is_asked_before_a_coarser_one():
    from bot.datamodel import Value
    from bot.values import other_values

    died = Value("time", "+1990-10-14T00:00:00Z/11", "1990-10-14")
    text = "Born in March 1922, president from 1961. Died: October 14, 1999 (aged 77) London."
    assert [found.form for found in other_values(died, text, 2)] == ["October 14, 1999", "March 1922"]


def test_a_word_of_the_property_names_the_values_near_it_not_every_value_of_its_sentence():
    # A line of label–value pairs is one sentence: "Death" names the year after it, not the year of birth before.
    register = ("Last Name Novotná First Name Marta Date of Birth 1921 Place of Birth Brno Father Karel "
                "Date of Death 1990")
    assert _cued("date of death", "died on", "1987-06-09", register, "Marta Novotná") == ["1990"]
    # Nor across a bracket: the life span's death date does not name the year of an office held after it.
    opening = "Marta Novotná (born 1921—died 9 May 1990), first head of the Brno Quartet (1961), was a violinist."
    assert _cued("date of death", "died on", "1987-06-09", opening, "Marta Novotná") == ["9 May 1990"]


def test_a_long_words_stem_is_longer_than_five_letters():
    from bot.datamodel import Claim, Value
    from bot.judge.focus import property_words, stem

    published = Claim("Notes on Brno", "publication date", "1987", value=Value("time", "1987", "1987"))
    assert property_words(published) == ("publication", "published")
    assert [stem(word) for word in property_words(published)] == ["publicat", "publis"]
    assert _cued("publication date", "", "1987-06-09", "Novák earned a degree in public administration in 1948.",
                 "Notes on Brno") == []
    assert _cued("publication date", "", "1987-06-09", "Notes on Brno was published in 1948.", "Notes on Brno") \
        == ["1948"]
