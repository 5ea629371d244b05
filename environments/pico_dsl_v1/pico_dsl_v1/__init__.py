"""pico-dsl-v1: a four-line reverse-then-transduce string eval for a tiny per-sample tape DSL."""

from .env import load_environment

__all__ = ["load_environment"]
