"""Root conftest: the plugins every suite of the repository shares (tests/ and the scoring
service's suite under services/), so that no suite keeps its own copy of them."""

pytest_plugins = [
    "tests.support.failure_digest",
    "tests.support.sandbox_targets",
    "tests.support.scoring_service",
]
