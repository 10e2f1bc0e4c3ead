"""The LLM judge: one :class:`Judge` over interchangeable backends (an OpenAI-compatible server, transformers
in-process, or a scripted model for tests); ``bot.wiring`` builds the one the options name."""

from __future__ import annotations

from bot.judge.backend import Backend
from bot.judge.engine import Judge

__all__ = ["Backend", "Judge"]
