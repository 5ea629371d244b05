"""A workaround for asyncio's "Task exception was never retrieved" noise when a run stops.

When one rollout's infrastructure failure stops a verifiers 0.3.1 run, the other rollouts'
tasks are left to end on their own; those that fail the same way are never awaited and asyncio
would print each with a traceback. The run's failure is already reported in one line.
"""

from __future__ import annotations

import asyncio
from typing import Any

from ..errors import InfrastructureError


def as_infrastructure_error(error: BaseException) -> InfrastructureError | None:
    """The InfrastructureError behind `error`, also when vf-eval's env server sent its repr
    (None when it is not one)."""
    if isinstance(error, InfrastructureError):
        return error
    return InfrastructureError.from_text(str(error))


def drop_unawaited_infrastructure_failures(loop: asyncio.AbstractEventLoop) -> None:
    """Keep the run's failure to its one line.

    When one rollout's infrastructure failure stops a run, verifiers leaves the other rollouts'
    tasks to end on their own; those that fail the same way are never awaited, and asyncio would
    print each with a traceback ("Task exception was never retrieved"). This handler drops
    exceptions that are infrastructure failures (already reported); anything else still reaches
    the previous handler.
    """
    previous = loop.get_exception_handler()

    def handler(loop: asyncio.AbstractEventLoop, context: dict[str, Any]) -> None:
        error = context.get("exception")
        if error is not None and as_infrastructure_error(error) is not None:
            return
        if previous is not None:
            previous(loop, context)
        else:
            loop.default_exception_handler(context)

    loop.set_exception_handler(handler)
