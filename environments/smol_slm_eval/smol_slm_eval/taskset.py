"""smol-slm-eval under verifiers' v1 API: an explicit refusal, since it is evaluation-only.

prime-rl and verifiers 0.4 load an environment package's exported `Taskset` subclass.
smol-slm-eval exports one only so that a trainer asking for it (`vf.load_taskset`,
`--env.taskset.id smol-slm-eval --env.taskset.split train`) gets `EvaluationOnlyError` with
the reason, not verifiers' generic "exports no Taskset subclass" or, worse, benchmark rows to
train on. Imports only `verifiers.v1`, which verifiers 0.3.1 and 0.4 both ship.
"""

from __future__ import annotations

from typing import Any

import verifiers.v1 as vf

from .config import SlmEvalOptions
from .errors import EvaluationOnlyError

REFUSED = "train split and no v1 taskset for RL"


class SlmEvalTasksetConfig(SlmEvalOptions, vf.TasksetConfig):
    """Options under `--env.taskset.*`: exactly the classic arguments (`config.SlmEvalOptions`),
    so that a valid option set meets the refusal and a bad one the classic error."""


class SlmEvalTaskset(vf.Taskset[vf.Task, SlmEvalTasksetConfig]):
    """Refuses to load (EvaluationOnlyError) whatever the split; a bad option value raises the
    classic environment's ConfigError first."""

    def __init__(self, config: SlmEvalTasksetConfig) -> None:
        config.check("v1")
        raise EvaluationOnlyError(REFUSED)

    def load(self) -> list[Any]:
        """Never reached (the constructor refuses); raises EvaluationOnlyError."""
        raise EvaluationOnlyError(REFUSED)
