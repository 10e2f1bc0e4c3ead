"""`refbot` as a user runs it: real subprocesses against a real llama.cpp server."""

import argparse
import json
import subprocess
import sys

import pytest

from bot.cli import build_parser
from conftest import DATA, ROOT, free_port


def refbot(*args, cwd=None, timeout=600):
    return subprocess.run([sys.executable, "-m", "bot.cli", *args], capture_output=True, text=True, cwd=cwd or ROOT,
                          timeout=timeout)


def _all_parsers(parser):
    yield parser
    for action in parser._actions:
        if isinstance(action, argparse._SubParsersAction):
            for sub in action.choices.values():
                yield from _all_parsers(sub)


def test_every_option_of_every_command_is_described():
    for parser in _all_parsers(build_parser()):
        assert parser.description or parser.prog == "refbot", parser.prog
        for action in parser._actions:
            assert action.help and action.help.strip(), f"{parser.prog}: {action.option_strings or action.dest}"


def test_help_runs_for_each_command():
    for command in ([], ["eval"], ["judge"], ["models"], ["models", "fetch"], ["models", "list"]):
        result = refbot(*command, "--help")
        assert result.returncode == 0 and "usage: refbot" in result.stdout


@pytest.mark.model
def test_eval_prints_the_table_writes_a_summary_and_resumes(llama_server, tmp_path):
    out = tmp_path / "judged.jsonl"
    common = ["eval", str(DATA / "mini.jsonl"), "--judge", "openai", "--judge-url", llama_server.url,
              "--out", str(out), "--no-justify"]
    first = refbot(*common, "--limit", "4")
    assert first.returncode == 0, first.stderr
    assert len(out.read_text().splitlines()) == 4
    second = refbot(*common)
    assert second.returncode == 0, second.stderr
    records = [json.loads(line) for line in out.read_text().splitlines()]
    assert len(records) == 6 and len({r["id"] for r in records}) == 6, "judged ids were judged again"
    table = second.stdout
    for expected in ("TP", "TN", "FP", "FN", "published P", "label-match P", "by concept pair", "Person-Award",
                     "by relation", "award received", "Negative_Correlation", "micro average", "ROC AUC",
                     "precision at recall 0.5", "judgements/s", "prompt"):
        assert expected in table, expected
    assert "published answers re-read by refbot's parser: 4 of 4 give the published verdict" in table
    micro = next(line for line in table.splitlines() if line.startswith("micro average")).split()
    assert micro[2] == "6"
    summary = json.loads(out.with_suffix(".summary.json").read_text())
    assert summary["cost"]["judgements"] == 6
    assert summary["cost"]["judged_in_this_run"] == 2
    assert summary["metrics"]["micro average"]["published"]["all"]["tp"] == 1
    assert summary["metrics"]["micro average"]["label-match"]["all"]["fp"] == 1  # the flipped aspirin row
    assert "judge_api_key" not in json.dumps(summary)


def test_a_malformed_line_is_a_one_line_error_and_keeps_prior_judgements(tmp_path):
    data = tmp_path / "broken.jsonl"
    lines = (DATA / "mini.jsonl").read_text().splitlines()
    data.write_text("\n".join(lines[:2] + ['{"id": "x", "subject": "s"'] + lines[2:]) + "\n")
    out = tmp_path / "out.jsonl"
    out.write_text("kept\n")
    result = refbot("eval", str(data), "--out", str(out), "--judge", "openai",
                    "--judge-url", f"http://127.0.0.1:{free_port()}/v1")
    assert result.returncode == 2
    assert result.stderr.strip().splitlines() == [f"refbot: error: {data}:3: not valid JSON (Expecting ',' "
                                                  "delimiter at column 27) (each line must be one JSON object)"]
    assert out.read_text() == "kept\n"


def test_an_unreachable_server_is_named_with_the_fix(tmp_path):
    url = f"http://127.0.0.1:{free_port()}/v1"
    result = refbot("eval", str(DATA / "mini.jsonl"), "--out", str(tmp_path / "o.jsonl"), "--judge", "openai",
                    "--judge-url", url, "--judge-retries", "0")
    assert result.returncode == 1
    assert f"cannot reach the LLM server at {url}/models" in result.stderr
    assert "vllm serve" in result.stderr


def test_limit_and_sample_together_are_a_usage_error():
    result = refbot("eval", str(DATA / "mini.jsonl"), "--limit", "1", "--sample", "2")
    assert result.returncode == 2 and "cannot be combined" in result.stderr


def test_models_list_shows_the_catalogue(tmp_path):
    result = refbot("models", "list", "--cache", str(tmp_path))
    assert result.returncode == 0
    assert "qwen2.5-coder-1.5b" in result.stdout and "not installed" in result.stdout


@pytest.mark.model
def test_judge_one_claim(llama_server):
    result = refbot("judge", "Marie Curie", "award received", "Nobel Prize in Physics",
                    "In 1903 Marie Curie shared the Nobel Prize in Physics with Pierre Curie.",
                    "--judge", "openai", "--judge-url", llama_server.url, "--no-justify")
    assert result.returncode == 0, result.stderr
    assert result.stdout.startswith("verdict ") and "template 'refbot'" in result.stdout
    unmentioned = refbot("judge", "Marie Curie", "award received", "Turing Award", "She won a prize.",
                         "--judge", "openai", "--judge-url", llama_server.url)
    assert unmentioned.stdout.startswith("verdict c (support 0.000)")
    assert 'does not write "Turing Award"' in unmentioned.stdout


@pytest.mark.model
@pytest.mark.slow
def test_eval_with_the_embedded_backend_then_rescored_without_a_model(smollm_gguf, tmp_path):
    out = tmp_path / "embedded.jsonl"
    common = ["eval", str(DATA / "mini.jsonl"), "--out", str(out), "--judge-model", str(smollm_gguf), "--threads", "2"]
    first = refbot(*common, "--no-justify")
    assert first.returncode == 0, first.stderr
    assert "model SmolLM2-135M-Instruct.Q4_1.gguf, template 'refbot': 6 of 6 statements judged" in first.stdout
    assert "micro average" in first.stdout
    # Everything is judged: the table is printed again from the file, with no model at hand.
    again = refbot(*common[:-4], "--judge-model", str(tmp_path / "gone.gguf"), "--no-justify")
    assert again.returncode == 0, again.stderr

    def table(output):
        return output.split("cost:")[0]

    assert table(again.stdout) == table(first.stdout)
    # Other settings would mix results: refused with the fix.
    other = refbot(*common, "--no-justify", "--threshold", "0.7")
    assert other.returncode == 2 and "another --out" in other.stderr


def test_eval_cross_validates_a_learned_verdict_out_of_fold_and_says_when_it_cannot(smollm_gguf, tmp_path):
    people = ["Ada Brenner", "Bo Lindqvist", "Cy Okafor", "Di Park", "Eli Varga", "Fay Moreau", "Gus Ahn",
              "Hal Sato", "Ida Kerr", "Jo Alves", "Kai Berg", "Lu Chen"]
    rows = []
    for n, person in enumerate(people):
        employer = ("employer", "P108", "works for") if n % 2 else ("member of", "P463", "is a member of")
        rows.append({"id": f"{n}-true", "subject": person, "predicate": employer[0], "property_id": employer[1],
                     "object": "Acme Guild", "text": f"{person} {employer[2]} Acme Guild.", "label": True,
                     "language": "en"})
        rows.append({"id": f"{n}-false", "subject": person, "predicate": employer[0], "property_id": employer[1],
                     "object": "Acme Guild", "text": f"{person} once wrote about Acme Guild.", "label": False,
                     "language": "en" if n % 3 else "de"})
    data = tmp_path / "rows.jsonl"
    data.write_text("\n".join(json.dumps(row) for row in rows) + "\n", encoding="utf-8")
    common = ["eval", str(data), "--out", str(tmp_path / "judged.jsonl"), "--judge-model", str(smollm_gguf),
              "--threads", "2", "--no-justify", "--no-profiles"]
    grouped = refbot(*common, "--cross-validate", "3")
    assert grouped.returncode == 0, grouped.stderr
    lines = grouped.stdout.split("Learned verdict, out of fold (3 grouped folds; no fact, subject or text on both "
                                 "sides):")[1].splitlines()
    assert any(line.startswith("language ") for line in lines) and any(line.startswith("de ") for line in lines)
    overall = next(line for line in lines if line.startswith("all ")).split()
    assert overall[1:3] == ["24", "12"]
    held_out = refbot(*common, "--cross-validate", "3", "--hold-out", "properties")  # judged: no model asked
    assert held_out.returncode == 0, held_out.stderr
    assert "each property held out in turn" in held_out.stdout and "\nP463 " in held_out.stdout
    too_many = refbot(*common, "--cross-validate", "20")
    assert too_many.returncode == 2
    assert "cannot cross-validate: 12 group(s) of rows cannot fill 20 folds" in too_many.stderr
