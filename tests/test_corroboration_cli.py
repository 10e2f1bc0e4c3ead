"""`refbot check` with authority records, end to end on the demo world: the Oxigraph store, the authority sites and
the web on loopback, a real small model behind llama.cpp's OpenAI-compatible server, and the real embedding model.

SmolLM2-135M is a plumbing model: where the judge decides, the threshold pins it (1: no paragraph counts as
support), so what is under test is what the records decide, how the trace records it and how the report shows it.
"""

from __future__ import annotations

from pathlib import Path

import pytest
from lxml import etree

from bot.output import trace as traces
from bot.cli import main
from bot.demo.world import DemoWorld
from bot.options import ini_text
from bot.review.proposals import proposals

NS = {"t": traces.NS}


@pytest.fixture(scope="module")
def world(tmp_path_factory):
    with DemoWorld(workdir=tmp_path_factory.mktemp("store")) as running:
        yield running


def check(world, tmp_path, llama_server, capsys, *args, **settings):
    options = world.options() | {"judge_backend": "openai", "judge_url": llama_server.url, "threshold": 1.0,
                                 "check_reports": str(tmp_path / "reports"),
                                 "run_ledger": str(tmp_path / "reports" / "runs.sqlite")} | settings
    tmp_path.mkdir(parents=True, exist_ok=True)
    config = tmp_path / "refbot.ini"
    config.write_text(ini_text(options), encoding="utf-8")
    code = main(["--config", str(config), "--quiet", "check", *args])
    out = capsys.readouterr().out
    xml = Path(next(line for line in out.splitlines() if line.startswith("trace: "))[len("trace: "):])
    html = Path(next(line for line in out.splitlines() if line.startswith("report: "))[len("report: "):])
    return code, out, traces.read(xml), html


def by_property(tree, item):
    return {s.get("property"): s for s in tree.iterfind(f"t:item[@id='{item}']/t:statement", NS)}


def test_identifier_backed_statements_end_corroborated_with_the_stated_in_reference_and_no_web_search(
        world, tmp_path, llama_server, capsys):
    world.requests.clear()
    code, out, tree, html = check(world, tmp_path, llama_server, capsys, "Q990201")
    statements = by_property(tree, "Q990201")
    born, place = statements["P569"], statements["P19"]
    assert (born.get("outcome"), place.get("outcome")) == ("corroborated", "corroborated")
    # No search and no document for a statement a record corroborates.
    assert born.find("t:search", NS) is None and born.find("t:document", NS) is None
    snaks = [(s.get("property"), s.get("value"), s.get("datatype")) for s in born.iterfind("t:reference/t:snak", NS)]
    assert snaks[:2] == [("P248", "Q36578", "wikibase-item"), ("P227", '"1099020101"', "external-id")]
    assert snaks[2][0] == "P813" and len(snaks) == 3
    assert born.find("t:reference", NS).get("kind") == "stated-in"
    record = born.find("t:corroboration/t:record[@property='P227']", NS)
    assert (record.get("format"), record.get("finding"), record.get("step")) == ("Turtle", "corroborated", "value")
    chosen = record.find("t:candidate[@chosen='true']", NS)
    assert (chosen.get("relation"), chosen.get("object"), chosen.get("recognised")) == (
        "date of birth", "1968-02-11", "equivalent")
    missing = born.find("t:corroboration/t:record[@property='P268']", NS)
    assert (missing.get("finding"), missing.get("status")) == ("silent", "404")
    place_record = place.find("t:corroboration/t:record[@property='P227']/t:candidate[@chosen='true']", NS)
    assert place_record.get("compared") == "item Q990223"
    # The award and employer statements go to the web as before: silent records, then search.
    for property_id in ("P166", "P108", "P69"):
        statement = statements[property_id]
        assert statement.find("t:corroboration", NS).get("finding") == "silent"
        assert statement.find("t:search", NS) is not None
    assert tree.getroot().find("t:run/t:summary", NS).get("corroborated") == "2"
    assert "2 corroborated" in out
    # Both proposals are what `refbot review` and `apply` work from.
    proposed = {p.property_id: p for p in proposals(tree.getroot())}
    assert set(proposed) == {"P569", "P19"}
    assert proposed["P569"].snak("P227").datatype == "external-id"
    page = html.read_text(encoding="utf-8")
    assert "Authority records:" in page and "stated in an authority record" in page
    assert "Integrated Authority File" in page


def test_a_contradicted_statement_is_flagged_first_in_the_report_and_never_proposed(world, tmp_path, llama_server,
                                                                                    capsys):
    code, out, tree, html = check(world, tmp_path, llama_server, capsys, "Q990202")
    statements = by_property(tree, "Q990202")
    born = statements["P569"]
    assert born.get("outcome") == "contradicted" and born.find("t:reference", NS) is None
    assert "1974-06-14" in born.findtext("t:reason", namespaces=NS)
    assert "(Bibliothèque nationale de France 169902021: date of birth 1974-06-14)" in out
    # The web was still searched for it: curators see what the pages say beside the record.
    assert born.find("t:search", NS) is not None
    assert [p.property_id for p in proposals(tree.getroot())] == []
    page = etree.HTML(html.read_bytes())
    box = page.xpath("//section[@class='contradictions']")
    assert box and "1974-06-14" in "".join(box[0].itertext())
    first_row = page.xpath("//table[@class='statements']//tr[@class='statement-row']")[0]
    assert "contradicted" in "".join(first_row.itertext()) and "date of birth" in "".join(first_row.itertext())


def test_source_kg_reads_only_the_records_and_source_web_never_reads_them(world, tmp_path, llama_server, capsys):
    world.requests.clear()
    code, out, tree, html = check(world, tmp_path / "kg", llama_server, capsys, "Q990203", "--source", "kg")
    statements = by_property(tree, "Q990203")
    assert statements["P19"].get("outcome") == "corroborated"
    assert statements["P166"].get("outcome") == "not-found"  # no record states an award; nothing else is asked
    # Only records were read: the statement reads "no record states it", not "not-found", on screen and in the report.
    assert "  no record states it award received → " in out
    row = etree.HTML(html.read_bytes()).xpath(f"//section[@data-guid='{statements['P166'].get('guid')}']//h3")[0]
    assert "no record states it" in "".join(row.itertext())
    assert not [r for r in world.requests if r.site in ("search", "chronicle")]

    world.requests.clear()
    code, out, tree, html = check(world, tmp_path / "web", llama_server, capsys, "Q990203", "--source", "web")
    assert not [r for r in world.requests if r.site in ("viaf", "dnb", "bnf")]
    assert all(s.find("t:corroboration", NS) is None for s in by_property(tree, "Q990203").values())


def test_the_models_relation_picks_are_in_the_trace_and_only_name_the_records_relations(
        world, tmp_path, llama_server, capsys):
    """SmolLM2 answers anything: whatever it names, only a relation of the record is kept, and the statement is
    corroborated exactly when that relation is "born"."""
    code, out, tree, html = check(world, tmp_path, llama_server, capsys, "Q990203", "--source", "kg")
    born = by_property(tree, "Q990203")["P569"]
    record = born.find("t:corroboration/t:record", NS)
    picks = record.find("t:picks", NS)
    assert picks is not None and int(picks.get("prompt-tokens")) > 0
    accepted = [name.text for name in picks.iterfind("t:accepted", NS)]
    assert set(accepted) <= {"born"}
    assert born.get("outcome") == ("corroborated" if accepted else "not-found")
    assert "The model (" in html.read_text(encoding="utf-8")


def test_all_sources_searches_the_web_for_a_corroborated_statement_too(world, tmp_path, llama_server, capsys):
    code, out, tree, html = check(world, tmp_path, llama_server, capsys, "Q990203", "--all-sources")
    place = by_property(tree, "Q990203")["P19"]
    assert place.get("outcome") == "corroborated" and place.find("t:search", NS) is not None
    assert place.find("t:reference", NS).get("kind") == "stated-in"
