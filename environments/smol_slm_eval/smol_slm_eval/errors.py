"""Error hierarchy of smol_slm_eval: bad arguments, missing or malformed data, endpoint refusals."""

from __future__ import annotations

from smol_envs_core.errors import InfrastructureError, SmolEnvsError


class SlmEvalError(SmolEnvsError):
    """Base class of every error this package raises on purpose (printed as one line when
    uncaught, see `smol_envs_core.errors.install_excepthook`)."""


class ConfigError(SlmEvalError, ValueError):
    """An argument is invalid (the message names the valid values)."""


class EvaluationOnlyError(SlmEvalError, ValueError):
    """A train split or an RL taskset was asked of smol-slm-eval, which is evaluation-only.

    Args:
        what: what was asked for, in words ("train split", "v1 taskset for RL").
    """

    def __init__(self, what: str):
        super().__init__(
            f"smol-slm-eval is evaluation-only: it has no {what}. Its rows are the benchmarks' own "
            "validation and test items (training on them would contaminate every score), and "
            "its multiple-choice tasks are scored from the endpoint's log-likelihoods, not from "
            "a sampled reply. Evaluate it with `vf-eval smol-slm-eval -a '{\"task\": ...}'` "
            "(verifiers 0.3.1) or read `get_eval_dataset()`.")


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
