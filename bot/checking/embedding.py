"""Sentence embeddings for pre-ranking (all-MiniLM-L6-v2, as GPT-LODS used): the adapter that loads the model.

A :class:`SentenceEmbedder` is the function :func:`bot.checking.ranking.rank` takes (``bot.wiring`` builds it unless
embeddings are off); torch and transformers are imported only here.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

from bot.model_lock import MODELS

BATCH = 32
# all-MiniLM-L6-v2 was trained on 128 word pieces; longer paragraphs are cut (their start says the most).
MAX_TOKENS = 256

Embed = Callable[[list[str]], list[list[float]]]


class SentenceEmbedder:
    """Mean-pooled, L2-normalised token embeddings, as sentence-transformers computes them for this model."""

    def __init__(self, path: Path, threads: int = 0) -> None:
        import torch
        from transformers import AutoModel, AutoTokenizer

        with MODELS:  # loaded, like every call, under the lock all models share (bot.model_lock)
            if threads:
                torch.set_num_threads(threads)
            self.tokenizer = AutoTokenizer.from_pretrained(str(path))
            self.model = AutoModel.from_pretrained(str(path)).eval()
        self._lock = MODELS

    def __call__(self, texts: list[str]) -> list[list[float]]:
        import torch

        vectors: list[list[float]] = []
        with self._lock, torch.inference_mode():
            for start in range(0, len(texts), BATCH):
                batch = self.tokenizer(texts[start:start + BATCH], padding=True, truncation=True,
                                       max_length=MAX_TOKENS, return_tensors="pt")
                tokens = self.model(**batch).last_hidden_state
                mask = batch["attention_mask"].unsqueeze(-1).to(tokens.dtype)
                pooled = (tokens * mask).sum(1) / mask.sum(1).clamp(min=1e-9)
                vectors += torch.nn.functional.normalize(pooled, dim=1).tolist()
        return vectors
