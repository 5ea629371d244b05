"""Error hierarchy of pico-dsl-v1: configuration, data and infrastructure failures.

A malformed model answer is never an error here: it scores 0.0 with a reason (see parse.py).
"""

from __future__ import annotations

from smol_envs_core import errors as core
from smol_envs_core.errors import SmolEnvsError


class PicoDslError(SmolEnvsError):
    """Base class of every error raised by pico-dsl-v1."""


class ConfigError(PicoDslError, ValueError):
    """An argument of `load_environment` or a builder is invalid; the message names valid values."""


class DataError(PicoDslError):
    """Packaged or generated benchmark rows are missing, malformed or fail validation."""


class CompileError(PicoDslError):
    """A phrase cannot be compiled into a row of the requested slice and level."""


class InfrastructureError(PicoDslError, core.InfrastructureError):
    """The bundled tokenizer files failed to load; never a model score (the collection's
    InfrastructureError with component "tokenizer files")."""

    def __init__(self, reason: str):
        core.InfrastructureError.__init__(self, "tokenizer files", reason)

    def __reduce__(self):
        return (type(self), (self.reason,))
