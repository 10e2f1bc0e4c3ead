"""The LLM judge: one :class:`Judge` over interchangeable backends (an OpenAI-compatible server, or
transformers in-process)."""

from __future__ import annotations

from bot.errors import ConfigError
from bot.judge.backend import Backend
from bot.judge.engine import Judge
from bot.options import Options
from bot.judge.prompts import template_by_id

BACKENDS = ("transformers", "openai")


def make_judge(options: Options) -> Judge:
    """The judge over the backend the options name."""
    from bot.judge.calibration import for_judge

    template = template_by_id(options.template)
    backend = make_backend(options)
    return Judge(backend, template, threshold=options.threshold, justify=options.justify,
                 calibration=for_judge(backend.model_id, template.id))


def make_backend(options: Options) -> Backend:
    """Wire the backend the options name; the only place that builds sessions and loads models."""
    backend: Backend
    if options.judge_backend == "openai":
        from bot.judge.openai_backend import MAX_RETRY_WAIT_S, OpenAIBackend, make_session

        session = make_session(retries=options.judge_retries, api_key=options.judge_api_key or None,
                               pool_size=options.judge_in_flight * 4,  # each judgement's continuations too
                               max_wait_s=min(MAX_RETRY_WAIT_S, options.judge_timeout))
        served = options.judge_model if options.judge_model and not _is_catalogue_default(options) else None
        backend = OpenAIBackend(session, options.judge_url, served, timeout_s=options.judge_timeout,
                                max_in_flight=options.judge_in_flight,
                                context_tokens=options.judge_context or None)
    elif options.judge_backend == "transformers":
        from bot import modelstore
        from bot.judge.transformers_backend import TransformersBackend

        path = modelstore.resolve(options.judge_model, options.model_cache, transformers=True)
        backend = TransformersBackend(path, threads=options.threads,
                                      context_tokens=options.judge_context or 8192, dtype=options.judge_dtype)
    else:
        raise ConfigError(f"unknown judge backend {options.judge_backend!r}",
                          hint=f"choose one of: {', '.join(BACKENDS)}")
    return backend


def _is_catalogue_default(options: Options) -> bool:
    """The default model name is a local catalogue entry; a server is asked what it serves instead."""
    from bot.options import Options as Defaults

    return options.judge_model == Defaults().judge_model


__all__ = ["Judge", "make_judge", "make_backend", "BACKENDS"]
