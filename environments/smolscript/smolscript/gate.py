"""smolscript's one scoring gate: how many scoring jobs are in flight toward the service.

Every path that scores goes through a `ScoringGate`: the classic rubric (`env.py`, one gate
per rubric), the v1 taskset (`taskset.py`, one gate per service option and process) and the
evaluator (`evaluate.py` for predictions, `evaluate_model.py` for `--model`, one gate per run
on the run's open client). A gate hands out at most `concurrency` slots at once per event loop;
a `Slot` sends one task's jobs (`verdict.score_code`: the candidate's job, then the credit
baselines when they run) on the gate's client. The adapters take a slot per call
(`ScoringGate.score`); the evaluator takes one for a task's whole scoring
(`evaluate.ScoringTasks`), so that a task waiting for a slot has not started and none starts
after a failure. No verifiers import.
"""

from __future__ import annotations

import asyncio
import weakref
from collections.abc import AsyncIterator, Mapping
from contextlib import asynccontextmanager
from typing import Any

from smolscript.errors import ScoringInfraError
from smolscript.verdict import ScoringClient, resolve_service_url, score_code


class Slot:
    """One scoring job's place in a gate: sends that job's service calls on the gate's client.

    Args:
        client: the scoring client (`smolscript_sandbox.client.SandboxClient` or a double).
        url: the service URL a failure is reported with when its error names none (None: the
            error as raised).
    """

    def __init__(self, client: ScoringClient, url: str | None):
        self.client = client
        self.url = url

    async def score(self, task: Mapping[str, Any], hidden: Mapping[str, Any], code: str | None,
                    note: str, reward_only: bool = False) -> dict[str, Any]:
        """`verdict.score_code` of assembled `code` (None: rejected by assembly, decided
        without a service call) on this slot's client; `reward_only`: see
        `verdict.score_reward_only`. Returns the verdict record.

        Raises:
            ScoringInfraError: the service failed; the error names its URL when known.
        """
        try:
            return await score_code(task, hidden, code, self.client, note,
                                    reward_only=reward_only)
        except ScoringInfraError as exc:
            if exc.url or self.url is None:
                raise
            raise ScoringInfraError(exc.reason, self.url) from exc


class ScoringGate:
    """At most `concurrency` scoring jobs in flight toward the service, per event loop.

    Args:
        requested_url: the service URL (one, or several comma-separated), or None to reuse or
            start the local one (`verdict.resolve_service_url`, in a thread, once). The gate
            then opens one pooled `SandboxClient` per event loop (making one costs ~50 ms CPU).
        concurrency: scoring jobs in flight at once (>= 1).
        client: an open scoring client to send on instead (its owner opens and closes it);
            see `on_client`.
    Raises:
        ValueError: `concurrency` < 1.
    """

    def __init__(self, requested_url: str | None, concurrency: int, *,
                 client: ScoringClient | None = None):
        if concurrency < 1:
            raise ValueError(f"concurrency must be >= 1, got {concurrency}")
        self.requested_url = requested_url
        self.concurrency = concurrency
        self._client = client
        self._url: str | None = None
        self._loops: dict[int, tuple[asyncio.Lock, asyncio.Semaphore]] = {}
        self._clients: weakref.WeakKeyDictionary[asyncio.AbstractEventLoop, Any] = (
            weakref.WeakKeyDictionary())

    @classmethod
    def on_client(cls, client: ScoringClient, concurrency: int) -> ScoringGate:
        """A gate over an open client (the evaluator's run client, or a test double)."""
        return cls(None, concurrency, client=client)

    def _here(self) -> tuple[asyncio.Lock, asyncio.Semaphore]:
        loop = id(asyncio.get_running_loop())
        if loop not in self._loops:
            self._loops[loop] = (asyncio.Lock(), asyncio.Semaphore(self.concurrency))
        return self._loops[loop]

    async def url(self) -> str:
        """The service's URL (resolved in a thread at the first call).

        Raises:
            ScoringInfraError: no service can be reached or started.
        """
        lock, _ = self._here()
        async with lock:
            if self._url is None:
                self._url = await asyncio.to_thread(resolve_service_url, self.requested_url)
        return self._url

    async def _client_and_url(self) -> tuple[ScoringClient, str | None]:
        if self._client is not None:
            return self._client, None
        from smolscript_sandbox.client import SandboxClient

        url = await self.url()
        loop = asyncio.get_running_loop()
        client = self._clients.get(loop)
        if client is None:  # one pooled client per event loop
            client = self._clients[loop] = SandboxClient(url, max_concurrency=self.concurrency)
        return client, url

    @asynccontextmanager
    async def slot(self) -> AsyncIterator[Slot]:
        """Wait for one of the `concurrency` slots of this event loop and hold it for the
        block; yields the Slot to send on. Raises ScoringInfraError (URL mode) when no service
        can be reached or started."""
        client, url = await self._client_and_url()
        _, semaphore = self._here()
        async with semaphore:
            yield Slot(client, url)

    async def score(self, task: Mapping[str, Any], hidden: Mapping[str, Any], code: str | None,
                    note: str, reward_only: bool = False) -> dict[str, Any]:
        """`Slot.score` in a slot of its own: at most `concurrency` at once.

        Raises:
            ScoringInfraError: the service failed; the error names its URL.
        """
        async with self.slot() as held:
            return await held.score(task, hidden, code, note, reward_only=reward_only)
