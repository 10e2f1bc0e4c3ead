"""`refbot eval` on a data set whose every row is judged already: the report and summary are made from the ledger,
with no model, as a finished run is re-scored. (`refbot eval` decides the model's verdicts again with the calibration
that applies now: the threshold is set, and the undecided row has no calibrated score, so that no verdict moves.)"""

import json

from bot.cli import build_parser, main
from bot.cli.arguments import options_from
from bot.datamodel import Judgement, Verdict
from bot.evaluation.ledger import LedgerWriter, judgement_record
from bot.evaluation.measure import settings
from bot.judge.prompts import template_by_id

ROWS = [("t1", True, "original", Verdict.SUPPORTS, 0.9, 0.9, "date"),
        ("t2", True, "original", Verdict.INDICATES, 0.5, None, ""),
        ("f1", False, "wrong-value:date", Verdict.CONTRADICTS, 0.1, 0.1, ""),
        ("f2", False, "wrong-value:date", Verdict.SUPPORTS, 0.7, 0.7, "")]


def test_a_judged_data_set_is_rescored_with_the_new_measures(tmp_path, capsys, monkeypatch):
    monkeypatch.setenv("XDG_CONFIG_HOME", str(tmp_path / "config"))
    data, out = tmp_path / "set.jsonl", tmp_path / "judged.jsonl"
    data.write_text("".join(json.dumps({"id": id_, "subject": "s", "predicate": "p", "object": "o", "text": "t",
                                        "label": label, "kind": kind, "language": "de" if id_[1] == "1" else "fr"})
                            + "\n" for id_, label, kind, *_ in ROWS))
    argv = ["--quiet", "eval", str(data), "--out", str(out), "--no-profiles", "--threshold", "0.6"]
    options = options_from(build_parser().parse_args(argv))
    writer = LedgerWriter(out)
    for id_, label, _, verdict, support, calibrated, written in ROWS:
        judgement = Judgement(verdict, support, "", "", "m", template_by_id(options.judge.template).id, 10, 1, 0.2,
                              written=written, calibrated=calibrated)
        writer.append(judgement_record(id_, label, judgement, settings(options, None, "none")))
    writer.close()
    assert main(argv) == 0
    printed = capsys.readouterr().out.splitlines()
    assert "specificity 0.500, F1 supported 0.500, F1 unsupported 0.500, macro F1 0.500" in printed
    assert "wrong values reported as contradicted: 1 of 2 (0.500)" in printed
    summary = json.loads(out.with_suffix(".summary.json").read_text())
    assert summary["verdicts"]["labelled_supported"] == {"supported": 1, "undecided": 1, "contradicted": 0,
                                                         "not_supported": 0, "unparseable": 0}
    assert summary["by_path"]["not written"] == {"statements": 3, "supported": 1, "true": 0, "precision": 0.0}
    assert summary["by_kind"]["wrong-value:date"]["contradicted"] == 0.5
    assert summary["calibration"]["score"] == "calibrated, else support"
    assert summary["calibration"]["roc_auc_calibrated"] == 0.75
    by_language = summary["metrics"]["language"]["refbot"]
    assert (by_language["de"]["tp"], by_language["de"]["tn"]) == (1, 1)  # t1 supported, f1 contradicted
    assert (by_language["fr"]["fn"], by_language["fr"]["fp"]) == (1, 1)
    assert any(line.startswith("by language") for line in printed)
