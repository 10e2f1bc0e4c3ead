"""Sentence embeddings for pre-ranking (all-MiniLM-L6-v2, as GPT-LODS used): the adapter that loads the model.

A :class:`SentenceEmbedder` is the function :func:`bot.checking.ranking.rank` takes (``bot.wiring`` builds it unless
embeddings are off); torch and transformers are imported only here. It keeps the vectors of the texts it embedded
last (``KEPT``): a page's units are embedded once, however many of a run's statements read that page.
"""

from __future__ import annotations

import hashlib
from collections import OrderedDict
from collections.abc import Callable
from pathlib import Path
from typing import Any

from bot.model_lock import MODELS

BATCH = 32
# all-MiniLM-L6-v2 was trained on 128 word pieces; longer paragraphs are cut (their start says the most).
MAX_TOKENS = 256
# Texts whose vectors are kept (least recently used dropped first): 1.5 KB each, 30 MB in all — the units of some
# hundred pages, enough for a statement's pages and a run's pages read again.
KEPT = 20_000

Embed = Callable[[list[str]], list[list[float]]]


class SentenceEmbedder:
    """Mean-pooled, L2-normalised token embeddings, as sentence-transformers computes them for this model."""

    def __init__(self, path: Path, threads: int = 0) -> None:
        with MODELS:  # imported and loaded, like every call, under the lock all models share (bot.model_lock)
            import torch
            from transformers import AutoModel, AutoTokenizer

            if threads:
                torch.set_num_threads(threads)
            self.tokenizer = AutoTokenizer.from_pretrained(str(path))
            self.model = AutoModel.from_pretrained(str(path)).eval()
        self._lock = MODELS
        self._kept: OrderedDict[bytes, Any] = OrderedDict()  # a text's sha1 → its vector (numpy float32)
        self.embedded = 0  # texts run through the model (not found among those kept)

    def __call__(self, texts: list[str]) -> list[list[float]]:
        import torch

        keys = [hashlib.sha1(text.encode("utf-8", "surrogatepass")).digest() for text in texts]
        with self._lock, torch.inference_mode():
            missing = {key: text for key, text in zip(keys, texts) if key not in self._kept}
            # Batches of texts of like length: little padding read.
            todo = sorted(missing.items(), key=lambda pair: len(pair[1]))
            for start in range(0, len(todo), BATCH):
                chunk = todo[start:start + BATCH]
                batch = self.tokenizer([text for _, text in chunk], padding=True, truncation=True,
                                       max_length=MAX_TOKENS, return_tensors="pt")
                tokens = self.model(**batch).last_hidden_state
                mask = batch["attention_mask"].unsqueeze(-1).to(tokens.dtype)
                pooled = (tokens * mask).sum(1) / mask.sum(1).clamp(min=1e-9)
                for (key, _), vector in zip(chunk, torch.nn.functional.normalize(pooled, dim=1).numpy()):
                    self._kept[key] = vector.copy()
            self.embedded += len(todo)
            vectors = []
            for key in keys:
                self._kept.move_to_end(key)
                vectors.append(self._kept[key].tolist())
            while len(self._kept) > KEPT:
                self._kept.popitem(last=False)
        return vectors
