"""The host scoring service as pytest fixtures, for the suites that send it jobs (a pytest
plugin, registered by the root conftest.py, so that no suite keeps its own copy).

The service runs at `smolscript_sandbox.testing.TEST_URL` ($SMOLSCRIPT_SANDBOX_TEST_URL): a
healthy one there is reused, else one is started and stopped when the session ends
(`ensure_service`, `stop_started`). A suite that needs it for every test says
`pytestmark = pytest.mark.usefixtures("scoring_service")`.
"""

from __future__ import annotations

import pytest
from smolscript_sandbox.testing import ensure_service


@pytest.fixture(scope="module")
def scoring_service() -> dict:
    """The health record of the host scoring service at TEST_URL (`pid`, `state_dir`,
    `browser`, `browser_slots`, ...). A service that cannot start fails the test
    (SandboxInfraError, with its log)."""
    return ensure_service()


@pytest.fixture(scope="module")
def browser_service(scoring_service: dict) -> dict:
    """`scoring_service`, for suites that send browser jobs: fails (naming the browser's error)
    when the service's warm browser did not start."""
    assert scoring_service["browser"]["error"] is None, scoring_service["browser"]
    return scoring_service
