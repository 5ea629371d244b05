"""The one module that talks to the smolscript scoring service (`smolscript_sandbox`).

An async HTTP client with connection reuse and bounded concurrency, used by the rubric and by
full validation. Every infrastructure failure (service down, HTTP 5xx, a job or test reported
as infra_error) raises `SandboxInfraError`, so that callers stop instead of scoring it as a
model failure. Model failures (compile_error, runtime_error, timeout, ...) are plain results.
"""

from __future__ import annotations

import asyncio
import os
from collections.abc import Mapping, Sequence
from typing import Any

import httpx

from smolscript.web.errors import InfraError

DEFAULT_URL = "http://127.0.0.1:8790"
URL_ENV = "SMOLSCRIPT_SANDBOX_URL"


class SandboxInfraError(InfraError):
    """The scoring service is unreachable or reported infra_error; never a model failure."""


class SandboxJobError(ValueError):
    """The service rejected a job as malformed (HTTP 422): a bug of the caller."""


def default_url() -> str:
    """The service URL: $SMOLSCRIPT_SANDBOX_URL, else http://127.0.0.1:8790."""
    return os.environ.get(URL_ENV, DEFAULT_URL).rstrip("/")


class SandboxClient:
    """Async client; use `async with SandboxClient() as client:` or call `aclose()`.

    `max_concurrency` bounds the jobs this client has in flight (the service queues the rest
    on its slots); `timeout_s` bounds one request, queueing included.
    """

    def __init__(
        self,
        base_url: str | None = None,
        *,
        max_concurrency: int = 16,
        timeout_s: float = 900.0,
        transport: httpx.AsyncBaseTransport | None = None,
    ) -> None:
        if max_concurrency < 1:
            raise ValueError(f"max_concurrency must be >= 1, got {max_concurrency}")
        self.base_url = (base_url or default_url()).rstrip("/")
        self._semaphore = asyncio.Semaphore(max_concurrency)
        self._http = httpx.AsyncClient(
            base_url=self.base_url,
            timeout=httpx.Timeout(timeout_s, connect=10.0),
            limits=httpx.Limits(
                max_connections=max_concurrency, max_keepalive_connections=max_concurrency
            ),
            transport=transport,
        )

    async def __aenter__(self) -> SandboxClient:
        return self

    async def __aexit__(self, *_exc: object) -> None:
        await self.aclose()

    async def aclose(self) -> None:
        """Close the pooled connections."""
        await self._http.aclose()

    async def _request(self, method: str, path: str, payload: Any = None) -> dict:
        async with self._semaphore:
            try:
                reply = await self._http.request(method, path, json=payload)
            except httpx.HTTPError as exc:
                raise SandboxInfraError(
                    f"scoring service unreachable at {self.base_url}: {type(exc).__name__}: {exc}"
                    " (start it with `python -m smolscript_sandbox start`)"
                ) from exc
        if reply.status_code == 422:
            raise SandboxJobError(f"service rejected the job: {reply.text[:2000]}")
        if reply.status_code != 200:
            raise SandboxInfraError(
                f"scoring service error HTTP {reply.status_code}: {reply.text[:2000]}"
            )
        return reply.json()

    async def health(self) -> dict:
        """The service's health record (isolation mode, slots, toolchains, fingerprint)."""
        return await self._request("GET", "/health")

    async def run_program_job(self, job: Mapping[str, Any]) -> dict:
        """Run a program job (CONTRACT.md shape); raises SandboxInfraError on infra_error."""
        result = await self._request("POST", "/v1/program", dict(job))
        failed = [i for i, t in enumerate(result.get("tests", [])) if t["status"] == "infra_error"]
        if result.get("status") == "infra_error" or failed:
            detail = result.get("error") or (
                result["tests"][failed[0]]["stderr"] if failed else "unknown"
            )
            raise SandboxInfraError(f"sandbox infra_error ({job.get('language')}): {detail}")
        return result

    async def run_program(
        self,
        language: str,
        source: str,
        stdins: Sequence[str],
        *,
        entry_point: str | None = None,
        signature: Mapping[str, Any] | None = None,
    ) -> dict:
        """Convenience wrapper: build the job from parts and run it."""
        return await self.run_program_job(
            {
                "language": language,
                "source": source,
                "entry_point": entry_point,
                "signature": dict(signature) if signature is not None else None,
                "tests": [{"stdin": s} for s in stdins],
            }
        )

    async def run_browser_job(self, job: Mapping[str, Any]) -> dict:
        """Run a browser job (web part's shape); raises SandboxInfraError on infra_error."""
        result = await self._request("POST", "/v1/browser", dict(job))
        if result.get("status") == "infra_error":
            raise SandboxInfraError(f"browser infra_error: {result.get('errors')}")
        return result
