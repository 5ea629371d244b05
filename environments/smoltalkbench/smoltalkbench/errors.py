"""Error hierarchy of smoltalkbench: bad arguments, bad data, and infrastructure failures."""

from smol_envs_core.errors import SmolEnvsError


class SmolTalkBenchError(SmolEnvsError):
    """Base class of every error this package raises on purpose."""


class ConfigError(SmolTalkBenchError, ValueError):
    """An argument is invalid (the message names the valid values)."""


class DataError(SmolTalkBenchError, ValueError):
    """Source or benchmark data does not have the expected shape."""


class JudgeUnavailableError(SmolTalkBenchError, RuntimeError):
    """The judge endpoint could not be used (raised only where a caller asks for it)."""
