"""The client of the scoring service: the one module that talks to it over HTTP.

An async client with connection reuse and bounded concurrency. It needs only httpx and
pydantic (the service's FastAPI, Playwright and Docker are never imported), validates each job
with the shared schema before sending it and parses each reply into the schema's models.

Every infrastructure failure (service down, HTTP 5xx, a job or test reported as infra_error)
raises `SandboxInfraError`, so that callers stop instead of scoring it as a model failure;
a malformed job raises `JobRejected` (also when the service answers 422). Candidate failures
(compile_error, runtime_error, timeout, ...) are plain statuses in the reply.
"""

from __future__ import annotations

import asyncio
import os
from collections.abc import Mapping, Sequence
from typing import Any

import httpx
from pydantic import BaseModel, ValidationError

from smolscript_sandbox.errors import JobRejected, SandboxInfraError
from smolscript_sandbox.schema import BrowserJob, BrowserReply, ProgramJob, ProgramReply

DEFAULT_URL = "http://127.0.0.1:8790"
URL_ENV = "SMOLSCRIPT_SANDBOX_URL"


def default_url() -> str:
    """The service URL: $SMOLSCRIPT_SANDBOX_URL, else http://127.0.0.1:8790."""
    return os.environ.get(URL_ENV, DEFAULT_URL).rstrip("/")


def _validated(model: type[BaseModel], job: BaseModel | Mapping[str, Any]) -> BaseModel:
    if isinstance(job, model):
        return job
    try:
        return model.model_validate(dict(job))
    except ValidationError as exc:
        raise JobRejected(f"malformed {model.__name__}: {exc}") from exc


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

    async def _request(self, method: str, path: str, payload: Any = None) -> Any:
        async with self._semaphore:
            try:
                reply = await self._http.request(method, path, json=payload)
            except httpx.HTTPError as exc:
                raise SandboxInfraError(
                    f"unreachable: {type(exc).__name__}: {exc} (start it with "
                    "`python -m smolscript_sandbox start`)",
                    self.base_url,
                ) from exc
        if reply.status_code == 422:
            raise JobRejected(f"service rejected the job: {reply.text[:2000]}")
        if reply.status_code != 200:
            raise SandboxInfraError(f"HTTP {reply.status_code}: {reply.text[:2000]}",
                                    self.base_url)
        return reply.json()

    def _parse(self, model: type[BaseModel], data: Any) -> Any:
        try:
            return model.model_validate(data)
        except ValidationError as exc:
            raise SandboxInfraError(f"malformed {model.__name__} from the service: {exc}",
                                    self.base_url) from exc

    async def health(self) -> dict:
        """The service's health record (isolation mode, slots, runtimes, toolchains,
        fingerprint)."""
        return await self._request("GET", "/health")

    async def run_program_job(self, job: ProgramJob | Mapping[str, Any]) -> ProgramReply:
        """Run a program job; raises SandboxInfraError when it, or a test, is infra_error."""
        job = _validated(ProgramJob, job)
        reply = self._parse(ProgramReply, await self._request(
            "POST", "/v1/program", job.model_dump()))
        detail = reply.infra_detail()
        if detail is not None:
            raise SandboxInfraError(f"infra_error ({job.runtime}): {detail}", self.base_url)
        return reply

    async def run_program(self, runtime: str, files: Mapping[str, str],
                          stdins: Sequence[str]) -> ProgramReply:
        """Convenience wrapper: build the job from its parts and run it."""
        return await self.run_program_job(
            ProgramJob(runtime=runtime, files=dict(files), tests=[{"stdin": s} for s in stdins]))

    async def run_browser_job(self, job: BrowserJob | Mapping[str, Any]) -> BrowserReply:
        """Run a browser job; raises SandboxInfraError on infra_error."""
        job = _validated(BrowserJob, job)
        reply = self._parse(BrowserReply, await self._request(
            "POST", "/v1/browser", job.model_dump()))
        if reply.status == "infra_error":
            raise SandboxInfraError(f"browser infra_error: {reply.errors}", self.base_url)
        return reply
