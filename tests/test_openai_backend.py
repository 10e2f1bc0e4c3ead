"""The `openai` backend against a real llama.cpp server (xllamacpp) with SmolLM2-135M on 127.0.0.1."""

import dataclasses
import http.server
import re
import threading
import time

import pytest
import requests

from bot.datamodel import Claim, Relation, Value, Verdict
from bot.errors import BackendUnavailable
from bot.judge.engine import Judge
from bot.judge.openai_backend import OpenAIBackend, make_session
from bot.judge.prompts import PAPER, REFBOT
from conftest import free_port

pytestmark = pytest.mark.model

CLAIM = Claim("Marie Curie", "award received", "Nobel Prize in Physics")
SNIPPET = "In 1903 Marie Curie shared the Nobel Prize in Physics with Pierre Curie and Henri Becquerel."


class CountingSession(requests.Session):
    """Records how many requests were in flight at once."""

    def __init__(self) -> None:
        super().__init__()
        self._lock = threading.Lock()
        self.in_flight = 0
        self.most_in_flight = 0
        self.paths: list[str] = []

    def request(self, method, url, *args, **kwargs):
        with self._lock:
            self.in_flight += 1
            self.most_in_flight = max(self.most_in_flight, self.in_flight)
            self.paths.append(url.rsplit("/v1", 1)[-1])
        try:
            return super().request(method, url, *args, **kwargs)
        finally:
            with self._lock:
                self.in_flight -= 1


def test_choice_reads_answer_probabilities_from_logprobs(llama_server):
    backend = OpenAIBackend(make_session(), llama_server.url)
    assert backend.model_id.endswith("SmolLM2-135M-Instruct.Q4_1.gguf")
    choice = backend.choose(REFBOT.messages(CLAIM, SNIPPET), ("yes", "no"))
    assert set(choice.probabilities) == {"yes", "no"}
    assert sum(choice.probabilities.values()) == pytest.approx(1.0)
    assert choice.prompt_tokens > 0  # what the server read; a prompt start its cache already held is not counted
    letters = backend.choose(PAPER.messages(CLAIM, SNIPPET), ("a", "b", "c"))
    assert set(letters.probabilities) == {"a", "b", "c"}


def test_contrasting_relations_are_weighed_after_one_question(llama_server):
    from bot.datamodel import Relation

    session = CountingSession()
    judge = Judge(OpenAIBackend(session, llama_server.url, context_tokens=2048), REFBOT, justify=False)
    claim = Claim("Marie Curie", "award received", "Nobel Prize in Physics", "award or recognition received",
                  (Relation("nominated for", "award nomination received", "was nominated for"),), "received")
    judgement = judge.judge(claim, SNIPPET)
    assert session.paths.count("/chat/completions") == 1  # the yes/no question, for the claim only
    # llama.cpp does not echo prompt logprobs: one try with echo, then the token after each of the two summaries
    # (the text's own and the model's), for both relations at once
    assert session.paths.count("/completions") == 3
    p_yes, share = (float(number) for number in re.findall(r"(?:P\(yes\)|share) (\d\.\d+)", judgement.answer))
    assert "against nominated for" in judgement.answer
    assert judgement.support == pytest.approx(share if p_yes >= 0.5 else min(p_yes, share), abs=1e-3)
    assert [c.label for c in judgement.compared] == ["award received", "nominated for"]
    assert sum(c.share for c in judgement.compared) == pytest.approx(1.0, abs=1e-4)
    judge.judge(claim, SNIPPET + " She was nominated for it twice.")
    assert session.paths.count("/completions") == 5  # the server is known not to echo: no second try


def test_continuation_logprob_prefers_the_texts_own_words(llama_server):
    backend = OpenAIBackend(make_session(), llama_server.url)
    prefix = "The museum opened in 1901 and it was closed in 1950. In summary, the museum"
    scored = backend.continuation_logprobs(prefix, [" opened in 1901", " exploded in 1901"])
    opened, exploded = (sum(logprobs) for logprobs in scored.logprobs)  # llama.cpp: the first token's
    assert opened < 0 and exploded < 0
    assert opened > exploded


def test_context_and_token_counts_come_from_the_server(llama_server):
    backend = OpenAIBackend(make_session(), llama_server.url)
    assert backend.context_tokens() == 2048  # 4096 tokens shared by two slots
    assert 3 <= backend.count_tokens("Marie Curie won a Nobel Prize.") <= 12


def test_refbot_judgement_is_complete_and_traceable(llama_server):
    judge = Judge(OpenAIBackend(make_session(), llama_server.url), REFBOT, threshold=0.0)
    judgement = judge.judge(CLAIM, SNIPPET)
    assert judgement.verdict is Verdict.SUPPORTS  # threshold 0: any support counts, so a justification follows
    assert judgement.justification.strip()
    assert judgement.template == "refbot"
    assert judgement.model.endswith(".gguf")
    assert judgement.completion_tokens > 1 and judgement.prompt_tokens > 0
    assert judgement.latency_s > 0


def test_tokens_the_servers_prefix_cache_holds_are_not_counted_as_read(llama_server):
    # The comparison continues the question's own prompt (rendered by the server's /apply-template), so the
    # server reads the text once per paragraph; a paragraph asked about again is read from its cache.
    backend = OpenAIBackend(make_session(), llama_server.url)
    text = "The Vltava footbridge in Dolní Mlýn, 271 m long, was opened by the mayor Jana Kubelková in 2011."
    claim = Claim("Vltava footbridge", "located in", "Dolní Mlýn", alternatives=(Relation("named after", "", ""),))
    question = REFBOT.messages(claim, text)[-1]["content"]
    rendered = backend.render(REFBOT.messages(claim, text))
    assert rendered and rendered.index(text) > 0
    assert rendered.endswith(question + "<|im_end|>\n<|im_start|>assistant\n")
    judge = Judge(backend, REFBOT, justify=False)
    first, again = judge.judge(claim, text), judge.judge(claim, text)
    assert len(first.compared) == 2
    assert 0 < again.prompt_tokens < first.prompt_tokens


def test_paper_judgement_generates_and_parses_an_answer(llama_server):
    judgement = Judge(OpenAIBackend(make_session(), llama_server.url), PAPER).judge(CLAIM, SNIPPET)
    assert judgement.verdict in (Verdict.SUPPORTS, Verdict.INDICATES, Verdict.NOT_INFERRABLE, Verdict.UNPARSEABLE)
    assert judgement.answer
    assert judgement.attempts in (1, 2)
    if judgement.verdict is Verdict.UNPARSEABLE:
        assert judgement.attempts == 2 and judgement.support == 0.0


def test_requests_run_concurrently_up_to_the_limit(llama_server):
    session = CountingSession()
    backend = OpenAIBackend(session, llama_server.url, max_in_flight=2, context_tokens=2048)
    judge = Judge(backend, REFBOT, justify=False)
    tasks = [(i, CLAIM, f"{SNIPPET} (copy {i})") for i in range(6)]
    results = dict(judge.judge_all(tasks))
    assert sorted(results) == list(range(6))
    assert session.most_in_flight == 2


def test_a_snippet_that_never_names_the_object_is_not_sent_to_the_model(llama_server):
    session = CountingSession()
    judge = Judge(OpenAIBackend(session, llama_server.url, context_tokens=2048), REFBOT)
    asked_before = len(session.paths)
    judgement = judge.judge(Claim("Marie Curie", "award received", "Turing Award"), SNIPPET)
    assert len(session.paths) == asked_before
    assert judgement.verdict is Verdict.NOT_INFERRABLE and judgement.support == 0.0
    assert "does not write" in judgement.answer and judgement.prompt_tokens == 0


def test_a_long_snippet_is_split_to_fit_the_context_not_cut(llama_server):
    backend = OpenAIBackend(make_session(), llama_server.url, context_tokens=400)
    judge = Judge(backend, dataclasses.replace(REFBOT, focus=False), justify=False)
    snippet = " ".join(f"Paragraph sentence {i} talks about the history of Warsaw and its bridges." for i in range(60))
    snippet += " " + SNIPPET
    judgement = judge.judge(CLAIM, snippet)
    assert judgement.parts > 1
    assert judgement.prompt_tokens > 400  # every part was read


def test_nothing_listening_names_the_url():
    port = free_port()
    backend_url = f"http://127.0.0.1:{port}/v1"
    started = time.monotonic()
    with pytest.raises(BackendUnavailable, match=rf"cannot reach the LLM server at {backend_url}/models") as raised:
        OpenAIBackend(make_session(retries=1, backoff_s=0.01), backend_url)
    assert "vllm serve" in str(raised.value)
    assert time.monotonic() - started < 10


def test_a_server_killed_mid_run_stops_the_run_with_results_kept(private_llama_server):
    backend = OpenAIBackend(make_session(retries=1, backoff_s=0.01), private_llama_server.url, max_in_flight=1)
    judge = Judge(backend, REFBOT, justify=False)
    finished = []

    def tasks():
        for i in range(10):
            if i == 3:
                private_llama_server.kill()
            yield i, CLAIM, SNIPPET

    with pytest.raises(BackendUnavailable, match=private_llama_server.url):
        for key, judgement in judge.judge_all(tasks()):
            finished.append(key)
    assert finished == [0, 1, 2]


class _Flaky(http.server.BaseHTTPRequestHandler):
    """Answers 503, then 429 with Retry-After, then a valid model list."""

    answers: list[tuple[int, dict]] = []
    seen: list[float] = []

    def do_GET(self):  # noqa: N802
        self.seen.append(time.monotonic())
        status, headers = self.answers.pop(0) if self.answers else (200, {})
        body = b'{"data": [{"id": "flaky-model", "max_model_len": 512}]}' if status == 200 else b"busy"
        self.send_response(status)
        for name, value in headers.items():
            self.send_header(name, value)
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)

    def log_message(self, *args):
        pass


@pytest.fixture
def flaky_server():
    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), _Flaky)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    _Flaky.seen = []
    yield server
    server.shutdown()


@pytest.mark.usefixtures("flaky_server")
def test_429_and_5xx_are_retried_with_backoff_honouring_retry_after(flaky_server):
    _Flaky.answers = [(503, {}), (429, {"Retry-After": "1"})]
    url = f"http://127.0.0.1:{flaky_server.server_address[1]}/v1"
    backend = OpenAIBackend(make_session(retries=3, backoff_s=0.05), url)
    assert backend.model_id == "flaky-model"
    assert backend.context_tokens() == 512
    assert len(_Flaky.seen) == 4
    assert _Flaky.seen[2] - _Flaky.seen[1] >= 0.95  # waited as Retry-After asked


def test_a_server_that_keeps_failing_is_reported_with_its_status(flaky_server):
    _Flaky.answers = [(503, {})] * 5
    url = f"http://127.0.0.1:{flaky_server.server_address[1]}/v1"
    with pytest.raises(BackendUnavailable, match="kept answering HTTP 503"):
        OpenAIBackend(make_session(retries=2, backoff_s=0.01), url)


def test_echoed_prompt_logprobs_are_read_over_the_continuation_only():
    from bot.judge.openai_backend import _prompt_logprobs

    # The legacy completions format vLLM answers with, echo on: the prompt's tokens, then the generated one.
    answer = {"choices": [{"logprobs": {"tokens": ["The", " cat", " sat", "."],
                                        "token_logprobs": [None, -2.0, -0.5, -1.0],
                                        "text_offset": [0, 3, 7, 11]}}]}
    assert _prompt_logprobs(answer, 7, 11) == (-0.5,)
    assert _prompt_logprobs(answer, 0, 11) == (-2.0, -0.5)
    assert _prompt_logprobs({"choices": [{"logprobs": {"content": []}}]}, 0, 11) is None


def test_a_server_that_echoes_scores_every_token_of_each_continuation(recording_server):
    """A stand-in for vLLM (which cannot run here): /completions with echo answers the prompt's words as tokens,
    each word's log-probability minus its length."""
    import json
    import threading
    import time

    from servers import Reply, routed

    in_flight, most = [0], [0]
    lock = threading.Lock()

    def completions(request):
        with lock:
            in_flight[0] += 1
            most[0] = max(most[0], in_flight[0])
        time.sleep(0.2)
        with lock:
            in_flight[0] -= 1
        prompt = json.loads(request.body)["prompt"]
        tokens, offsets, position = [], [], 0
        for word in prompt.split(" "):
            tokens.append(word if not offsets else " " + word)
            offsets.append(position)
            position += len(tokens[-1])
        logprobs = [None] + [-float(len(token.strip())) for token in tokens[1:]]
        return Reply(200, json.dumps({"choices": [{"text": "x", "logprobs": {
            "tokens": tokens + ["x"], "token_logprobs": logprobs + [-0.1], "text_offset": offsets + [position]}}],
            "usage": {"prompt_tokens": len(tokens)}}), {"Content-Type": "application/json"})

    recording_server.script = routed({
        "/v1/models": Reply(200, json.dumps({"data": [{"id": "llama"}]}), {"Content-Type": "application/json"}),
        "/v1/completions": completions})
    backend = OpenAIBackend(make_session(), recording_server.url + "/v1")
    scored = backend.continuation_logprobs("In summary, Novotná", [" received the medal", " was nominated"])
    assert scored.logprobs == ((-8.0, -3.0, -5.0), (-3.0, -9.0))
    assert scored.tokens == 3 + 3 + 2  # the prefix once, then each continuation's own tokens
    assert [r.path for r in recording_server.requests].count("/v1/completions") == 2
    assert most[0] == 1  # the first answer teaches whether the server echoes; the second waits for it
    # Known to echo, the continuations of one judgement go to the server at once, answers kept in order.
    scored = backend.continuation_logprobs("In summary, Novotná", [" received it", " was nominated", " won"])
    assert scored.logprobs == ((-8.0, -2.0), (-3.0, -9.0), (-3.0,)) and most[0] == 3


def test_a_vllm_server_renders_the_chat_prompt_by_tokenizing_the_messages(recording_server):
    """A stand-in for vLLM (which cannot run here): no /apply-template; /tokenize takes messages and answers
    token ids (here one per character), /detokenize turns them back into the prompt text."""
    import json

    from servers import Reply, routed

    def tokenize(request):
        body = json.loads(request.body)
        text = "".join(f"<|im_start|>{m['role']}\n{m['content']}<|im_end|>\n" for m in body["messages"])
        text += "<|im_start|>assistant\n" if body.get("add_generation_prompt") else ""
        return Reply(200, json.dumps({"tokens": [ord(c) for c in text], "count": len(text)}),
                     {"Content-Type": "application/json"})

    def detokenize(request):
        return Reply(200, json.dumps({"prompt": "".join(chr(t) for t in json.loads(request.body)["tokens"])}),
                     {"Content-Type": "application/json"})

    def completions(request):
        return Reply(200, json.dumps({"choices": [{"text": "x", "logprobs": {
            "content": [{"token": " received", "logprob": -0.5, "top_logprobs": [
                {"token": " received", "logprob": -0.5}, {"token": " was", "logprob": -2.0}]}]}}],
            "usage": {"prompt_tokens": 40, "prompt_tokens_details": {"cached_tokens": 30}}}),
            {"Content-Type": "application/json"})

    recording_server.script = routed({
        "/v1/models": Reply(200, json.dumps({"data": [{"id": "llama"}]}), {"Content-Type": "application/json"}),
        "/tokenize": tokenize, "/detokenize": detokenize, "/v1/completions": completions})
    backend = OpenAIBackend(make_session(), recording_server.url + "/v1")
    messages = [{"role": "system", "content": "S"}, {"role": "user", "content": 'Text: "T"'}]
    assert backend.render(messages) == ('<|im_start|>system\nS<|im_end|>\n<|im_start|>user\nText: "T"<|im_end|>\n'
                                        "<|im_start|>assistant\n")
    assert backend.render(messages) is not None
    assert [r.path for r in recording_server.requests].count("/apply-template") == 1  # the route is learnt once
    # A rendered prefix has its special tokens written out: none is added, so it is tokenised as the chat prompt.
    scored = backend.continuation_logprobs('<|im_start|>user\nText: "T\n\nIn summary, N', [" received it"],
                                           rendered=True)
    sent = [json.loads(r.body) for r in recording_server.requests if r.path == "/v1/completions"]
    assert sent and all(body["add_special_tokens"] is False for body in sent)
    assert scored.tokens == 10  # 40 prompt tokens, 30 of them held in the server's prefix cache


class ServerCountingSession(CountingSession):
    """In flight at once, by server."""

    def __init__(self) -> None:
        super().__init__()
        self.by_server: dict[str, int] = {}
        self.most_by_server: dict[str, int] = {}
        self.servers: list[str] = []

    def request(self, method, url, *args, **kwargs):
        server = url.split("/v1", 1)[0]
        with self._lock:
            self.by_server[server] = self.by_server.get(server, 0) + 1
            self.most_by_server[server] = max(self.most_by_server.get(server, 0), self.by_server[server])
            self.servers.append(server)
        try:
            return super().request(method, url, *args, **kwargs)
        finally:
            with self._lock:
                self.by_server[server] -= 1


def test_several_servers_of_one_model_share_the_requests(llama_server, private_llama_server):
    """Two llama.cpp servers in [judge] url: at most in_flight on each, both used when one is full, and one
    question asked again goes to the server that has its prompt cached."""
    from concurrent.futures import ThreadPoolExecutor

    session = ServerCountingSession()
    backend = OpenAIBackend(session, [llama_server.url, private_llama_server.url], max_in_flight=1)
    assert backend.max_in_flight == 2, "callers size their pools by the sum"
    claims = [Claim(f"Person {n}", "award received", "Nobel Prize in Physics") for n in range(6)]
    with ThreadPoolExecutor(max_workers=4) as pool:
        answers = list(pool.map(lambda claim: backend.choose(REFBOT.messages(claim, SNIPPET), ("yes", "no")), claims))
    assert all(set(a.probabilities) == {"yes", "no"} for a in answers)
    asked = {server for server in session.servers[-6:]}
    assert len(asked) == 2 and max(session.most_by_server.values()) == 1, session.most_by_server
    session.servers.clear()
    for _ in range(3):
        backend.choose(REFBOT.messages(claims[0], SNIPPET), ("yes", "no"))
    assert len(set(session.servers)) == 1, "the same question, the same server"


def test_a_server_of_another_model_in_the_list_is_refused(llama_server, recording_server):
    from bot.errors import ConfigError
    from servers import Reply

    recording_server.script = lambda request: Reply(200, '{"data": [{"id": "another-model"}]}',
                                                    {"Content-Type": "application/json"})
    with pytest.raises(ConfigError, match=r"does not serve .*SmolLM2.*another-model"):
        OpenAIBackend(make_session(retries=0), [llama_server.url, recording_server.url + "/v1"])


EVA_BORN = Claim("Eva Hostilová", "date of birth", "1970-03-15", predicate_phrase="was born on", as_sentence=True,
                 value=Value("time", "+1970-03-15T00:00:00Z/11", "1970-03-15"))
MOTHER_BORN = dataclasses.replace(EVA_BORN, object="1945-05-02",
                                  value=Value("time", "+1945-05-02T00:00:00Z/11", "1945-05-02"))


@pytest.mark.parametrize("text", [
    "The mother of Eva Hostilová was born on 15 March 1970.",
    "Karel, the brother of Eva Hostilová, was born on 15 March 1970.",
    "Eva Hostilová, whose mother was born on 15 March 1970, is a painter.",
    "Eva Hostilová gave birth to her daughter Jana on 15 March 1970.",
])
def test_a_real_judge_never_supports_a_relatives_date_as_the_subjects(llama_server, text):
    judge = Judge(OpenAIBackend(make_session(), llama_server.url), REFBOT, justify=False)
    judgement = judge.judge(EVA_BORN, text)
    assert judgement.verdict is Verdict.NOT_INFERRABLE
    assert judgement.answer.startswith('not asked: it writes "15 March 1970" only for ')


def test_a_real_judge_asks_about_the_subjects_date_beside_a_relatives_and_never_takes_the_relatives(llama_server):
    text = "Eva Hostilová was born on 15 March 1970 in Brno; her mother Jana was born on 2 May 1945."
    judge = Judge(OpenAIBackend(make_session(), llama_server.url), REFBOT, justify=False)
    own = judge.judge(EVA_BORN, text)
    assert own.written and not own.answer.startswith("not asked") and own.p_yes is not None
    # A statement giving her the mother's date is not supported; her own date beside it may be found against it.
    relatives = judge.judge(MOTHER_BORN, text)
    assert relatives.verdict in (Verdict.NOT_INFERRABLE, Verdict.CONTRADICTS)
    assert relatives.answer.startswith('not asked: it writes "2 May 1945" only for her mother')
