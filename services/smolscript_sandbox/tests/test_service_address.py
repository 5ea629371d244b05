"""The scoring service's address as a user sets it: the environment, the evaluator and the
service itself must agree on it, so that a service started on SMOLSCRIPT_SANDBOX_PORT is the
one that `vf-eval smolscript` reuses (not a second one started on the default port)."""

from __future__ import annotations

import pytest
from smolscript_sandbox.client import DEFAULT_URL, default_url
from smolscript_sandbox.config import ServiceConfig

pytestmark = pytest.mark.unit


@pytest.fixture
def clean_env(monkeypatch):
    for name in ("SMOLSCRIPT_SANDBOX_URL", "SMOLSCRIPT_SANDBOX_HOST", "SMOLSCRIPT_SANDBOX_PORT"):
        monkeypatch.delenv(name, raising=False)
    return monkeypatch


def test_the_default_address_is_the_services_own_default(clean_env):
    assert default_url() == DEFAULT_URL == ServiceConfig.from_env().base_url


def test_a_port_set_for_the_service_is_where_the_client_looks(clean_env):
    clean_env.setenv("SMOLSCRIPT_SANDBOX_PORT", "8816")
    assert default_url() == "http://127.0.0.1:8816" == ServiceConfig.from_env().base_url


def test_an_explicit_url_wins_over_host_and_port(clean_env):
    clean_env.setenv("SMOLSCRIPT_SANDBOX_PORT", "8816")
    clean_env.setenv("SMOLSCRIPT_SANDBOX_URL", "http://10.0.0.5:9000/,http://10.0.0.6:9000")
    assert default_url() == "http://10.0.0.5:9000/,http://10.0.0.6:9000"
