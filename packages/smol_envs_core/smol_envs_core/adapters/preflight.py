"""Fail in seconds on a model endpoint that nothing listens at.

The OpenAI client that vf-eval builds retries a refused connection ten times with backoff, so a
dead endpoint (a typo in the port, a server that is not started) used to surface after one to
four minutes. Before the first rollout, `ensure_reachable` opens one TCP connection to the
endpoint's host and port: a refused connection, an unknown host or no answer within the timeout
raises `InfrastructureError` at once. It checks reachability only; whether the endpoint serves
the model is left to the first real request (and its retries). `chat_client_warning` words the
warning a raw-completion benchmark gives when vf-eval reaches the model through a chat API.
"""

from __future__ import annotations

import asyncio
from typing import Any
from urllib.parse import urlsplit

from ..errors import InfrastructureError

CONNECT_TIMEOUT_S = 15.0


def endpoint_base_url(client: Any) -> str | None:
    """The base URL (`http://host:port/v1`) of a verifiers `ClientConfig` (what vf-eval
    passes: `.api_base_url`), or None for anything else.

    A ready client object (an AsyncOpenAI a trainer built, perhaps on its own transport, or a
    test's scripted client) is its owner's business and is not checked.
    """
    value = getattr(client, "api_base_url", None)
    return str(value).rstrip("/") if value else None


COMPLETIONS_CLIENT = "openai_completions"


def chat_client_warning(client: Any, environment: str, completions_alias: str) -> str | None:
    """The one-line warning for a raw-completion benchmark run through a chat-style client,
    or None when the client sends raw completions or is not a verifiers `ClientConfig` (a
    trainer's ready client is its owner's business).

    `client.client_type` is what vf-eval's `--api-client-type` or an alias's `type` set
    (verifiers' default, `openai_chat_completions`, when neither does). Pure.
    """
    kind = getattr(client, "client_type", None)
    if not isinstance(kind, str) or kind == COMPLETIONS_CLIENT:
        return None
    return (f"{environment}: warning: the model is reached through client type {kind!r}, so it "
            "sees each prompt inside its chat template, while this is a raw-completion "
            f"benchmark (the model continues the prompt); use -m {completions_alias} or "
            f"--api-client-type {COMPLETIONS_CLIENT}")


def host_and_port(url: str) -> tuple[str, int]:
    """(host, port) of an http(s) URL, the port defaulting by scheme.

    Raises ValueError for a URL without a host or with another scheme.
    """
    parts = urlsplit(url)
    if parts.scheme not in ("http", "https") or not parts.hostname:
        raise ValueError(f"not an http(s) URL: {url!r}")
    return parts.hostname, parts.port or (443 if parts.scheme == "https" else 80)


async def ensure_reachable(url: str, component: str = "model endpoint",
                           timeout_s: float = CONNECT_TIMEOUT_S) -> None:
    """Open (and close) one TCP connection to `url`'s host and port.

    Raises InfrastructureError(component, reason, url) when the connection is refused, the
    host does not resolve, or nothing answers within `timeout_s` seconds.
    """
    try:
        host, port = host_and_port(url)
    except ValueError as exc:
        raise InfrastructureError(component, str(exc), url) from None
    try:
        _, writer = await asyncio.wait_for(asyncio.open_connection(host, port), timeout_s)
    except TimeoutError:  # before OSError, of which it is a subclass
        raise InfrastructureError(
            component, f"no TCP connection to {host}:{port} within {timeout_s:g} s", url
        ) from None
    except OSError as exc:
        reason = exc.strerror or str(exc) or type(exc).__name__
        raise InfrastructureError(
            component, f"cannot connect to {host}:{port}: {type(exc).__name__}: {reason}", url
        ) from None
    writer.close()
    try:
        await writer.wait_closed()
    except OSError:
        pass
