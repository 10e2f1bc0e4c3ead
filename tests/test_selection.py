"""`refbot select` against a real Oxigraph server loaded with a Wikidata-shaped world (tests/data)."""

from __future__ import annotations

import json

import pytest
import requests

from bot.assets import query_text
from bot.cli import main
from bot.datamodel import Statement
from bot.options import Options
from bot.selection.binding import bind, load_query
from bot.selection.endpoint import SparqlEndpoint
from bot.selection.unsourced import SelectionRules, unsourced_statements
from bot.selection.worklists import iter_worklist
from bot.wiring import Wiring
from servers import Reply

IGNORED = ("P143", "P4656", "P813")


def guid(item: str, suffix: str) -> str:
    return f"{item}${suffix[0]}0000000-0000-4000-8000-0000000000{suffix[1:]}"


def select(capsys, endpoint: str, *args: str) -> tuple[int, list[dict], str]:
    code = main(["select", "--endpoint", endpoint, "--json", *args])
    out, err = capsys.readouterr()
    return code, [json.loads(line) for line in out.splitlines()], err


def test_exactly_the_unsourced_statements_of_an_item(wikidata_world, capsys):
    code, rows, err = select(capsys, wikidata_world, "Q36233")
    assert code == 0
    assert {row["guid"] for row in rows} == {
        guid("Q36233", s) for s in ("a01", "a02", "a05", "a06", "a11", "a12",  # P166 without real references
                                    "b01", "d01", "d02", "d03", "d04", "d05", "d06")}  # P569 and one per type
    # Not selected: a03 deprecated; a04, a07 and a13 referenced; c01 P31 (no constraint); c02 P106 (deprecated
    # constraint). d01 is selected though one of P1477's two live constraints lists Q36233 as an exception.
    by_guid = {row["guid"]: row for row in rows}
    assert by_guid[guid("Q36233", "a02")]["rank"] == "preferred"
    assert by_guid[guid("Q36233", "a01")]["rank"] == "normal"
    assert by_guid[guid("Q36233", "a01")]["item_label"] == "Václav Havel"
    assert by_guid[guid("Q36233", "a01")]["item_aliases"] == ["Havel"]
    assert by_guid[guid("Q36233", "a01")]["property_label"] == "award received"
    assert by_guid[guid("Q36233", "a01")]["property_description"].startswith("award or recognition")
    # unknown and no value are skipped, with the reason, on standard error
    assert f"skipped {guid('Q36233', 'a08')} (P166): unknown value" in err
    assert f"skipped {guid('Q36233', 'a09')} (P166): unknown value" in err
    assert f"skipped {guid('Q36233', 'a10')} (P166): no value" in err
    assert "13 statement(s) need a reference in 1 item(s); 3 skipped" in err


def test_values_are_rendered_by_type_and_precision(wikidata_world, capsys):
    _, rows, _ = select(capsys, wikidata_world, "Q36233", "Q990010", "Q990011", "Q990013", "Q990014")
    values = {row["guid"]: (row["datatype"], row["value"], row["value_text"]) for row in rows}
    assert values[guid("Q36233", "a01")] == ("wikibase-item", "Q990101", "Example Peace Prize")
    assert values[guid("Q36233", "b01")] == ("time", "+1936-10-05T00:00:00Z/11", "1936-10-05")
    assert values[guid("Q36233", "d01")] == ("monolingualtext", 'cs:"Václav Havel"', "Václav Havel")
    assert values[guid("Q36233", "d02")] == ("string", '"Ferdinand Vaněk"', "Ferdinand Vaněk")
    assert values[guid("Q36233", "d03")] == ("quantity", "1.73~0.01U11573", "1.73±0.01 metre")
    assert values[guid("Q36233", "d04")] == ("url", '"https://www.vaclavhavel.cz/"', "https://www.vaclavhavel.cz/")
    assert values[guid("Q36233", "d05")] == ("commonsMedia", '"Václav Havel portrait.jpg"',
                                             "Václav Havel portrait.jpg")
    assert values[guid("Q36233", "d06")] == ("external-id", '"99990001"', "99990001")
    assert values[guid("Q990010", "b01")] == ("time", "+1930-00-00T00:00:00Z/8", "1930s")
    assert values[guid("Q990011", "b01")] == ("time", "+1850-03-00T00:00:00Z/10", "March 1850")
    assert values[guid("Q990011", "b02")] == ("time", "+1851-00-00T00:00:00Z/9", "1851")
    assert values[guid("Q990011", "b03")] == ("time", "+1901-00-00T00:00:00Z/7", "20th century")
    assert values[guid("Q990011", "b04")] == ("time", "+1001-00-00T00:00:00Z/6", "2nd millennium")
    assert values[guid("Q990011", "b05")] == ("time", "-0100-00-00T00:00:00Z/9/J", "100 BCE")
    assert values[guid("Q990011", "b06")] == ("time", "+1650-03-01T00:00:00Z/11/J", "1650-03-01 (Julian calendar)")
    assert values[guid("Q990013", "d01")] == ("quantity", "1200", "1200")
    assert values[guid("Q990013", "d02")] == ("quantity", "350U11573", "350 metre")
    assert values[guid("Q990013", "d03")] == ("globe-coordinate", "@50.0875/14.4214", "50.0875°N, 14.4214°E")
    assert values[guid("Q990014", "d01")] == ("globe-coordinate", "@-5.4/-137.4", "5.4°S, 137.4°W on Mars")
    assert values[guid("Q990013", "d05")] == ("wikibase-lexeme", "L7", "L7")
    assert guid("Q990013", "d04") not in values  # both of P742's constraints except Q990013


def test_labels_follow_the_language_preference_and_fall_back_to_the_id(wikidata_world, capsys):
    _, rows, _ = select(capsys, wikidata_world, "Q36233", "--property", "P166")
    text = {row["guid"]: row["value_text"] for row in rows}
    assert text[guid("Q36233", "a11")] == "Q990108"  # only a Czech label: not in en, mul
    assert text[guid("Q36233", "a12")] == "Prix Exemplum"  # a "mul" label
    _, rows, _ = select(capsys, wikidata_world, "Q36233", "--property", "P166", "--languages", "cs,en")
    text = {row["guid"]: row["value_text"] for row in rows}
    assert text[guid("Q36233", "a11")] == "Cena Příkladu"
    assert rows[0]["property_label"] == "ocenění"
    assert rows[0]["item_aliases"] == ["Vašek", "Havel"]  # aliases of every preferred language, in order


def test_constraint_exceptions_count_only_on_live_constraints(wikidata_world, capsys):
    _, rows, _ = select(capsys, wikidata_world, "Q990010", "Q990016", "Q990015")
    assert [row["guid"] for row in rows] == [guid("Q990010", "b01"), guid("Q990016", "a01")]
    # Q990010 is an exception to P166's constraint; Q990016 only to a deprecated one; Q990015 is sourced.


def test_which_references_count_is_configurable(wikidata_world, capsys):
    _, rows, _ = select(capsys, wikidata_world, "Q36233", "--property", "P166", "--ignored-reference-properties", "")
    assert {row["guid"] for row in rows} == {guid("Q36233", s) for s in ("a01", "a02", "a11", "a12")}
    # any reference counts now, even P143 alone (a05, a06)
    _, rows, _ = select(capsys, wikidata_world, "Q36233", "--property", "P166",
                        "--ignored-reference-properties", "P143,P248")
    assert {row["guid"] for row in rows} == {guid("Q36233", s) for s in ("a01", "a02", "a05", "a07", "a11", "a12")}
    # a06 has P4656 (now evidence); a07's references are P143 and P248, both ignored; a13's one has P854


def test_a_worklist_pages_through_the_items_of_one_property(wikidata_world, capsys):
    endpoint = Wiring(Options.flat(sparql_endpoint=wikidata_world)).endpoint
    entries = list(iter_worklist(endpoint, "P166", IGNORED, page_size=2))
    assert [(e.item, e.unsourced) for e in entries] == [("Q36233", 9), ("Q990016", 1), ("Q990017", 2)]
    after = iter_worklist(endpoint, "P166", IGNORED, page_size=2, after="Q36233")
    assert [e.item for e in after] == ["Q990016", "Q990017"]

    code, rows, err = select(capsys, wikidata_world, "--property", "P166", "--page-size", "1", "--limit", "8")
    assert code == 0
    assert [row["guid"] for row in rows] == [guid("Q36233", s) for s in ("a01", "a02", "a05", "a06", "a11", "a12")] \
        + [guid("Q990016", "a01"), guid("Q990017", "a01")]
    assert all(row["property"] == "P166" for row in rows)
    # Q990017 was cut part-way, so the listing resumes after the last item printed in full
    assert "stopped at --limit 8; to continue the worklist, run the same command with --after Q990016" in err
    _, rows, err = select(capsys, wikidata_world, "--property", "P166", "--after", "Q990016")
    assert [row["guid"] for row in rows] == [guid("Q990017", "a01"), guid("Q990017", "a02")]
    assert "stopped" not in err  # the lexeme L7 with an unsourced P166 is not an item: never listed


def test_repeated_items_and_properties_are_selected_once(wikidata_world, capsys):
    _, rows, _ = select(capsys, wikidata_world, "Q990017", "Q990017", "--property", "P166", "--property", "P166")
    assert [row["guid"] for row in rows] == [guid("Q990017", "a01"), guid("Q990017", "a02")]


def test_items_from_a_file_and_from_a_query(wikidata_world, capsys, tmp_path):
    listing = tmp_path / "pagepile.txt"
    listing.write_text("# PagePile 12345\nQ990016\n\nhttps://www.wikidata.org/wiki/Q990017\nwd:Q990015\n")
    _, rows, _ = select(capsys, wikidata_world, "--items", str(listing))
    assert [row["item"] for row in rows] == ["Q990016", "Q990017", "Q990017"]

    query = tmp_path / "laureates.rq"
    query.write_text("PREFIX wd: <http://www.wikidata.org/entity/>\n"
                     "PREFIX ps: <http://www.wikidata.org/prop/statement/>\n"
                     "SELECT DISTINCT ?item WHERE { ?item ?p ?s . ?s ps:P166 wd:Q990102 . } ORDER BY ?item\n")
    _, rows, _ = select(capsys, wikidata_world, "--query", str(query), "--property", "P166")
    assert [row["guid"] for row in rows] == [guid("Q36233", s) for s in ("a01", "a02", "a05", "a06", "a11", "a12")] \
        + [guid("Q990017", "a01"), guid("Q990017", "a02")]


def test_the_json_lines_read_back_as_statements(wikidata_world, capsys):
    _, rows, _ = select(capsys, wikidata_world, "Q36233")
    for row in rows:
        # Each row also says how many identifiers with RDF records its item has (none in this store).
        assert row.pop("rdf_identifiers") == 0
        assert Statement.from_json(row).to_json() == row


def test_the_table_shows_labels_with_ids(wikidata_world, capsys):
    assert main(["select", "--endpoint", wikidata_world, "Q36233", "--property", "P166", "--limit", "1"]) == 0
    out = capsys.readouterr().out.splitlines()
    assert out[0].split() == ["item", "label", "prop", "property", "value", "rank", "statement"]
    assert "Example Peace Prize (Q990101)" in out[1] and guid("Q36233", "a01") in out[1] and len(out) == 2


def test_properties_lists_the_constrained_properties_and_exceptions(wikidata_world, capsys):
    assert main(["properties", "--endpoint", wikidata_world, "--json"]) == 0
    rows = [json.loads(line) for line in capsys.readouterr().out.splitlines()]
    assert [row["property"] for row in rows] == ["P18", "P166", "P214", "P569", "P570", "P625", "P742", "P856",
                                                 "P1082", "P1477", "P2048", "P6254"]
    assert rows[1] == {"property": "P166", "label": "award received", "datatype": "wikibase-item",
                       "exceptions": ["Q990010"]}  # Q990016 excepts only the deprecated constraint


def exit_code(argv: list[str]) -> int:
    """The CLI's exit code, whether argparse (SystemExit) or refbot (return value) refused."""
    try:
        return main(argv)
    except SystemExit as exit_info:
        return int(exit_info.code or 0)


@pytest.mark.parametrize("args, message", [
    (["Q36233x"], "not a Wikidata item id: 'Q36233x'"),
    (["Q36233", "--property", "P16a"], "not a Wikidata property id: 'P16a'"),
    (["--property", "P166", "--after", "X1"], "not a Wikidata item id: 'X1'"),
])
def test_invalid_ids_are_refused_before_any_query(recording_server, capsys, args, message):
    assert exit_code(["select", "--endpoint", recording_server.url, *args]) == 2
    assert message in capsys.readouterr().err
    assert recording_server.requests == []


def test_an_invalid_line_in_an_item_list_is_named(recording_server, capsys, tmp_path):
    listing = tmp_path / "items.txt"
    listing.write_text("Q1\nQ2\nQueen\n")
    assert main(["select", "--endpoint", recording_server.url, "--items", str(listing)]) == 2
    err = capsys.readouterr().err
    assert f"{listing}:3: not a Wikidata item id: 'Queen'" in err
    assert recording_server.requests == []


def test_a_query_that_returns_no_items_is_an_error_naming_it(wikidata_world, capsys, tmp_path):
    query = tmp_path / "wrong.rq"
    query.write_text("SELECT ?item WHERE { VALUES ?item { \"Douglas Adams\" } }\n")
    assert main(["select", "--endpoint", wikidata_world, "--query", str(query)]) == 1
    err = capsys.readouterr().err
    assert f"query {query} at {wikidata_world}: result row 1 has 'Douglas Adams' in ?item" in err


@pytest.mark.parametrize("args, message", [
    ([], "name items"),
    (["Q1", "--items", "x.txt"], "cannot be combined"),
    (["--property", "P166", "--property", "P569"], "one --property at a time"),
    (["Q1", "--after", "Q2"], "--after resumes a worklist"),
])
def test_impossible_combinations_are_usage_errors(capsys, args, message):
    assert exit_code(["select", *args]) == 2
    assert message in capsys.readouterr().err


def test_the_statements_qualifiers_are_selected_with_them(wikidata_world, capsys):
    _, rows, _ = select(capsys, wikidata_world, "Q36233", "--property", "P166")
    qualifiers = {row["guid"]: row.get("qualifiers", []) for row in rows}
    assert qualifiers[guid("Q36233", "a01")] == [
        {"property": "P585", "property_label": "point in time", "datatype": "time",
         "value": "+1989-00-00T00:00:00Z/9", "value_text": "1989"},
        {"property": "P1027", "property_label": "conferred by", "datatype": "wikibase-item",
         "value": "Q990121", "value_text": "Example Peace Foundation"}]
    # Two values of one qualifier, each with its own precision; a quantity; the unknown start time left out.
    assert [(q["property"], q["value"], q["value_text"]) for q in qualifiers[guid("Q36233", "a02")]] == [
        ("P580", "+1990-05-12T00:00:00Z/11", "1990-05-12"), ("P580", "+1991-03-00T00:00:00Z/10", "March 1991"),
        ("P1114", "2", "2")]
    assert qualifiers[guid("Q36233", "a05")] == []
    statement = Statement.from_json(next(row for row in rows if row["guid"] == guid("Q36233", "a01")))
    assert [q.display for q in statement.qualifiers] == ["point in time: 1989",
                                                         "conferred by: Example Peace Foundation"]
    assert [q.property_id for q in statement.claim.when] == ["P585"]


def test_qualifiers_cost_one_query_per_batch_that_selected_statements(wikidata_world, recording_server):
    def forward(request):
        answer = requests.post(wikidata_world, data={"query": request.params["query"][0]},
                               headers={"Accept": "application/sparql-results+json"}, timeout=30)
        return Reply(answer.status_code, answer.content, {"Content-Type": "application/sparql-results+json"})
    recording_server.script = forward
    endpoint = SparqlEndpoint(recording_server.url + "/sparql", "refbot/test")
    selections = list(unsourced_statements(endpoint, ["Q990015", "Q36233"], SelectionRules(), ["P166"]))
    sent = [request.params["query"][0] for request in recording_server.requests]
    # The statements, then the qualifiers of the one item that has any selected (of their properties), then the
    # labels of both in one look-up.
    assert sent[1] == bind(load_query("statement-qualifiers"), item=["Q36233"], property=["P166"]).text
    assert len(sent) == 3 and sent[2].startswith(query_text("labels")[:40])
    assert sum(len(selection.statements) for selection in selections) == 6
    list(unsourced_statements(endpoint, ["Q990015"], SelectionRules(), ["P166"]))
    assert len(recording_server.requests) == 4  # nothing selected: no qualifiers asked for, nothing to label
