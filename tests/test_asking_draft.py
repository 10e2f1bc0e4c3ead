"""The draft query `refbot select --ask` gives the model to start from, built from the linked terms alone: which
property's statements are the target, which terms the question negates, each item by its usual pattern."""

from __future__ import annotations

from bot.asking.draft import draft, negated, target
from bot.asking.fragment import Triple
from bot.asking.linking import Link, words


def linked(question: str, *terms: tuple[str, str, bool, str]) -> list[Link]:
    """Links for ``terms`` (kind, id, citation needed) at the words the question spells them with: the id's
    ``words`` are found in the question, as link() would have found them."""
    tokens = [word.casefold() for word in words(question)]
    found = []
    for kind, entity, needed, text in terms:
        span = text.casefold().split()
        start = next(i for i in range(len(tokens)) if tokens[i:i + len(span)] == span)
        found.append(Link(kind, entity, entity, "", text, 1.0, needed, start))
    return sorted(found, key=lambda item: item.start)


CZECH = Triple("Q213", "P27", uses=40, among="P569")
PAINTER = Triple("Q1028181", "P106", uses=30, among="P569")
UNSOURCED_P569 = ["  ?item p:P569 ?statement .", "  ?statement wikibase:rank ?rank .",
                  "  FILTER(?rank != wikibase:DeprecatedRank)",
                  "  FILTER NOT EXISTS { ?statement prov:wasDerivedFrom ?reference . }"]


def test_the_target_is_the_constrained_property_after_whose_or_unsourced_else_the_first_named():
    question = "Czech painters without any award whose date of birth is unsourced"
    links = linked(question, ("property", "P166", True, "award"), ("property", "P569", True, "date of birth"))
    assert target(question, links).id == "P569"
    question = "chemists with unsourced awards who have no employer"
    links = linked(question, ("property", "P108", True, "employer"), ("property", "P166", True, "awards"))
    assert target(question, links).id == "P166"
    question = "awards of people educated at University of Tispra that cite nothing"
    links = linked(question, ("property", "P166", True, "awards"), ("property", "P69", True, "educated at"))
    assert target(question, links).id == "P166"
    question = "people whose place of birth is Brno"
    assert target(question, linked(question, ("property", "P19", False, "place of birth"))) is None


def test_a_term_right_after_not_no_or_without_is_negated_and_one_after_other_words_is_not():
    question = "writers with unsourced awards who are not German citizens"
    german, = linked(question, ("entity", "Q183", False, "German"))
    assert negated(question, german)
    question = "towns with an unsourced population that are not in Czechia"
    assert negated(question, linked(question, ("entity", "Q213", False, "Czechia"))[0])
    question = "people with an unsourced date of birth who have no date of death"
    died = linked(question, ("property", "P570", True, "date of death"))[0]
    assert negated(question, died)
    question = "dates of death of Czech painters without a reference"
    assert not any(negated(question, item) for item in linked(
        question, ("property", "P570", True, "dates of death"), ("entity", "Q213", False, "Czech"),
        ("entity", "Q1028181", False, "painters")))


def test_the_draft_holds_each_item_by_its_usual_pattern_then_the_targets_unsourced_statements():
    question = "Czech painters without any award whose date of birth is unsourced"
    links = linked(question, ("entity", "Q213", False, "Czech"), ("entity", "Q1028181", False, "painters"),
                   ("property", "P166", True, "award"), ("property", "P569", True, "date of birth"))
    made = draft(question, links, {"Q213": [Triple("Q213", "P31", "Q6256", "country"), CZECH],
                                   "Q1028181": [PAINTER]}, limit=100)
    assert made.text.splitlines() == [
        "SELECT DISTINCT ?item WHERE {", "  ?item wdt:P27 wd:Q213 .", "  ?item wdt:P106 wd:Q1028181 .",
        *UNSOURCED_P569, "  FILTER NOT EXISTS { ?item wdt:P166 ?value . }", "}", "LIMIT 100"]
    assert made.target.id == "P569" and [item.id for item in made.negated] == ["P166"]


def test_a_negated_item_goes_inside_filter_not_exists_and_a_superclass_takes_its_subclasses_members():
    question = "human settlements with an unsourced population that are not in Czechia"
    links = linked(question, ("entity", "Q486972", False, "human settlements"),
                   ("property", "P1082", True, "population"), ("entity", "Q213", False, "Czechia"))
    made = draft(question, links, {"Q486972": [Triple("Q486972", "P279", uses=2)],
                                   "Q213": [Triple("Q213", "P17", uses=9, among="P1082")]}, limit=10)
    lines = made.text.splitlines()
    assert lines[1] == "  ?item wdt:P31/wdt:P279* wd:Q486972 ." and lines[2] == "  ?item p:P1082 ?statement ."
    assert lines[-3] == "  FILTER NOT EXISTS { ?item wdt:P17 wd:Q213 . }"


def test_without_a_usable_term_the_draft_is_empty_and_without_a_target_it_holds_the_items_only():
    assert draft("anything at all", [], {}, limit=10).text == ""
    question = "Czech painters"
    links = linked(question, ("entity", "Q213", False, "Czech"), ("entity", "Q1028181", False, "painters"))
    made = draft(question, links, {"Q213": [CZECH], "Q1028181": [PAINTER]}, limit=10)
    assert made.target is None and "p:" not in made.text and "?item wdt:P106 wd:Q1028181 ." in made.text
    unreached = draft(question, links, {}, limit=10)
    assert unreached.text == "", "an item nothing takes as value gives no pattern"


def test_a_draft_that_reads_every_word_of_the_question_is_complete():
    question = "awards of people educated at University of Tispra that cite nothing"
    links = linked(question, ("property", "P166", True, "awards"), ("entity", "Q5", False, "people"),
                   ("property", "P69", True, "educated at"), ("entity", "Q77", False, "University of Tispra"))
    triples = {"Q5": [Triple("Q5", "P31", uses=50, among="P166")], "Q77": [Triple("Q77", "P69", uses=9)]}
    made = draft(question, links, triples, limit=10)
    assert made.unread == () and made.complete, "P69 is read through the university's pattern; 'cite nothing'"
    question = "Czech painters without any award whose date of birth is unsourced"
    links = linked(question, ("entity", "Q213", False, "Czech"), ("entity", "Q1028181", False, "painters"),
                   ("property", "P166", True, "award"), ("property", "P569", True, "date of birth"))
    assert draft(question, links, {"Q213": [CZECH], "Q1028181": [PAINTER]}, limit=10).complete


def test_a_word_the_draft_does_not_read_leaves_it_to_the_model():
    triples = {"Q213": [CZECH], "Q1028181": [PAINTER], "Q593644": [Triple("Q593644", "P106", uses=9)]}

    def unread(question: str, *terms: tuple[str, str, bool, str]) -> tuple[str, ...] | None:
        made = draft(question, linked(question, *terms), triples, limit=10)
        assert not made.complete
        return made.unread

    died = ("property", "P570", True, "dates of death")
    chemists = ("entity", "Q593644", False, "chemists")
    assert unread("dates of death of chemists born before 1900 without a reference", died, chemists) == (
        "born", "before", "1900")
    assert unread("Czech or Slovak painters whose date of death has no reference", ("entity", "Q213", False, "Czech"),
                  ("entity", "Q1028181", False, "painters"), ("property", "P570", True, "date of death")) == (
        "or", "Slovak")
    assert unread("chemists whose date of death is referenced", chemists, ("property", "P570", True, "date of death")
                  ) == ("referenced",), "the opposite of unsourced"
    assert unread("chemists with no date of death", chemists, ("property", "P570", True, "date of death")) == (
        "no",), "the target itself negated: the draft asks for its unsourced statements"
    employer = ("property", "P108", True, "employer")
    assert unread("chemists with an employer whose date of death is unsourced", chemists, employer,
                  ("property", "P570", True, "date of death")) == ("employer",), \
        "a property the draft does not write: having an employer"
    assert unread("chemists employer Czech whose date of death is unsourced", chemists, employer,
                  ("entity", "Q213", False, "Czech"), ("property", "P570", True, "date of death")) == (
        "employer",), "an item after a property it is not reached through (Czech: citizenship) does not read it"
    assert draft("painters whose date of death has no reference", [], triples, limit=10).unread is None
    from bot.asking.draft import Draft
    assert not Draft("SELECT ?item WHERE { ?item wdt:P31 wd:Q5 }", None).complete, "not read against a question"
