"""Every error smolscript raises on purpose, in one place.

One of them is an infrastructure failure: `ScoringInfraError`, the collection's
`InfrastructureError` (component "scoring service"), which the shared failure policy turns into
a stopped run instead of a model's 0. The others are mistakes in arguments or data, named by
what they are about. A model's wrong, empty or unparseable answer is never an error: it is a
verdict.
"""

from __future__ import annotations

from smol_envs_core.errors import InfrastructureError, SmolEnvsError


class ScoringInfraError(InfrastructureError):
    """The scoring service failed; the run must stop instead of scoring (the collection's
    `InfrastructureError` with component "scoring service")."""

    def __init__(self, reason: str, url: str | None = None):
        super().__init__("scoring service", reason, url)

    def __reduce__(self):
        return (type(self), (self.reason, self.url))


class DataError(SmolEnvsError, ValueError):
    """Bad selection arguments or missing/malformed data files."""


class SignatureError(SmolEnvsError, ValueError):
    """A signature or a value does not match the smolscript value types."""


class PromptError(SmolEnvsError, ValueError):
    """A task cannot be turned into a valid prompt (bad field, trailing whitespace)."""


class PromptTooLongError(SmolEnvsError, ValueError):
    """Prompts plus their generation budget do not fit the model's context window.

    `too_long` lists (task id, prompt tokens, budget) for every offending task.
    """

    def __init__(self, too_long: list[tuple[str, int, int]], context_length: int):
        self.too_long = too_long
        self.context_length = context_length
        shown = ", ".join(f"{i} ({p}+{b})" for i, p, b in too_long[:10])
        super().__init__(
            f"{len(too_long)} prompt(s) do not fit a {context_length}-token context with their "
            f"generation budget (prompts are never truncated): {shown}"
        )


class ReportError(SmolEnvsError, ValueError):
    """A results file cannot be summarized (unreadable, or records lack required fields)."""


class EvaluationError(RuntimeError):
    """Bad predictions, a mismatching resume, a locked output, or a stopped run."""


class InfraStop(EvaluationError):
    """The evaluator stopped on a `ScoringInfraError` (its cause); the checkpoint keeps the
    tasks scored before it and the run gets no score."""


class ModelError(SmolEnvsError, ValueError):
    """`--model` names nothing that can be loaded here (no such file or folder, an unsupported
    file, a Hub id that cannot be reached), or `--revision` is given with a local model."""

