"""The lock every model and tokenizer refbot runs in its own process is used under (the embedded judge's, the
embedding model's): one computes at a time, each loaded, first used and called from one thread at a time.

A statement's threads otherwise called into torch, its CPU kernels' lazy set-up and Hugging Face's Rust tokenizers from
several threads at once (the judge's tokenizer was called outside the judge's own lock, and the two models each had a
lock of their own). Nothing is lost by it: each model's kernels already spread one call over every core.
"""

from __future__ import annotations

import threading

MODELS = threading.RLock()
