"""The lock every model and tokenizer refbot runs in its own process is used under (the embedded judge's, the
embedding model's): one computes at a time, each loaded, first used and called from one thread at a time.

A statement's threads otherwise called into torch, its CPU kernels' lazy set-up and Hugging Face's Rust tokenizers from
several threads at once (the judge's tokenizer was called outside the judge's own lock, and the two models each had a
lock of their own). Nothing is lost by it: each model's kernels already spread one call over every core.
"""

from __future__ import annotations

import os
import threading

MODELS = threading.RLock()
# Loading a model draws Hugging Face's progress bars ("Loading weights: 100%|…") on the terminal and into every
# worker's and job's log, beside refbot's own progress: off, unless the environment asks for them (set before
# transformers is imported, which reads it then; every model refbot loads imports this module first).
os.environ.setdefault("HF_HUB_DISABLE_PROGRESS_BARS", "1")
