"""The production-shaped development benchmark's recipe (benchmarks/production_dev.py), on rows written here: each
derived kind changes what it says it changes, never into something the text states, and caps and seeds behave."""

from __future__ import annotations

import datetime
import importlib.util
import json
import re
import subprocess
import sys
import unicodedata
from collections import Counter
from pathlib import Path

import pytest

from bot.datamodel import Value
from bot.evaluation.dataset import read_dataset
from bot.values import value_finder
from bot.values.names import mentions
from conftest import ROOT

_spec = importlib.util.spec_from_file_location("production_dev", ROOT / "benchmarks" / "production_dev.py")
production_dev = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(production_dev)

WRONG_VALUE = {"date": "wrong-value:date", "amount": "wrong-value:amount", "item": "wrong-value:item",
               "string": "wrong-value:string"}


SEEDS = range(1, 11)


def statement(id: str, subject: str, predicate: str, object: str, text: str, *, property_id: str,
              datatype: str = "wikibase-item", label: bool = True) -> dict:
    return {"id": id, "subject": subject, "predicate": predicate, "object": object, "property_id": property_id,
            "datatype": datatype, "text": text, "label": label, "predicate_description": f"{predicate}, described",
            "prove_score": 0.5, "author_label": "1.A" if label else "2.B"}


def pages() -> list[dict]:
    """A small WTR-like set: every datatype, a false row, a subject with two occupations."""
    return [
        statement("w-born", "Marta Novak", "date of birth", "1943-01-14",
                  "Marta Novak (born January 14, 1943 in Brno) is a chemist. Her cousin was born on 14 January 1945.",
                  property_id="P569", datatype="time"),
        statement("w-leap", "Tomas Berg", "date of death", "1980-02-29",
                  "Tomas Berg died on 29 February 1980 in Oslo.", property_id="P570", datatype="time"),
        statement("w-founded", "Harbour Mill", "inception", "1876",
                  "The mill was built in 1876 and extended in 1878 and 1880.", property_id="P571", datatype="time"),
        statement("w-height", "Old Tower", "height", "271 metre",
                  "The Old Tower is 271 m tall, with a 40 m spire.", property_id="P2048", datatype="quantity"),
        statement("w-length", "Blue Pier", "length", "44.43 metre",
                  "Blue Pier measures 44.43 metres from the promenade.", property_id="P2043", datatype="quantity"),
        statement("w-citation", "Road Traffic Order", "citation", "SI 2014 No. 3049",
                  "The Road Traffic Order, SI 2014 No. 3049, was made in November.", property_id="P1545",
                  datatype="string"),
        statement("w-callsign", "Sea Lark", "call sign", "PCJP", "Sea Lark, call sign PCJP, flies the Dutch flag.",
                  property_id="P2317", datatype="string"),
        statement("w-formula", "dimethyl thing", "chemical formula", "C₁₇H₂₃NO₃",
                  "Its formula is C17H23NO3 and it melts at 115 degrees.", property_id="P274", datatype="string"),
        statement("w-address", "Corner Cafe", "located at street address", "next to the Old Market Square",
                  "Corner Cafe is next to the Old Market Square.", property_id="P6375", datatype="monolingualtext"),
        statement("w-country-fr", "Lyon Bridge", "country", "France",
                  "Lyon Bridge crosses the Rhone in France, close to the border with Germany.", property_id="P17"),
        statement("w-country-it", "Po Weir", "country", "Italy", "Po Weir, in Italy, is older than Lyon Bridge.",
                  property_id="P17"),
        statement("w-country-es", "Ebro Dam", "country", "Spain", "The Ebro Dam is in Spain.", property_id="P17"),
        statement("w-country-de", "Elbe Lock", "country", "Germany", "Elbe Lock is in Germany.", property_id="P17",
                  label=False),
        statement("w-poet", "Ada Lind", "occupation", "poet", "Ada Lind was a poet who lived in Uppsala.",
                  property_id="P106"),
        statement("w-novelist", "Ada Lind", "occupation", "novelist", "Ada Lind wrote novels; she was a novelist.",
                  property_id="P106"),
        statement("w-chemist", "Karl Ost", "occupation", "chemist", "Karl Ost was a chemist in Graz.",
                  property_id="P106"),
    ]


def facts() -> list[dict]:
    """A small T-REx-Verify-Hard-like set: untyped items, each positive with its relation-swapped negative."""
    rows = []
    for number, (subject, kind, qid, sentence) in enumerate([
            ("Aniak River", "river", "Q4022", "The Aniak River is a river that flows into the Kuskokwim."),
            ("Lake Vorn", "lake", "Q23397", "Lake Vorn is a shallow lake east of the hills."),
            ("Brisk Hill", "mountain", "Q8502", "Brisk Hill is the highest mountain of the county."),
            ("Kell Abbey", "monastery", "Q44613", "Kell Abbey, a monastery of the Benedictines, was founded early.")]):
        positive = {"id": f"P31-{number}-pos", "subject": subject, "subject_qid": f"Q9{number}", "object": kind,
                    "object_qid": qid, "text": sentence, "property_id": "P31", "property_label": "instance of",
                    "predicate": "instance of", "label": True}
        rows += [positive, {**positive, "id": f"P31-{number}-swap", "property_id": "P279",
                            "property_label": "subclass of", "predicate": "subclass of", "label": False}]
    return rows


def built(seed: int = 42, **caps) -> list[dict]:
    return production_dev.build({"pages": pages(), "facts": facts()}, seed, **caps)


def by_id(rows: list[dict]) -> dict[str, dict]:
    return {row["id"]: row for row in rows}


def test_originals_are_kept_as_they_are_with_their_source_and_kind():
    rows = by_id(built())
    assert rows["w-born"] == {**pages()[0], "source": "pages", "kind": "original"}
    assert rows["P31-0-pos"]["kind"] == "original" and rows["P31-0-swap"]["kind"] == "relation-swap"
    assert rows["P31-0-swap"]["source"] == "facts" and rows["w-country-de"]["label"] is False


def test_derived_rows_are_false_uniquely_named_from_their_source_and_drop_its_judgements():
    rows = built()
    originals = by_id([row for row in rows if row["kind"] in ("original", "relation-swap")])
    derived = [row for row in rows if row["kind"] not in ("original", "relation-swap")]
    assert len({row["id"] for row in rows}) == len(rows)
    assert derived and all(row["label"] is False for row in derived)
    for row in derived:
        source_id, suffix = row["id"].split(":")
        source = originals[source_id]
        assert source["label"] is True and source["kind"] == "original"
        assert row["kind"] == WRONG_VALUE.get(suffix, suffix) and row["source"] == source["source"]
        assert "prove_score" not in row and "author_label" not in row
        assert row["predicate"] == source["predicate"] and row.get("property_id") == source.get("property_id")
    assert not any(row["id"].startswith("w-country-de:") for row in derived), "a false row derives nothing"


def test_a_wrong_date_moves_the_year_by_one_to_nine_keeps_the_shape_and_is_not_in_the_text():
    for seed in SEEDS:
        rows = by_id(built(seed))
        for source_id in ("w-born", "w-leap", "w-founded"):
            source, wrong = rows[source_id], rows[f"{source_id}:date"]
            old, new = source["object"], wrong["object"]
            assert re.sub(r"\d", "9", old) == re.sub(r"\d", "9", new), "same shape"
            assert old[4:] == new[4:] and 1 <= abs(int(new[:4]) - int(old[:4])) <= 9
            assert new not in wrong["text"] and value_finder(Value("time", new, new))(wrong["text"]) is None
        assert rows["w-born:date"]["object"][:4] != "1945", "the year with the same day, as written, is not chosen"
        datetime.date.fromisoformat(rows["w-leap:date"]["object"])  # 29 February only in a leap year
        assert rows["w-founded:date"]["object"] not in ("1878", "1880")


def test_a_wrong_date_is_redrawn_until_the_text_does_not_state_it_and_skipped_when_all_are_stated():
    years = [str(year) for year in range(1934, 1953) if year not in (1938, 1943)]
    text = "Events of " + ", ".join(years) + "."
    shifted = production_dev.shifted_date("1943", text, production_dev.random.Random(1))
    assert shifted == "1938"
    assert production_dev.shifted_date("1943", text + " And 1938.", production_dev.random.Random(1)) is None
    day = production_dev.shifted_date("1943-01-14", "born 14 January 1944; 14.1.1942; 1941-01-14",
                                      production_dev.random.Random(3))
    assert day[5:] == "01-14" and day[:4] not in ("1944", "1942", "1941")


def test_a_wrong_amount_or_string_is_redrawn_until_the_text_does_not_state_it():
    rng = production_dev.random.Random
    others = [str(number) for number in (*range(5, 9), *range(13, 21))]  # 10 × 0.5–0.8 or 1.25–2, rounded
    assert production_dev.changed_amount("10 metre", " ".join(others), rng(1)) is None
    assert production_dev.changed_amount("10 metre", " ".join(n for n in others if n != "17"), rng(1)) == "17 metre"
    assert production_dev.changed_string("A1", "A0 A2 A3 A4 A5 A6 A8 A9", rng(1)) == "A7"
    assert production_dev.changed_string("A1", "A0 A2 A3 A4 A5 A6 A7 A8 A9", rng(1)) is None


def test_a_wrong_amount_changes_the_number_clearly_keeps_decimals_and_unit_and_is_not_in_the_text():
    rows = by_id(built())
    for source_id in ("w-height", "w-length"):
        source, wrong = rows[source_id], rows[f"{source_id}:amount"]
        old_number, old_unit = source["object"].split(" ", 1)
        new_number, new_unit = wrong["object"].split(" ", 1)
        assert new_unit == old_unit
        assert len(new_number.partition(".")[2]) == len(old_number.partition(".")[2])
        ratio = float(new_number) / float(old_number)
        assert 0.49 <= ratio <= 0.81 or 1.24 <= ratio <= 2.01
        assert new_number not in wrong["text"]
        assert value_finder(Value("quantity", wrong["object"], wrong["object"]))(wrong["text"]) is None
    assert production_dev.changed_amount("85868", "gross tonnage 85,868", production_dev.random.Random(2)) \
        .isdigit()


def test_a_wrong_string_changes_one_digit_in_its_script_or_one_letter_and_is_not_in_the_text():
    rows = by_id(built())
    for source_id in ("w-citation", "w-callsign", "w-formula", "w-address"):
        source, wrong = rows[source_id], rows[f"{source_id}:string"]
        old, new = source["object"], wrong["object"]
        changed = [(a, b) for a, b in zip(old, new) if a != b]
        assert len(old) == len(new) and len(changed) == 1
        (before, after), = changed
        if any(unicodedata.digit(char, None) is not None for char in old):
            assert unicodedata.name(before).rsplit(" ", 1)[0] == unicodedata.name(after).rsplit(" ", 1)[0]
        else:
            assert before.isalpha() and after.isalpha() and before.islower() == after.islower()
        assert new.casefold() not in wrong["text"].casefold()
        assert value_finder(Value("string", new, new))(wrong["text"]) is None
    citation = rows["w-citation:string"]["object"]  # SI 2014 No. 3049
    assert [i for i, char in enumerate(citation) if char != "SI 2014 No. 3049"[i]][0] in (5, 6, 14, 15), \
        "a number's last two digits"
    assert not rows["w-formula:string"]["object"].startswith("C₀")


def test_a_wrong_item_is_another_value_of_the_same_property_that_the_subject_lacks_and_the_text_does_not_name():
    qids = {row["object"]: row["object_qid"] for row in facts()}
    for seed in SEEDS:
        rows = built(seed)
        originals = by_id(rows)
        values = {(row["property_id"], row["object"]) for row in rows if row["kind"] == "original"}
        wrong = by_id([row for row in rows if row["kind"] == "wrong-value:item"])
        for row in wrong.values():
            source = originals[row["id"].split(":")[0]]
            assert row["property_id"] == source["property_id"] and row["subject"] == source["subject"]
            assert (source["property_id"], row["object"]) in values and row["object"] != source["object"]
            assert not mentions(row["object"], row["text"])
        assert wrong["w-country-fr:item"]["object"] in ("Italy", "Spain"), "Germany is named in the text"
        assert wrong["w-poet:item"]["object"] == "chemist", "Ada Lind is a novelist too"
        assert all(row["object_qid"] == qids[row["object"]] for row in wrong.values() if row["source"] == "facts")
        assert sum(row["source"] == "facts" for row in wrong.values()) == 4


def test_another_subject_brings_another_rows_page_that_does_not_name_this_subject():
    for seed in SEEDS:
        rows = built(seed)
        originals = by_id([row for row in rows if row["kind"] in ("original", "relation-swap")])
        others = [row for row in rows if row["kind"] == "other-subject"]
        assert len(others) == sum(row["label"] and row["kind"] == "original" for row in originals.values())
        for row in others:
            source, donor = originals[row["id"].split(":")[0]], originals[row["text_from"]]
            assert row["text"] == donor["text"] != source["text"]
            assert donor["subject"].casefold() != row["subject"].casefold() == source["subject"].casefold()
            assert not mentions(row["subject"], row["text"]) and row["object"] == source["object"]
        donors = {row["id"]: originals[row["text_from"]] for row in others}
        assert donors["w-country-fr:other-subject"]["id"] in ("w-country-es", "w-country-de"), \
            "the same property where one fits, never a page naming Lyon Bridge"
        assert donors["w-born:other-subject"]["source"] == "pages", "else the same data set"


def test_the_same_seed_builds_the_same_benchmark_and_other_seeds_other_ones():
    assert built(7) == built(7)
    derived = [[(row["id"], row["object"], row["text"]) for row in built(seed) if row["kind"] != "original"]
               for seed in (1, 2, 3)]
    assert derived[0] != derived[1] or derived[0] != derived[2]


def many(count: int) -> dict[str, list[dict]]:
    """Enough rows to cap: years in two sets, items in one."""
    years = [statement(f"y{n}", f"Person {n}", "date of birth", str(1800 + n), f"Person {n} was born in {1800 + n}.",
                       property_id="P569", datatype="time") for n in range(count)]
    items = [{**row, "id": row["id"].replace("P31-", f"P31-{n}-"), "subject": f"{row['subject']} {n}",
              "text": row["text"].replace(row["subject"], f"{row['subject']} {n}")}
             for n in range(count // 4) for row in facts()]
    return {"years": years, "items": items}


def test_caps_hold_for_every_kind_keep_each_sources_share_and_nest():
    sources = many(40)
    full = production_dev.build(sources, 42)
    counts = Counter(row["kind"] for row in full)
    wrong = sum(count for kind, count in counts.items() if kind.startswith("wrong-value"))
    assert counts["other-subject"] == min(wrong, 80) and counts["wrong-value:date"] == 40
    capped = production_dev.build(sources, 42, per_kind=12)
    small = production_dev.build(sources, 42, per_kind=6)
    kinds = Counter(row["kind"] for row in capped)
    assert max(kinds.values()) == 12 and set(kinds) == set(counts)
    shares = Counter(row["source"] for row in capped if row["kind"] == "original")
    assert shares == {"years": 6, "items": 6}, "40 and 40 original rows"
    shares = Counter(row["source"] for row in capped if row["kind"] == "other-subject")
    assert abs(shares["years"] - shares["items"]) <= 1
    assert {row["id"] for row in small} <= {row["id"] for row in capped}
    pairs = {row["id"].removesuffix("-swap") for row in capped if row["kind"] == "relation-swap"}
    assert len(pairs & {row["id"].removesuffix("-pos") for row in capped if row["source"] == "items"
                        and row["kind"] == "original"}) == 6, "a fact's positive and swap are kept together"
    assert Counter(row["kind"] for row in production_dev.build(sources, 42, other_subject_cap=3))["other-subject"] == 3


def test_ids_repeated_across_data_sets_are_refused():
    with pytest.raises(ValueError, match="w-born"):
        production_dev.build({"a": pages(), "b": pages()}, 42)


def test_the_command_writes_a_benchmark_refbot_eval_reads_and_prints_the_counts(tmp_path):
    for name, rows in (("pages", pages()), ("facts", facts())):
        (tmp_path / name).mkdir()
        (tmp_path / name / "dev.jsonl").write_text("".join(json.dumps(row) + "\n" for row in rows), encoding="utf-8")
    out = tmp_path / "reports" / "production-dev.jsonl"
    result = subprocess.run(
        [sys.executable, str(ROOT / "benchmarks" / "production_dev.py"), "--wtr", str(tmp_path / "pages" / "dev.jsonl"),
         "--trex", str(tmp_path / "facts" / "dev.jsonl"), "--out", str(out), "--per-kind", "5"],
        capture_output=True, text=True, timeout=120)
    assert result.returncode == 0, result.stderr
    assert re.search(r"^wrong-value:date\s+0\s+3\s+3\s+0$", result.stdout, re.MULTILINE), result.stdout
    statements = read_dataset(Path(out))
    assert len(statements) == len(out.read_text(encoding="utf-8").splitlines())
    assert {row.datatype for row in statements} >= {"time", "quantity", "string", None}
