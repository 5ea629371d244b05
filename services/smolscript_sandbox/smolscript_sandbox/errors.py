"""The errors of the scoring service and its client: one infrastructure error, one bad job.

- `SandboxInfraError`: the service cannot run jobs here or did not run one (unreachable, HTTP
  5xx, an `infra_error` reply, bwrap or a toolchain missing, a container engine missing, a
  service that never became healthy). It is the collection's `InfrastructureError` (component
  "scoring service"), so the shared failure policy stops a run on it instead of scoring it.
- `JobRejected`: a job is malformed (unknown runtime, a bad file name, an unknown probe op): a
  bug of the caller, answered with HTTP 422.

Candidate behaviour (compile errors, crashes, timeouts) is never an error: it is a status in
the reply.
"""

from __future__ import annotations

from smol_envs_core.errors import InfrastructureError

COMPONENT = "scoring service"


class SandboxInfraError(InfrastructureError):
    """The scoring service failed or cannot run here; never a model failure."""

    def __init__(self, reason: str, url: str | None = None):
        super().__init__(COMPONENT, reason, url)

    def __reduce__(self):
        return (type(self), (self.reason, self.url))


class JobRejected(ValueError):
    """A job is malformed (the caller's mistake); the service answers it with HTTP 422."""
