"""slm-eval: eight small-model benchmarks, the Int Index and eval_avg, as verifiers environments."""

from __future__ import annotations


def load_environment(**kwargs):
    """Build the environment (see `slm_eval.env.load_environment`)."""
    from .env import load_environment as _load

    return _load(**kwargs)


__all__ = ["load_environment"]
