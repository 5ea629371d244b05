"""Error hierarchy of pico-dsl-v1: configuration, data and infrastructure failures.

A malformed model answer is never an error here: it scores 0.0 with a reason (see parse.py).
"""

from __future__ import annotations


class PicoDslError(Exception):
    """Base class of every error raised by pico-dsl-v1."""


class ConfigError(PicoDslError, ValueError):
    """An argument of `load_environment` or a builder is invalid; the message names valid values."""


class DataError(PicoDslError):
    """Packaged or generated benchmark rows are missing, malformed or fail validation."""


class CompileError(PicoDslError):
    """A phrase cannot be compiled into a row of the requested slice and level."""


class InfrastructureError(PicoDslError):
    """Something outside the model failed (endpoint, tokenizer files); never a model score."""
