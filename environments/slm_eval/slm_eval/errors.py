"""Error hierarchy of slm_eval: bad arguments, missing or malformed data, endpoint refusals."""

from __future__ import annotations

from smol_envs_core.errors import InfrastructureError


class SlmEvalError(Exception):
    """Base class of every error this package raises on purpose."""


class ConfigError(SlmEvalError, ValueError):
    """An argument is invalid (the message names the valid values)."""


class DataError(SlmEvalError, ValueError):
    """Benchmark data has an unexpected shape or checksum."""


class DataUnavailableError(SlmEvalError, FileNotFoundError):
    """A task's data is not available here; the message names every way to supply it."""


class EndpointRefusedError(InfrastructureError):
    """The model endpoint cannot score log-likelihoods correctly (failed the echo probe)."""

    def __init__(self, reason: str, url: str | None = None):
        super().__init__("model endpoint (log-likelihood)", reason, url)

    def __reduce__(self):
        return (type(self), (self.reason, self.url))
