"""The embedded `transformers` backend with a real small model (SmolLM2-135M), in-process on the CPU."""

import shutil

import pytest
import torch

from bot import modelstore
from bot.datamodel import Claim, Verdict
from bot.errors import ModelError
from bot.judge.arithmetic import arithmetic
from bot.judge.engine import Judge
from bot.judge.transformers_backend import TransformersBackend
from bot.judge.prompts import PAPER, REFBOT, Generation
from conftest import TOLERANCES

pytestmark = [pytest.mark.model, pytest.mark.slow]

CLAIM = Claim("Marie Curie", "award received", "Nobel Prize in Physics")
SNIPPET = "In 1903 Marie Curie shared the Nobel Prize in Physics with Pierre Curie and Henri Becquerel."


@pytest.fixture(scope="module")
def backend(smollm_gguf):
    return TransformersBackend(smollm_gguf, threads=2)


def test_loads_a_gguf_file_and_reads_answer_probabilities(backend):
    choice = backend.choose(REFBOT.messages(CLAIM, SNIPPET), ("yes", "no"))
    assert set(choice.probabilities) == {"yes", "no"}
    assert sum(choice.probabilities.values()) == pytest.approx(1.0)
    assert choice.prompt_tokens == backend.count_tokens(
        backend.tokenizer.apply_chat_template(REFBOT.messages(CLAIM, SNIPPET), add_generation_prompt=True,
                                              tokenize=False))


def test_continuation_logprob_prefers_the_texts_own_words(backend):
    prefix = "The museum opened in 1901 and it was closed in 1950. In summary, the museum"
    scored = backend.continuation_logprobs(prefix, [" opened in 1901", " exploded in 1901"])
    opened, exploded = (sum(logprobs) for logprobs in scored.logprobs)
    assert opened > exploded


def test_continuations_read_side_by_side_after_one_prefix_score_as_each_read_alone(backend):
    prefix = "The museum opened in 1901 and it was closed in 1950. In summary, the museum"
    continuations = [" opened in 1901", " was closed in 1950", " exploded"]
    backend.continuation_logprobs("Something else entirely.", [" Yes"])  # nothing of the prefix is held now
    together = backend.continuation_logprobs(prefix, continuations)
    assert together.tokens == backend.count_tokens(prefix) + sum(backend.count_tokens(c) for c in continuations)
    for continuation, scores in zip(continuations, together.logprobs):
        alone = backend.continuation_logprobs(prefix, [continuation]).logprobs[0]
        assert len(scores) == backend.count_tokens(continuation)
        assert scores == pytest.approx(alone, abs=1e-3)  # padding the shorter ones changes nothing
    assert sum(together.logprobs[0]) > sum(together.logprobs[2])


def test_a_prompt_that_begins_as_the_last_one_did_reads_only_the_rest(backend):
    # The judge's two passes over one paragraph: the question, then the model's summary of the text, whose
    # request begins as the question does. The second reads only what follows the text; its scores are those of
    # reading it whole.
    messages = REFBOT.messages(CLAIM, SNIPPET)
    question = backend.render(messages)
    summary = backend.render(REFBOT.summary_messages(SNIPPET)) + "In summary, Marie Curie"
    continuations = [" received Nobel Prize in Physics", " was nominated for Nobel Prize in Physics"]
    backend.continuation_logprobs("Something else entirely.", [" Yes"])
    whole = backend.continuation_logprobs(summary, continuations, rendered=True)
    assert whole.tokens == backend.count_tokens(summary) + sum(backend.count_tokens(c) for c in continuations)
    asked = backend.choose(messages, ("yes", "no"))
    text = backend.count_tokens(question[: question.index(SNIPPET) + len(SNIPPET)])  # system prompt and text
    assert 0 < asked.prompt_tokens <= backend.count_tokens(question) - text + 2  # held: read only what follows
    after = backend.continuation_logprobs(summary, continuations, rendered=True)
    assert 0 < after.tokens <= whole.tokens - text + 2
    # the GGUF is computed in float32 on every CPU: read from the cache or afresh, within float32's rounding
    for cached, fresh in zip(after.logprobs, whole.logprobs):
        assert cached == pytest.approx(fresh, abs=TOLERANCES["float32"].token)
    assert backend.choose(messages, ("yes", "no")).probabilities["yes"] == pytest.approx(
        asked.probabilities["yes"], abs=TOLERANCES["float32"].probability)


def test_generation_is_reproducible_with_the_seed(backend):
    messages = PAPER.messages(CLAIM, SNIPPET)
    params = Generation(max_tokens=12, temperature=0.1, top_p=0.9, seed=42)
    first, second = backend.complete(messages, params), backend.complete(messages, params)
    assert first.text == second.text
    assert 0 < first.completion_tokens <= 12


def test_judge_on_the_embedded_backend(backend):
    judge = Judge(backend, REFBOT, threshold=0.0, justify=True)
    judgement = judge.judge(CLAIM, SNIPPET)
    assert judgement.verdict is Verdict.SUPPORTS and judgement.justification and judgement.justification_s > 0
    # Checking defers it: judged without, explained afterwards for the paragraph that is proposed.
    deferred = judge.judge(CLAIM, SNIPPET, justify=False)
    assert deferred.supported and not deferred.justification and deferred.justification_s == 0
    explained = judge.explain(CLAIM, SNIPPET)
    assert explained.text and explained.completion_tokens > 0 and explained.seconds > 0
    assert Judge(backend, PAPER).explain(CLAIM, SNIPPET).text == ""  # a generated answer is its own justification
    assert judgement.model == "SmolLM2-135M-Instruct.Q4_1.gguf"
    paper = Judge(backend, PAPER).judge(CLAIM, SNIPPET)
    assert paper.template == "paper" and paper.answer


def test_a_converted_model_directory_loads_and_agrees_with_the_gguf(backend, smollm_gguf, tmp_path):
    cache = tmp_path / "cache"
    (cache / "smollm2-135m").mkdir(parents=True)
    for path in smollm_gguf.parent.iterdir():
        if path.suffix in (".gguf", ".sha256"):
            (cache / "smollm2-135m" / path.name).symlink_to(path)
    directory = modelstore.convert_to_transformers("smollm2-135m", cache, log=lambda message: None)
    assert modelstore.resolve("smollm2-135m", cache, transformers=True) == directory
    converted = TransformersBackend(directory, dtype="bfloat16")
    messages = REFBOT.messages(CLAIM, SNIPPET)
    ours, theirs = converted.choose(messages, ("yes", "no")), backend.choose(messages, ("yes", "no"))
    # the converted weights are the GGUF's rounded to bf16: computed in float32 they move P(yes) a little (0.002
    # here), and computed in bf16 by as much again as bf16's own rounding moves one computation from float32's
    rounded_weights = 0.02
    wide = TransformersBackend(directory, dtype="float32")  # the same weights computed in fp32: named so
    assert wide.model_id == f"{converted.model_id} as float32"
    assert abs(wide.choose(messages, ("yes", "no")).probabilities["yes"] - theirs.probabilities["yes"]) \
        < rounded_weights
    assert abs(ours.probabilities["yes"] - theirs.probabilities["yes"]) \
        < rounded_weights + TOLERANCES["bfloat16"].probability / 2
    with pytest.raises(ModelError, match="unknown arithmetic 'float16'"):
        TransformersBackend(directory, dtype="float16")
    # by default the arithmetic is the CPU's (bf16 only where it is native), and the judge is named for it
    chosen = TransformersBackend(directory)
    assert chosen.arithmetic == arithmetic("auto")
    assert chosen.model_id == (converted.model_id if arithmetic("auto").dtype == "bfloat16" else wide.model_id)
    assert next(chosen.model.parameters()).dtype == getattr(torch, arithmetic("auto").dtype)
    # widened once to float32 and kept: it loads as it is, and computes the very numbers of the bf16 copy widened
    assert modelstore.float32_copy(directory) is None
    widened = modelstore.widen_to_float32("smollm2-135m", cache, log=lambda message: None)
    assert modelstore.float32_copy(directory) == widened
    kept = TransformersBackend(widened, dtype="float32")
    assert kept.choose(messages, ("yes", "no")).probabilities == \
        pytest.approx(wide.choose(messages, ("yes", "no")).probabilities, abs=1e-5)  # (one read it from its cache)
    from bot.options import Options
    from bot.wiring import Wiring

    parts = Wiring(Options.flat(judge_model="smollm2-135m", model_cache=cache, judge_dtype="float32"))
    assert parts.backend.model_id == wide.model_id, "the same judge, whichever copy it loads"
    assert parts.backend.loaded().model_id == kept.model_id  # loaded from the float32 copy
    (directory / "source.sha256").write_text("another source\n", encoding="ascii")
    assert modelstore.float32_copy(directory) is None, "a copy of another conversion is not taken"
    shutil.rmtree(widened)
    shutil.rmtree(directory)


def test_a_missing_model_says_how_to_get_one(tmp_path):
    with pytest.raises(ModelError, match="get-models"):
        TransformersBackend(tmp_path / "nothing.gguf")


def test_the_judge_and_the_embedding_model_compute_and_tokenize_one_thread_at_a_time(backend, monkeypatch):
    """A statement's threads use both models at once: neither model nor either tokenizer is ever called from two
    threads at the same time (torch's CPU kernels set up lazily on first use, and the Rust tokenizers, are not
    to be raced; ``bot.model_lock``)."""
    import threading
    import time

    from bot.options import Options
    from bot.wiring import Wiring

    embedder = Wiring(Options()).embedder
    inside: dict[int, int] = {}
    most = [0]
    guard = threading.Lock()

    def counted(real):
        def call(*args, **kwargs):
            me = threading.get_ident()
            with guard:
                inside[me] = inside.get(me, 0) + 1
                most[0] = max(most[0], len(inside))
            try:
                time.sleep(0.002)  # (a wider window for another thread to come in, were it let in)
                return real(*args, **kwargs)
            finally:
                with guard:
                    inside[me] -= 1
                    if not inside[me]:
                        del inside[me]
        return call

    for owner in (backend.model, embedder.model):
        monkeypatch.setattr(owner, "forward", counted(owner.forward))
    for owner in (backend.tokenizer, embedder.tokenizer):
        for name in ("_encode_plus", "decode", "apply_chat_template"):
            monkeypatch.setattr(owner, name, counted(getattr(owner, name)))
    failures: list[BaseException] = []

    def statement(number: int) -> None:
        try:
            for _ in range(3):
                if number % 2:
                    backend.choose(REFBOT.messages(CLAIM, SNIPPET), ("yes", "no"))
                    backend.count_tokens(SNIPPET)
                    backend.continuation_logprobs(SNIPPET + " In summary, Marie Curie", [" won", " lost"])
                else:
                    embedder([SNIPPET, CLAIM.object, f"paragraph {number}"])
        except BaseException as error:  # noqa: B902 (a thread's failure is the test's)
            failures.append(error)

    threads = [threading.Thread(target=statement, args=(number,)) for number in range(6)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(300)
    assert not failures, failures
    assert most[0] == 1, f"{most[0]} threads were in the models or their tokenizers at once"


def test_loading_a_model_draws_no_progress_bars_in_logs_unless_the_environment_asks_for_them():
    """Hugging Face's "Loading weights" bars filled workers' and jobs' logs: refbot's models load without them; an
    operator who wants them sets HF_HUB_DISABLE_PROGRESS_BARS=0."""
    import os
    import subprocess
    import sys

    code = "import bot.model_lock, transformers.utils.logging as hf; print(hf.is_progress_bar_enabled())"
    environ = {key: value for key, value in os.environ.items() if key != "HF_HUB_DISABLE_PROGRESS_BARS"}
    quiet = subprocess.run([sys.executable, "-c", code], env=environ, capture_output=True, text=True, timeout=120)
    asked = subprocess.run([sys.executable, "-c", code], env={**environ, "HF_HUB_DISABLE_PROGRESS_BARS": "0"},
                           capture_output=True, text=True, timeout=120)
    assert (quiet.stdout.strip(), asked.stdout.strip()) == ("False", "True"), (quiet.stderr, asked.stderr)
