"""Error hierarchy of smoltalkbench: bad arguments, bad data, and infrastructure failures."""

from smol_envs_core.errors import InfrastructureError, SmolEnvsError


class SmolTalkBenchError(SmolEnvsError):
    """Base class of every error this package raises on purpose."""


class ConfigError(SmolTalkBenchError, ValueError):
    """An argument is invalid (the message names the valid values)."""


class DataError(SmolTalkBenchError, ValueError):
    """Source or benchmark data does not have the expected shape."""


class JudgeUnavailableError(SmolTalkBenchError, InfrastructureError):
    """The judge endpoint could not be used: the collection's `InfrastructureError` (component
    "judge"), so the shared failure policy stops the run instead of scoring it."""

    def __init__(self, reason: str, url: str | None = None):
        InfrastructureError.__init__(self, "judge", reason, url)

    def __reduce__(self):
        return (type(self), (self.reason, self.url))
