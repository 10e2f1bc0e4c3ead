"""The in-process llama.cpp generator (xllamacpp) with a real small model (SmolLM2-135M), and where the composition
root chooses it (``bot.wiring.make_generator``)."""

from __future__ import annotations

import threading
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import pytest

from bot.errors import JudgeError, ModelError
from bot.judge.backend import Completion
from bot.judge.prompts import Generation
from bot.judge.scripted import ScriptedBackend
from bot.options import AskOptions, JudgeOptions, Options
from bot.wiring import Wiring, make_generator

MESSAGES = [{"role": "system", "content": "You write short stories."},
            {"role": "user", "content": "Write two sentences about a lighthouse keeper and her cat."}]
GREEDY = Generation(max_tokens=24, temperature=0.0, seed=42)


@pytest.fixture(scope="module")
def backend(smollm_gguf):
    from bot.judge.llama_backend import LlamaBackend

    return LlamaBackend(smollm_gguf, threads=1, parallel=2, context_tokens=1024)


@pytest.mark.model
def test_generates_and_counts_tokens(backend, smollm_gguf):
    completion = backend.complete(MESSAGES, GREEDY)
    assert completion.text
    assert 0 < completion.completion_tokens <= 24
    assert completion.prompt_tokens > 10
    assert backend.model_id == smollm_gguf.name
    assert backend.max_in_flight == 2
    assert backend.context_tokens() == 1024
    assert backend.count_tokens("Hello world") == 2
    rendered = backend.render(MESSAGES)
    assert rendered is not None and "lighthouse keeper" in rendered and rendered.rstrip().endswith("assistant")
    again = backend.complete(MESSAGES, GREEDY)
    assert again.text == completion.text  # greedy is deterministic
    assert again.prompt_tokens < completion.prompt_tokens  # the prompt was kept: only its last token is read again


@pytest.mark.model
def test_requests_from_several_threads_are_answered_each_as_alone(backend):
    prompts = [[{"role": "user", "content": f"Name a colour that starts with the letter {letter}."}]
               for letter in "bgr"]
    alone = [backend.complete(messages, GREEDY).text for messages in prompts]
    running, most = 0, 0
    lock = threading.Lock()

    def counted(messages) -> Completion:
        nonlocal running, most
        with lock:
            running += 1
            most = max(most, running)
        try:
            return backend.complete(messages, GREEDY)
        finally:
            with lock:
                running -= 1

    with ThreadPoolExecutor(max_workers=3) as pool:
        answers = list(pool.map(counted, prompts))
    assert most > 1
    # Decoded in one batch, a greedy answer may differ from the one decoded alone in a late token (llama.cpp's
    # batched arithmetic), so only their start is compared.
    for answer, before in zip(answers, alone):
        assert answer.text and answer.text[:12] == before[:12]


@pytest.mark.model
def test_choose_reads_the_letters_probabilities(backend):
    messages = [{"role": "user", "content": "Which letter comes first in the alphabet? a) a  b) z. Answer a or b."}]
    choice = backend.choose(messages, ["a", "b"])
    assert choice.probabilities == {} or sum(choice.probabilities.values()) == pytest.approx(1.0)


@pytest.mark.model
def test_it_only_generates_and_says_so(backend):
    with pytest.raises(JudgeError, match="only generates"):
        backend.continuation_logprobs("The museum", [" opened"])


@pytest.mark.model
def test_a_prompt_longer_than_the_context_is_refused_with_the_fix(backend):
    with pytest.raises(JudgeError, match="judge-context"):
        backend.complete([{"role": "user", "content": "word " * 5000}], GREEDY)


@pytest.mark.model
def test_the_prompt_written_from_is_kept_on_disk_for_the_next_process(smollm_gguf, tmp_path: Path):
    from bot.judge.llama_backend import LlamaBackend

    shared = {"role": "system", "content": "You write short stories about the sea and its lighthouses. " * 12}
    first = LlamaBackend(smollm_gguf, threads=1, parallel=2, context_tokens=1024, prompt_cache=tmp_path)
    cold = first.complete([shared, {"role": "user", "content": "A keeper."}], GREEDY)
    assert cold.prompt_tokens > 100
    assert first.choose([{"role": "user", "content": "Answer a or b."}], ["a", "b"]) is not None
    warm = first.complete([shared, {"role": "user", "content": "A cat."}], GREEDY)
    assert warm.prompt_tokens < 20, "the choice was read in the other slot: the shared prompt is still there"
    assert [path.suffix for path in tmp_path.iterdir()] == [".slot"]
    del first

    second = LlamaBackend(smollm_gguf, threads=1, parallel=2, context_tokens=1024, prompt_cache=tmp_path)
    assert second.complete([shared, {"role": "user", "content": "A gull."}], GREEDY).prompt_tokens < 20, \
        "a new process restored the prompt instead of reading it again"
    del second

    (next(tmp_path.iterdir())).write_bytes(b"not a slot file")
    third = LlamaBackend(smollm_gguf, threads=1, parallel=2, context_tokens=1024, prompt_cache=tmp_path)
    assert third.complete([shared, {"role": "user", "content": "A ship."}], GREEDY).prompt_tokens > 100, \
        "a file llama.cpp cannot read is left aside: the prompt is read"


def test_a_missing_or_foreign_file_is_refused(tmp_path: Path):
    from bot.judge.llama_backend import LlamaBackend

    with pytest.raises(ModelError, match="no GGUF file"):
        LlamaBackend(tmp_path / "absent.gguf")
    (tmp_path / "not.gguf").write_bytes(b"not a model")
    with pytest.raises(ModelError, match="cannot load"):
        LlamaBackend(tmp_path / "not.gguf", threads=1)


def test_the_judges_own_backend_generates_where_it_is_a_server_or_chosen(tmp_path: Path):
    judges: list[ScriptedBackend] = []

    def judge() -> ScriptedBackend:
        judges.append(ScriptedBackend())
        return judges[-1]
    served = JudgeOptions(backend="openai", model="llama-3.1-8b-instruct")
    assert make_generator(served, AskOptions(), judge) is judges[-1], "a server generates as it judges"
    assert make_generator(JudgeOptions(), AskOptions(generator="judge"), judge) is judges[-1]
    (tmp_path / "weights").mkdir()
    own = JudgeOptions(model=str(tmp_path / "weights"))
    assert make_generator(own, AskOptions(), judge) is judges[-1], "a transformers directory has no GGUF beside it"
    with pytest.raises(ModelError, match="no GGUF file") as refused:
        make_generator(own, AskOptions(generator="llama"), judge)
    assert "generator = judge" in (refused.value.hint or "")
    with pytest.raises(ModelError, match="not installed"):
        make_generator(JudgeOptions(model="smollm2-135m", model_cache=tmp_path), AskOptions(), judge)
    assert len(judges) == 3


@pytest.mark.model
def test_by_default_llama_cpp_writes_on_the_judge_models_gguf_loaded_once(smollm_gguf, tmp_path: Path):
    options = Options.flat(judge_model=str(smollm_gguf), threads=1, judge_context=512, ask_candidates=2,
                           model_cache=tmp_path)
    parts = Wiring(options)
    generator = parts.generator
    assert type(generator).__name__ == "LlamaBackend" and generator is parts.generator, "built once"
    assert (generator.model_id, generator.threads, generator.max_in_flight, generator.context_tokens()) == (
        smollm_gguf.name, 1, 2, 512)
    assert generator.complete(MESSAGES, GREEDY).text
    assert [path.parent.name for path in tmp_path.rglob("*.slot")] == ["llama-prompts"], "kept beside the models"
    assert not parts.built("backend"), "writing loads no transformers copy"
