"""A huge page costs its statement a bounded amount of work: at most ``MAX_RANKED`` of its paragraphs, the best by
the names they mention, are embedded and ranked; the rest are counted as not ranked."""

from __future__ import annotations

import json

from bot.checking.judging import Strategy, queue
from bot.checking.statement import Plan, Tools, check_statement
from bot.datamodel import Paragraph, Statement, Value
from bot.documents import paragraph_rules
from bot.judge.engine import Judge
from bot.judge.prompts import REFBOT
from bot.judge.scripted import ScriptedBackend
from bot.checking.ranking import MAX_RANKED, rank
from bot.wiring import Wiring
from documents_world import HTML, world_options
from servers import Reply, routed

CURIE = Statement("Q7186", "Marie Curie", "Q7186$A1", "P166", "award received",
                  Value("wikibase-item", "Q38104", "Nobel Prize in Physics"))
PARAGRAPHS = 3 * MAX_RANKED
# Late in the page, the one paragraph that also names the subject (and that the scripted judge confirms).
NAMING_BOTH = 2 * MAX_RANKED + 50


def text(number: int) -> str:
    if number == NAMING_BOTH:
        return (f"Record {number}: Marie Curie received the Nobel Prize in Physics in 1903, as the committee "
                "confirmed in its minutes, together with Pierre Curie and Henri Becquerel.")
    return (f"Record {number} of the archive lists a laureate of the Nobel Prize in Physics for that year, with the "
            "citation read at the ceremony in Stockholm and the committee's notes on the nominations.")


class CountingEmbedder:
    """A stand-in for the sentence-embedding model that counts the texts it is given."""

    def __init__(self) -> None:
        self.texts = 0

    def __call__(self, texts: list[str]) -> list[list[float]]:
        self.texts += len(texts)
        return [[float("Curie" in text), 1.0] for text in texts]


def test_at_most_max_ranked_paragraphs_are_embedded_the_best_by_their_names():
    paragraphs = [Paragraph(text(number), "https://big.example/", number) for number in range(PARAGRAPHS)]
    embed = CountingEmbedder()
    ranked = rank(paragraphs, CURIE, embed=embed, limit=MAX_RANKED)
    assert embed.texts == MAX_RANKED + 1  # the statement, then the paragraphs kept
    assert len(ranked) == MAX_RANKED
    assert ranked[0].paragraph.position == NAMING_BOTH  # kept though late: it names the subject too
    # The others tie on their names: the earliest are kept.
    assert sorted(r.paragraph.position for r in ranked[1:]) == list(range(MAX_RANKED - 1))
    assert len(rank(paragraphs, CURIE)) == PARAGRAPHS  # without a limit, every paragraph
    assert queue(paragraphs, CURIE, Strategy(considered=10), embed)[0].paragraph.position == NAMING_BOTH


def check_laureates(recording_server, embed, rules=None):
    """CURIE checked against one searched page of PARAGRAPHS paragraphs that name the value (the judge scripted)."""
    body = "<html><body><article><h1>Laureates</h1>" + "".join(
        f"<p>{text(number)}</p>" for number in range(PARAGRAPHS)) + "</article></body></html>"
    page = f"{recording_server.url}/laureates"
    recording_server.script = routed({
        "/search": Reply(200, json.dumps({"results": [{"url": page, "title": "Laureates"}]}),
                         {"Content-Type": "application/json"}),
        "/laureates": Reply(200, body, HTML)})
    options = world_options(search_backend="searxng", search_url=recording_server.url)
    parts = Wiring(options)
    confirms = ScriptedBackend(lambda prompt: 0.9 if "confirmed" in prompt else 0.1)
    tools = Tools(Judge(confirms, REFBOT, justify=False), parts.fetcher, rules or paragraph_rules(options.paragraph),
                  search=parts.search, embed=embed)
    return check_statement(CURIE, tools, Plan(source="web", fetch_workers=1))


def test_a_page_of_many_paragraphs_naming_the_value_is_ranked_within_the_cap_and_says_so(recording_server):
    embed = CountingEmbedder()
    check = check_laureates(recording_server, embed)
    document, = check.documents
    assert document.readable and len(document.retrieved.paragraphs) == PARAGRAPHS
    # of the MAX_RANKED ranked, one unit writes the value and is about the subject: only it could be judged, and only
    # it is embedded (with the statement)
    assert embed.texts == 2
    assert document.not_ranked == PARAGRAPHS - MAX_RANKED
    assert document.not_judged == PARAGRAPHS - len(document.judged)
    assert check.outcome.value == "supported" and document.supporting[0].ranked.paragraph.position == NAMING_BOTH
    from bot.output import trace as traces
    from test_trace import CONTEXT, run_info

    element = traces.statement_element(CONTEXT, check).find(traces.tag("document"))
    assert element.get("not-ranked") == str(PARAGRAPHS - MAX_RANKED), "the trace says how much was never ranked"
    from bot.output.report import render

    tree = traces.assemble(run_info(), [(traces.item_element(CONTEXT), [traces.statement_element(CONTEXT, check)])])
    assert f"{PARAGRAPHS - MAX_RANKED} never ranked" in " ".join(render(tree).split()), "and the report shows it"


def test_a_page_longer_than_the_extraction_cap_is_read_up_to_it_and_the_trace_and_report_say_so(recording_server):
    """The cap on what is read bounds a huge page's cost before ranking; the late paragraph naming both is read."""
    from bot.documents.paragraphs import ParagraphRules

    read_up_to = NAMING_BOTH + 50
    check = check_laureates(recording_server, CountingEmbedder(), ParagraphRules(max_paragraphs=read_up_to))
    document, = check.documents
    assert len(document.retrieved.paragraphs) == read_up_to and document.retrieved.document.cut
    assert document.not_ranked == read_up_to - MAX_RANKED
    assert check.outcome.value == "supported" and document.supporting[0].ranked.paragraph.position == NAMING_BOTH
    note = f"read in part: only the first {read_up_to} paragraphs were read"
    assert any(line.startswith(note) for line in document.retrieved.notes)
    from bot.output import trace as traces
    from bot.output.report import render
    from test_trace import CONTEXT, run_info

    element = traces.statement_element(CONTEXT, check).find(traces.tag("document"))
    assert element.findtext(traces.tag("note")).startswith(note), "the trace says the page was read in part"
    tree = traces.assemble(run_info(), [(traces.item_element(CONTEXT), [traces.statement_element(CONTEXT, check)])])
    assert note in " ".join(render(tree).split()), "and the report shows it"


def test_keeping_only_the_best_while_scanning_ranks_as_sorting_them_all():
    scores = [0, 3, 1, 3, 2, 0, 1, 3, 2, 1]
    paragraphs = [Paragraph(f"{'Marie Curie ' * (score % 2)}{'Nobel Prize in Physics ' * (score // 2)}record {n} "
                            "of the archive, with the committee's notes on the nominations of that year.",
                            "https://big.example/", n) for n, score in enumerate(scores)]
    every = rank(paragraphs, CURIE)
    for limit in (1, 3, 5, len(paragraphs), 2 * len(paragraphs)):
        ranked = rank(paragraphs, CURIE, limit=limit)
        assert ranked == every[:limit], limit


def test_where_some_units_write_the_value_only_they_are_embedded_and_the_queue_is_as_if_all_were():
    """Only units that write the value can be judged when any does: embedding the rest would order nothing."""
    writes = {5, 40, 41, 90}

    def line(number: int) -> str:
        if number in writes:
            return f"Note {number}: Marie Curie is listed for the Nobel Prize in Physics{' in 1903' * (number % 2)}."
        return f"Note {number}: Marie Curie met the committee in Stockholm and heard that year's citations read."

    paragraphs = [Paragraph(line(number), "https://big.example/", number) for number in range(120)]

    class Closeness(CountingEmbedder):
        def __call__(self, texts: list[str]) -> list[list[float]]:
            self.texts += len(texts)
            return [[float("1903" in text), float("Stockholm" in text), 1.0] for text in texts]

    embed = Closeness()
    judged = queue(paragraphs, CURIE, Strategy(considered=MAX_RANKED), embed)
    assert embed.texts == 1 + len(writes)  # the statement, then the units that write the value
    everything = rank(paragraphs, CURIE, embed=Closeness(), limit=MAX_RANKED)  # every unit embedded
    expected = [entry.paragraph.position for entry in everything if entry.object == 1.0][:Strategy().top]
    assert [entry.paragraph.position for entry in judged] == expected == [40, 90, 5]  # the closest first
    # where no unit writes the value, every unit ranked is embedded (to find one that gives another value)
    embed = Closeness()
    queue([p for p in paragraphs if p.position not in writes], CURIE, Strategy(considered=MAX_RANKED), embed)
    assert embed.texts == 1 + len(paragraphs) - len(writes)
