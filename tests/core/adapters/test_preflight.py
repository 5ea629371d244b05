"""The model endpoint preflight against real sockets: a listening port passes, a closed port,
an unknown host and a non-http URL fail at once with the one-line infrastructure error."""

from __future__ import annotations

import asyncio
import socket
import time

import pytest
from smol_envs_core.adapters.preflight import endpoint_base_url, ensure_reachable
from smol_envs_core.errors import InfrastructureError

from tests.support.ports import free_port

pytestmark = pytest.mark.unit


def test_a_listening_endpoint_passes():
    with socket.socket() as server:
        server.bind(("127.0.0.1", 0))
        server.listen()
        port = server.getsockname()[1]
        asyncio.run(ensure_reachable(f"http://127.0.0.1:{port}/v1"))


def test_a_closed_port_fails_in_well_under_a_second_with_the_one_line_error():
    url = f"http://127.0.0.1:{free_port()}/v1"
    started = time.monotonic()
    with pytest.raises(InfrastructureError) as caught:
        asyncio.run(ensure_reachable(url))
    assert time.monotonic() - started < 5  # not the client's minutes of retries
    assert str(caught.value).startswith(f"smol-envs: infrastructure failure: model endpoint {url}:")
    assert "ConnectionRefusedError" in caught.value.reason


@pytest.mark.parametrize("url", ["http://no-such-host.invalid:8000/v1", "ftp://127.0.0.1/v1",
                                 "127.0.0.1:8000"])
def test_an_unknown_host_or_a_non_http_url_fails(url):
    with pytest.raises(InfrastructureError, match="model endpoint"):
        asyncio.run(ensure_reachable(url, timeout_s=5))


def test_only_a_client_config_is_checked():
    from openai import AsyncOpenAI
    from verifiers.types import ClientConfig

    assert endpoint_base_url(ClientConfig(api_base_url="http://h:1/v1/")) == "http://h:1/v1"
    # a ready client (a trainer's, or a scripted transport in tests) is its owner's business
    assert endpoint_base_url(AsyncOpenAI(base_url="http://127.0.0.1:9/v1/", api_key="x")) is None
    assert endpoint_base_url(object()) is None
