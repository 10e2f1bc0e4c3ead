"""Pre-ranking: paragraphs naming the object and subject first, with or without embeddings."""

from __future__ import annotations

from bot.datamodel import Paragraph, Statement, Value
from bot.checking.ranking import name_score, rank, supporting_sentence
from documents_world import NEWS_PARAGRAPHS

AWARD = Statement("Q36233", "Václav Havel", "Q36233$A1B2", "P166", "award received",
                  Value("wikibase-item", "Q2537841", "Prince of Asturias Award for Communication and Humanities",
                        ("Princess of Asturias Award for Communication and Humanities",)),
                  item_aliases=("Havel",))


def paragraphs(texts):
    return [Paragraph(text, "u", n) for n, text in enumerate(texts)]


def test_the_paragraph_naming_the_object_and_subject_comes_first():
    texts = ["The weather in Oviedo was sunny all week, and the city's cafés were full of visitors from abroad "
             "who came for the festival.", *NEWS_PARAGRAPHS]
    ranked = rank(paragraphs(texts), AWARD)
    assert ranked[0].paragraph.position == 1 and ranked[0].object == 1.0 and ranked[0].subject == 1.0
    assert ranked[0].matched == ("Václav Havel", "Prince of Asturias Award for Communication and Humanities")
    naming = [r.object == 1.0 for r in ranked]
    assert naming == sorted(naming, reverse=True), "every paragraph naming the object ranks above the others"
    assert [r.score for r in ranked] == sorted((r.score for r in ranked), reverse=True)


def test_fuzzy_and_alias_matches_count_and_short_names_need_whole_words():
    assert name_score(["Prince of Asturias Award for Communication and Humanities"],
                      "received the Prince of Asturias Awards for Communication and Humanities")[0] == 1.0
    assert name_score(["Havel"], "the playwright Havel said")[0] == 1.0
    assert name_score(["GR"], "a progressive grant")[0] == 0.0 and name_score(["GR"], "the GR gene")[0] == 1.0
    princess = rank(paragraphs(["In 2015 the Princess of Asturias Award for Communication and Humanities went to "
                                "a Czech dramatist."]), AWARD)[0]
    assert princess.object == 1.0


def test_embeddings_break_ties_between_paragraphs_without_names():
    texts = ["A long list of football results from the regional league, round by round, with scorers.",
             "The jury of the foundation gave its prize for communication to the former president."]

    def embed(batch):
        topics = ("prize", "award", "jury", "president")
        return [[float(sum(text.count(word) for word in topics)), 1.0] for text in batch]
    ranked = rank(paragraphs(texts), AWARD, embed=embed)
    assert ranked[0].paragraph.position == 1 and ranked[0].semantic > ranked[1].semantic


def test_the_supporting_sentence_is_the_one_naming_the_object():
    text = ("The ceremony took place in Oviedo. Václav Havel received the Prince of Asturias Award for "
            "Communication and Humanities from the prince. Afterwards he thanked the jury.")
    assert supporting_sentence(text, AWARD) == ("Václav Havel received the Prince of Asturias Award for "
                                                "Communication and Humanities from the prince.")
