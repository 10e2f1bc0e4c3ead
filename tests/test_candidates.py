"""Candidate documents: cited sources near the value first, search results after, no repeats, a cap."""

from __future__ import annotations

from bot.checking.candidates import from_article, from_search, merge
from bot.datamodel import Statement, Value
from bot.documents.citations import ArticleParagraph, Citation
from bot.documents.search import SearchResult

AWARD = Statement("Q990201", "Marta Novotná", "Q990201$B", "P166", "award received",
                  Value("wikibase-item", "Q990212", "Brno Innovation Award"))


def test_the_citation_after_the_sentence_naming_the_value_comes_first():
    text = ("Novotná studied in Prague. She received the Brno Innovation Award in 2019. "
            "She lives in Brno.")
    first_end, second_end = text.index(" She received"), text.index(" She lives")
    paragraph = ArticleParagraph(3, text, "Career", (
        Citation("cite_note-1", url="https://a.example/studies"),
        Citation("cite_note-2", url="https://b.example/award", access_date="2019-06-14", title="Award"),
        Citation("cite_note-3", url="https://c.example/home"), Citation("cite_note-4")),
        (("cite_note-1", first_end), ("cite_note-2", second_end), ("cite_note-4", second_end),
         ("cite_note-3", len(text))))
    unrelated = ArticleParagraph(1, "Novotná was born in Olomouc.", "", (Citation("n", url="https://d.example"),),
                                 (("n", 10),))
    found = from_article([unrelated, paragraph], AWARD)
    assert [c.url for c in found] == ["https://b.example/award", "https://a.example/studies",
                                      "https://c.example/home"]
    assert found[0].access_date.isoformat() == "2019-06-14" and found[0].cited_in == 3
    assert found[0].origin == "wikipedia" and found[0].title == "Award"


def test_merge_keeps_order_drops_repeats_and_caps():
    cited = from_article([], AWARD)
    search = from_search([SearchResult("https://x.example/a", "A"), SearchResult("https://x.example/a/", "A again"),
                          SearchResult("https://y.example/b#top", "B"), SearchResult("https://z.example/c")])
    merged = merge(cited, search, limit=2)
    assert [(c.url, c.rank) for c in merged] == [("https://x.example/a", 1), ("https://y.example/b#top", 3)]
