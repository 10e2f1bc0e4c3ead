"""The scripted judge backend (bot.judge.scripted): it answers from data or functions, records what it was asked, and
drives the real Judge end to end, so tests that need a judge but are not about the model can use it."""

from __future__ import annotations

import subprocess
import sys
from concurrent.futures import ThreadPoolExecutor

import pytest

from bot.datamodel import Claim, Relation, Verdict
from bot.judge.backend import Backend
from bot.judge.engine import Judge
from bot.judge.prompts import PAPER, REFBOT, Generation
from bot.judge.scripted import ScriptedBackend, chatml
from conftest import ROOT

PRIZE = Claim("Marta Novotná", "award received", "Purkyně Prize")
AWARDED = "Marta Novotná was awarded the Purkyně Prize in 2001."
LISTED = "The Purkyně Prize is given every year; Marta Novotná attended the ceremony."
QUESTION = [{"role": "system", "content": "Be careful."}, {"role": "user", "content": "Is it so?"}]


def test_it_has_every_member_of_the_backend_protocol():
    members = {name for name in vars(Backend) if not name.startswith("_")} | set(Backend.__annotations__)
    assert members >= {"model_id", "max_in_flight", "complete", "choose", "render", "continuation_logprobs"}
    backend = ScriptedBackend(model_id="m", max_in_flight=3, context=128)
    assert all(hasattr(backend, name) for name in members)
    assert (backend.model_id, backend.max_in_flight, backend.context_tokens()) == ("m", 3, 128)
    assert backend.count_tokens("three words here") == 3


def test_the_judge_decides_by_the_support_a_function_gives_each_snippet():
    backend = ScriptedBackend(lambda prompt: 0.9 if "awarded" in prompt else 0.1)
    judge = Judge(backend, REFBOT, justify=False)
    supported, not_supported = judge.judge(PRIZE, AWARDED), judge.judge(PRIZE, LISTED)
    assert supported.verdict is Verdict.SUPPORTS and supported.support == pytest.approx(0.9)
    assert not_supported.verdict is Verdict.NOT_INFERRABLE and not_supported.support == pytest.approx(0.1)
    assert supported.model == "scripted" and supported.prompt_tokens > 0
    # It was asked the judge's question: the text and the claim.
    first, second = backend.questions
    assert f'Text: "{AWARDED}"' in first and '"Purkyně Prize"' in first and LISTED in second
    assert [call.letters for call in backend.calls] == [("yes", "no"), ("yes", "no")]


def test_support_by_pieces_of_the_prompt_the_first_found_deciding():
    backend = ScriptedBackend({"awarded": 0.8, "Purkyně": 0.3})
    assert backend.choose([{"role": "user", "content": AWARDED}], ("yes", "no")).probabilities == {
        "yes": 0.8, "no": pytest.approx(0.2)}
    assert backend.choose([{"role": "user", "content": LISTED}], ("yes", "no")).probabilities["yes"] == 0.3
    assert backend.choose([{"role": "user", "content": "nothing"}], ("yes", "no")).probabilities["yes"] == 0.0
    with_default = ScriptedBackend({"awarded": 0.8, "": 0.4})  # the empty piece matches every prompt
    assert with_default.choose([{"role": "user", "content": "nothing"}], ("yes", "no")).probabilities["yes"] == 0.4
    assert ScriptedBackend(0.7).choose(QUESTION, ("yes", "no")).probabilities["yes"] == 0.7


def test_a_model_answering_neither_yes_nor_no_is_unparseable_after_the_judge_asks_again():
    backend = ScriptedBackend(lambda prompt: None, completions="Perhaps.")
    judgement = Judge(backend, REFBOT, justify=False).judge(PRIZE, AWARDED)
    assert judgement.verdict is Verdict.UNPARSEABLE and judgement.attempts == 2
    retry, = backend.asked("complete")
    assert retry.generation == Generation(max_tokens=4) and retry.prompt.endswith(REFBOT.reminder)


def test_completions_in_order_by_function_or_one_for_all_and_running_out_is_an_error():
    listed = ScriptedBackend(completions=["first", "second answer"])
    assert listed.complete(QUESTION, Generation(8)).text == "first"
    second = listed.complete(QUESTION, Generation(8))
    assert (second.text, second.completion_tokens, second.prompt_tokens) == ("second answer", 2, 2 + 3)
    with pytest.raises(LookupError, match="no completion left"):
        listed.complete(QUESTION, Generation(8))
    echo = ScriptedBackend(completions=lambda prompt: prompt.upper(), usage=(100, 40))
    completion = echo.complete(QUESTION, Generation(8))
    assert (completion.text, completion.prompt_tokens, completion.completion_tokens) == ("IS IT SO?", 100, 40)
    assert ScriptedBackend(completions="same").complete(QUESTION, Generation(8)).text == "same"
    call, = echo.calls
    assert call.method == "complete" and call.messages == tuple(QUESTION) and call.generation == Generation(8)


def test_a_supporting_judgement_is_justified_by_the_scripted_completion():
    backend = ScriptedBackend(0.95, completions=lambda prompt: "It says she was awarded it."
                              if prompt == REFBOT.justification else "?")
    judgement = Judge(backend, REFBOT).judge(PRIZE, AWARDED)
    assert judgement.supported and judgement.justification == "It says she was awarded it."
    follow_up, = backend.asked("complete")
    assert [m["role"] for m in follow_up.messages][-2:] == ["assistant", "user"]


def test_a_generating_template_reads_the_scripted_answer():
    backend = ScriptedBackend(completions=["b) The snippet hints at it.", "a) It states it directly."])
    judge = Judge(backend, PAPER)
    assert judge.judge(PRIZE, LISTED).verdict is Verdict.INDICATES
    assert judge.judge(PRIZE, AWARDED).verdict is Verdict.SUPPORTS


def test_other_letters_are_normalised_over_those_asked_and_none_given_is_no_letter():
    backend = ScriptedBackend(choices={"a": 1.0, "b": 3.0, "z": 4.0})
    assert backend.choose(QUESTION, ["a", "b"]).probabilities == {"a": 0.25, "b": 0.75}
    assert ScriptedBackend().choose(QUESTION, ["a", "b"]).probabilities == {}
    by_prompt = ScriptedBackend(choices=lambda prompt: {"b": 1.0} if "so" in prompt else {"a": 1.0})
    assert by_prompt.choose(QUESTION, ["a", "b"]).probabilities == {"a": 0.0, "b": 1.0}
    assert by_prompt.questions == ["Is it so?"]


def test_log_probabilities_by_continuation_or_by_function_and_an_unscripted_one_is_an_error():
    backend = ScriptedBackend(logprobs={"won it": (-0.5, -0.1), "lost it": (-2.0,)})
    continuations = backend.continuation_logprobs("She played, and", [" won it", " lost it"], rendered=True)
    assert continuations.logprobs == ((-0.5, -0.1), (-2.0,)) and continuations.tokens == 3 + 3
    with pytest.raises(KeyError, match="drew"):
        backend.continuation_logprobs("She played, and", [" drew"])
    call = backend.asked("continuation_logprobs")[0]
    assert call.prompt == "She played, and" and call.continuations == (" won it", " lost it") and call.rendered
    by_prefix = ScriptedBackend(logprobs=lambda prefix, continuation: (-len(prefix), -len(continuation)))
    assert by_prefix.continuation_logprobs("abc", [" de"]).logprobs == ((-3, -2),)
    assert by_prefix.prefixes == ["abc"]


def test_contrasting_relations_are_compared_on_the_scripted_log_probabilities_of_rendered_summaries():
    claim = Claim("Marta Novotná", "award received", "Purkyně Prize", "",
                  (Relation("nominated for", "", "was nominated for"),), "received", as_sentence=True)
    backend = ScriptedBackend(0.9, logprobs={"received Purkyně Prize": (-0.2,),
                                             "was nominated for Purkyně Prize": (-3.0,)})
    judgement = Judge(backend, REFBOT, justify=False).judge(claim, AWARDED)
    assert judgement.supported and [c.label for c in judgement.compared] == ["award received", "nominated for"]
    assert all(call.rendered for call in backend.asked("continuation_logprobs")) and len(backend.prefixes) == 2
    assert all(prefix.startswith("<|im_start|>system\n") for prefix in backend.prefixes)
    plain = ScriptedBackend(0.9, logprobs=backend.logprobs, chat_template=None)
    Judge(plain, REFBOT, justify=False).judge(claim, AWARDED)
    assert plain.render(QUESTION) is None and plain.prefixes == [AWARDED + "\n\nIn summary, Marta Novotná"]


def test_render_imitates_a_chat_template_with_the_assistants_turn_opened():
    rendered = ScriptedBackend().render(QUESTION)
    assert rendered == chatml(QUESTION) == ("<|im_start|>system\nBe careful.<|im_end|>\n<|im_start|>user\n"
                                            "Is it so?<|im_end|>\n<|im_start|>assistant\n")
    assert ScriptedBackend(chat_template=lambda messages: "|".join(m["role"] for m in messages)).render(
        QUESTION) == "system|user"


def test_it_records_every_request_once_when_the_judge_asks_from_many_threads():
    backend = ScriptedBackend(lambda prompt: 0.9 if "awarded" in prompt else 0.1, max_in_flight=8)
    snippets = [f"{AWARDED if number % 3 == 0 else LISTED} Record {number}." for number in range(60)]
    judged = dict(Judge(backend, REFBOT, justify=False).judge_all(
        (number, PRIZE, snippet) for number, snippet in enumerate(snippets)))
    assert sorted(judged) == list(range(60))
    assert all(judged[number].supported == (number % 3 == 0) for number in judged)
    assert len(backend.questions) == 60
    assert sorted(int(q.split("Record ")[1].split(".")[0]) for q in backend.questions) == list(range(60))
    answers = ScriptedBackend(completions=[str(number) for number in range(200)])
    with ThreadPoolExecutor(8) as pool:
        texts = list(pool.map(lambda _: answers.complete(QUESTION, Generation(1)).text, range(200)))
    assert sorted(map(int, texts)) == list(range(200)) and len(answers.calls) == 200


def test_it_imports_without_a_model_library():
    loaded = subprocess.run(
        [sys.executable, "-c", "import sys, bot.judge.scripted; "
         "print(sorted({m.split('.')[0] for m in sys.modules} & {'torch', 'transformers', 'requests'}))"],
        cwd=ROOT, capture_output=True, text=True, timeout=120, check=True)
    assert loaded.stdout.strip() == "[]"
