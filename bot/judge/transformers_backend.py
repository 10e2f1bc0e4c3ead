"""The embedded judge: a causal language model run in-process by transformers, on the CPU by default.

It loads a Hugging Face model directory, or a GGUF file (dequantised on load, which is slow for large
models: ``scripts/get-models --transformers`` converts once to a bf16 directory that loads in seconds).

Like a server's prefix cache (vLLM's automatic prefix caching, llama.cpp's slots), it keeps the key-value cache
of the last prompt it read: a prompt that begins with the same tokens — the judge's questions about one
paragraph share the system prompt and the paragraph — reads only what follows them.
"""

from __future__ import annotations

import copy
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from bot.errors import ModelError
from bot.judge.arithmetic import Arithmetic, arithmetic, weights_bytes
from bot.judge.backend import Choice, Completion, Continuations, letter_probabilities
from bot.judge.prompts import Generation, Message
from bot.judge.threads import threads_for
from bot.model_lock import MODELS


# Below this total probability the answer words are not among a server's top-20 tokens either.
UNLIKELY = 1e-3


def judge_arithmetic(path: Path, dtype: str, device: str = "cpu") -> Arithmetic | None:
    """The arithmetic the model at ``path`` is computed in (None on a GPU: the model's own type), known before it is
    loaded; a ModelError for a path with no model or an arithmetic refbot does not know."""
    if not path.exists():
        raise ModelError(f"no model at {path}", hint="run `scripts/get-models` or pass --judge-model PATH")
    if device != "cpu":
        return None
    try:
        # A GGUF file is dequantised to float32 whatever is asked.
        return arithmetic("float32" if path.is_file() else dtype, weights=weights_bytes(path))
    except ValueError as error:
        raise ModelError(str(error), hint="[judge] dtype: auto, bfloat16 or float32") from error


def judge_name(path: Path, arithmetic: Arithmetic | None) -> str:
    """The judge as traces and the calibration name it: a converted directory after its format, its parent naming
    the model ("qwen2.5-coder-1.5b/transformers-bf16"), and the arithmetic where the weights are computed in another
    type than they are stored in (" as float32": not the same judge)."""
    if path.is_file():
        return path.name
    name = f"{path.parent.name}/{path.name}"
    return name if arithmetic is None or arithmetic.dtype == "bfloat16" else f"{name} as {arithmetic.dtype}"


class TransformersBackend:
    max_in_flight = 1

    def __init__(self, model_path: str | Path, *, device: str = "cpu", threads: int = 0,
                 context_tokens: int = 8192, dtype: str = "auto") -> None:
        """``dtype`` is the arithmetic of a model directory on the CPU: "bfloat16", "float32", or "auto" — bf16
        where the CPU multiplies it natively, float32 elsewhere (:mod:`bot.judge.arithmetic`); ``threads`` 0 takes
        the cores actually free (:func:`bot.judge.threads.threads_for`)."""
        path = Path(model_path).expanduser()
        self.arithmetic: Arithmetic | None = judge_arithmetic(path, dtype, device)
        self.threads = threads_for(threads)
        dtype = self.arithmetic.dtype if self.arithmetic else dtype
        # Imported and loaded, like every call, under the lock all models share (bot.model_lock): transformers'
        # lazy imports are not safe from two threads at once (the judge's model loads in a thread of its own).
        with MODELS:
            import torch
            from transformers import AutoModelForCausalLM, AutoTokenizer

            torch.set_num_threads(self.threads)
            self.tokenizer: Any
            self.model: Any
            try:
                if path.is_file():  # a GGUF file
                    kwargs: dict[str, Any] = {"gguf_file": path.name}
                    source = str(path.parent)
                    weights: Any = torch.float32
                else:
                    kwargs = {}
                    source = str(path)
                    weights = getattr(torch, dtype) if device == "cpu" else "auto"
                self.tokenizer = AutoTokenizer.from_pretrained(source, **kwargs)
                model: Any = AutoModelForCausalLM.from_pretrained(source, dtype=weights, **kwargs)
                self.model = model.to(device)
            except (OSError, ValueError) as error:
                raise ModelError(f"cannot load the model at {path}: {error}",
                                 hint="pass a Hugging Face model directory or a GGUF file") from error
        self.model.eval()
        self.device = device
        self.model_id = judge_name(path, self.arithmetic)
        limit = getattr(self.model.config, "max_position_embeddings", None) or context_tokens
        self._context_tokens = min(int(limit), context_tokens)
        self._torch = torch
        self._lock = MODELS  # (with the tokenizer's calls: bot.model_lock)
        # The last prompt read, as token ids, and its key-value cache (see _read).
        self._read_ids: list[int] = []
        self._read_cache: Any = None

    def context_tokens(self) -> int:
        return self._context_tokens

    def count_tokens(self, text: str) -> int:
        with self._lock:
            return len(self.tokenizer(text, add_special_tokens=False)["input_ids"])

    def render(self, messages: Sequence[Message]) -> str:
        """The prompt text the model reads for ``messages``: the chat template applied, the assistant's turn
        opened, special tokens written out."""
        with self._lock:
            rendered: str = self.tokenizer.apply_chat_template(list(messages), add_generation_prompt=True,
                                                               tokenize=False)
        return rendered

    def _encode(self, messages: Sequence[Message]) -> Any:
        with self._lock:
            encoded: Any = self.tokenizer.apply_chat_template(
                list(messages), add_generation_prompt=True, return_tensors="pt", return_dict=True)
        return encoded["input_ids"].to(self.device)

    def _read(self, ids: list[int]) -> tuple[Any, int]:
        """One forward pass over the prompt ``ids`` (caller holds the lock): the model's output at the last
        position (its hidden states and logits, and the cache of the whole prompt) and how many tokens were
        read. The tokens it shares with the previous prompt are not read again: their cache is kept (cropped
        to them) and only the rest is computed; at least the last token is always read, for its logits."""
        from transformers import DynamicCache

        shared = 0
        limit = min(len(ids) - 1, len(self._read_ids))
        while shared < limit and ids[shared] == self._read_ids[shared]:
            shared += 1
        if shared and self._read_cache is not None:
            cache = self._read_cache
            if cache.get_seq_length() > shared:
                cache.crop(shared - cache.get_seq_length())  # a negative count: the tokens to drop
        else:
            cache, shared = DynamicCache(), 0
        self._read_ids, self._read_cache = [], None  # until the pass below has filled the cache
        output = self.model(self._torch.tensor([ids[shared:]], device=self.device), past_key_values=cache,
                            use_cache=True, output_hidden_states=True, logits_to_keep=1)
        self._read_ids, self._read_cache = list(ids), output.past_key_values
        return output, len(ids) - shared

    def complete(self, messages: Sequence[Message], generation: Generation) -> Completion:
        torch = self._torch
        input_ids = self._encode(messages)
        sample = generation.temperature > 0
        options: dict[str, Any] = {"max_new_tokens": generation.max_tokens, "do_sample": sample,
                                   "pad_token_id": self.tokenizer.pad_token_id or self.tokenizer.eos_token_id}
        if sample:
            options.update(temperature=generation.temperature, top_p=generation.top_p)
        with self._lock, torch.inference_mode():
            torch.manual_seed(generation.seed)
            output = self.model.generate(input_ids, attention_mask=torch.ones_like(input_ids), **options)
        new_tokens = output[0, input_ids.shape[1]:]
        with self._lock:
            text: str = self.tokenizer.decode(new_tokens, skip_special_tokens=True)
        return Completion(text.strip(), int(input_ids.shape[1]), int(new_tokens.shape[0]))

    def choose(self, messages: Sequence[Message], letters: Sequence[str]) -> Choice:
        """Logits of the letters' tokens computed in float32 from the last hidden state: bf16 logits are
        quantised to steps of 1/8 at their usual magnitude, which would flatten the support score."""
        torch = self._torch
        ids = self._encode(messages)[0].tolist()
        spellings: dict[int, str] = {}
        with self._lock:
            for letter in letters:
                for word in {letter, letter.capitalize(), letter.upper()}:
                    for spelling in (word, f" {word}"):
                        encoded = self.tokenizer.encode(spelling, add_special_tokens=False)
                        if len(encoded) == 1:
                            spellings.setdefault(encoded[0], spelling)
        token_ids = torch.tensor(list(spellings), device=self.device)
        with self._lock, torch.inference_mode():
            output, read = self._read(ids)
            hidden = output.hidden_states[-1][0, -1].float()
            head = self.model.get_output_embeddings()
            logits = head.weight[token_ids].float() @ hidden
            if getattr(head, "bias", None) is not None:
                logits = logits + head.bias[token_ids].float()
            # Normalise over the whole vocabulary with the model's own logits, so the letters' mass is real.
            log_total = torch.logsumexp(output.logits[0, -1].float(), dim=-1)
        probabilities = torch.exp(logits - log_total).tolist()
        if sum(probabilities) < UNLIKELY:  # the model would answer something else: as if not in the top tokens
            return Choice({}, read)
        token_probabilities = {spellings[token_id]: p for token_id, p in zip(spellings, probabilities)}
        return Choice(letter_probabilities(token_probabilities, letters), read)

    def continuation_logprobs(self, prefix: str, continuations: Sequence[str], *,
                              rendered: bool = False) -> Continuations:
        """Every continuation scored after one pass over ``prefix`` (a rendered chat prompt's special tokens are
        read as such): its key-value cache is shared by the continuations, which are read side by side in one
        batch, and the prefix's start already read for the previous prompt is not read again. As in ``choose``,
        each token's logit is
        computed in float32 from the hidden state (bf16 logits are quantised too coarsely to compare phrases a
        few tokens long); the model's own logits only normalise."""
        torch = self._torch
        with self._lock:
            head = self.tokenizer(prefix, add_special_tokens=False)["input_ids"]
            tails = [self.tokenizer(text, add_special_tokens=False)["input_ids"] for text in continuations]
        if not head or not all(tails):
            raise ModelError("a continuation is scored after a non-empty prefix and must not be empty")
        width = max(len(tail) for tail in tails)
        weight = self.model.get_output_embeddings().weight
        scores: list[list[float]] = [[] for _ in tails]
        with self._lock, torch.inference_mode():
            first, read = self._read(head)
            hidden = first.hidden_states[-1][0, -1].float()
            log_total = torch.logsumexp(first.logits[0, -1].float(), dim=-1)
            for row, tail in enumerate(tails):
                scores[row].append(float(weight[tail[0]].float() @ hidden - log_total))
            if width > 1:
                cache = copy.deepcopy(first.past_key_values)  # the prefix's own cache stays for the next prompt
                cache.batch_repeat_interleave(len(tails))
                pad = self.tokenizer.pad_token_id or self.tokenizer.eos_token_id or 0
                ids = torch.tensor([tail[:-1] + [pad] * (width - len(tail)) for tail in tails], device=self.device)
                mask = torch.zeros((len(tails), len(head) + width - 1), dtype=torch.long, device=self.device)
                for row, tail in enumerate(tails):
                    mask[row, : len(head) + len(tail) - 1] = 1
                output = self.model(ids, attention_mask=mask, past_key_values=cache, output_hidden_states=True)
                hiddens = output.hidden_states[-1].float()
                totals = torch.logsumexp(output.logits.float(), dim=-1)
                for row, tail in enumerate(tails):
                    for position, token in enumerate(tail[1:]):
                        logit = weight[token].float() @ hiddens[row, position]
                        scores[row].append(float(logit - totals[row, position]))
        return Continuations(tuple(tuple(row) for row in scores), read + sum(len(tail) for tail in tails))
