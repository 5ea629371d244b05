"""Error hierarchy of pico-dsl-v1: configuration, data and infrastructure failures.

A malformed model answer is never an error here: it scores 0.0 with a reason (see parse.py).
"""

from __future__ import annotations

from smol_envs_core.errors import InfrastructureError as CoreInfrastructureError
from smol_envs_core.errors import SmolEnvsError


class PicoDslError(SmolEnvsError):
    """Base class of every error raised by pico-dsl-v1."""


class ConfigError(PicoDslError, ValueError):
    """An argument of `load_environment` or a builder is invalid; the message names valid values."""


class DataError(PicoDslError):
    """Packaged or generated benchmark rows are missing, malformed or fail validation."""


class CompileError(PicoDslError):
    """A phrase cannot be compiled into a row of the requested slice and level."""


class InfrastructureError(PicoDslError, CoreInfrastructureError):
    """Something outside the model failed (tokenizer files); never a model score. It is the
    collection's `InfrastructureError` (component "tokenizer files"), so the shared failure
    policy stops a run on it."""

    def __init__(self, reason: str, url: str | None = None):
        CoreInfrastructureError.__init__(self, "tokenizer files", reason, url)

    def __reduce__(self):
        return (type(self), (self.reason, self.url))
