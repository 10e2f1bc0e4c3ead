import pytest

from bot.datamodel import Compared, Judgement, Verdict
from bot.errors import ConfigError, InputError
from bot.evaluation.ledger import (LedgerWriter, check_same_judge, judgement_from_record, judgement_record,
                                   read_ledger)

JUDGEMENT = Judgement(Verdict.SUPPORTS, 0.9, "a=0.9", "because", "m", "refbot", 100, 1, 0.5,
                      compared=(Compared("award received", "received X", -1.5, 0.9),
                                Compared("nominated for", "was nominated for X", -3.7, 0.1)))


def test_records_round_trip(tmp_path):
    path = tmp_path / "out.jsonl"
    writer = LedgerWriter(path)
    writer.append(judgement_record("x", True, JUDGEMENT))
    writer.close()
    records = read_ledger(path)
    assert judgement_from_record(records["x"]) == JUDGEMENT
    assert records["x"]["label"] is True


def test_a_line_cut_short_by_a_kill_is_dropped_and_writing_goes_on(tmp_path):
    path = tmp_path / "out.jsonl"
    writer = LedgerWriter(path)
    writer.append(judgement_record("x", True, JUDGEMENT))
    writer.close()
    with path.open("a") as stream:
        stream.write('{"id": "y", "verd')
    assert list(read_ledger(path)) == ["x"]
    writer = LedgerWriter(path)
    writer.append(judgement_record("z", False, JUDGEMENT))
    writer.close()
    assert list(read_ledger(path)) == ["x", "z"]


def test_a_corrupt_line_in_the_middle_is_an_error_with_its_line(tmp_path):
    path = tmp_path / "out.jsonl"
    path.write_text('garbage\n{"id": "x"}\n')
    with pytest.raises(InputError, match="out.jsonl:1"):
        read_ledger(path)


@pytest.mark.parametrize("content", ["my notes about the run\n", "one line, no newline", b"\x89PNG\r\n\x1a\n\x00",
                                     '{"precision": 0.9, "recall": 0.8}\n'])
def test_a_file_that_is_not_refbots_judgements_is_neither_read_nor_appended_to(tmp_path, content):
    path = tmp_path / "notes.txt"
    path.write_bytes(content if isinstance(content, bytes) else content.encode())
    with pytest.raises(InputError, match="notes.txt:1: not a file of judgements"):
        read_ledger(path)
    assert path.read_bytes() == (content if isinstance(content, bytes) else content.encode())


def test_results_of_another_judge_are_not_mixed(tmp_path):
    records = {"x": judgement_record("x", True, JUDGEMENT)}
    check_same_judge(records, "m", "refbot", tmp_path)
    with pytest.raises(ConfigError, match="another --out"):
        check_same_judge(records, "m", "paper", tmp_path)


def test_results_made_with_other_settings_are_not_mixed(tmp_path):
    records = {"x": judgement_record("x", True, JUDGEMENT, {"threshold": 0.5})}
    check_same_judge(records, "m", "refbot", tmp_path, {"threshold": 0.5})
    with pytest.raises(ConfigError, match="threshold"):
        check_same_judge(records, "m", "refbot", tmp_path, {"threshold": 0.7})
