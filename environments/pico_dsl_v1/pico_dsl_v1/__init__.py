"""pico-dsl-v1: a four-line reverse-then-transduce string eval for a tiny per-sample tape DSL.

`load_environment` is resolved lazily, so the pure core (oracle, compiler, validator, parser,
metrics) imports without loading verifiers.
"""

from typing import Any

__all__ = ["load_environment"]


def __getattr__(name: str) -> Any:
    if name == "load_environment":
        from .env import load_environment

        return load_environment
    raise AttributeError(f"module 'pico_dsl_v1' has no attribute {name!r}")
