"""Bounds of the service itself (issue 18, item 6): request bodies, abandoned requests, the
queue, idle connections, and 422 answers that never echo the request.

`BoundedRequests` is a plain ASGI middleware for POST requests: it refuses a body over
`max_body` bytes (413, from Content-Length before reading, or as soon as the stream passes
the cap), times out a body that stops arriving (408), and runs the request while watching the
connection: when the client goes away on a cancellable path, the request's task is cancelled,
which kills its sandboxed processes and frees its slot. `Admission` bounds the jobs waiting for
a pool's slots (503 when full). `idle_protocol` closes connections that send no complete
request within the idle time (uvicorn's own keep-alive timer only starts after a response).
"""

from __future__ import annotations

import asyncio
import contextlib
import json
from collections.abc import Awaitable, Callable
from typing import Any

from fastapi import Request
from fastapi.exceptions import RequestValidationError
from fastapi.responses import JSONResponse

Scope = dict[str, Any]
Message = dict[str, Any]
Receive = Callable[[], Awaitable[Message]]
Send = Callable[[Message], Awaitable[None]]


class _Refused(Exception):
    def __init__(self, status: int, detail: str) -> None:
        super().__init__(detail)
        self.status, self.detail = status, detail


class _ClientGone(Exception):
    pass


async def _reply(send: Send, status: int, detail: str) -> None:
    body = json.dumps({"detail": detail}).encode()
    await send({"type": "http.response.start", "status": status,
                "headers": [(b"content-type", b"application/json"),
                            (b"content-length", str(len(body)).encode()),
                            (b"connection", b"close")]})
    await send({"type": "http.response.body", "body": body})


class BoundedRequests:
    """ASGI middleware: body cap, body idle timeout, cancel on disconnect (paths in
    `cancellable`). Units: bytes, seconds."""

    def __init__(self, app: Callable, *, max_body: int, idle_s: float,
                 cancellable: tuple[str, ...]) -> None:
        self.app, self.max_body, self.idle_s = app, max_body, idle_s
        self.cancellable = cancellable

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http" or scope["method"] != "POST":
            await self.app(scope, receive, send)
            return
        try:
            body = await self._read_body(scope, receive)
        except _Refused as exc:
            await _reply(send, exc.status, exc.detail)
            return
        except _ClientGone:
            return
        gone = asyncio.Event()
        handed: list[bool] = []

        async def replay() -> Message:
            if not handed:
                handed.append(True)
                return {"type": "http.request", "body": body, "more_body": False}
            await gone.wait()
            return {"type": "http.disconnect"}

        app_task = asyncio.ensure_future(self.app(scope, replay, send))
        watch = asyncio.ensure_future(self._watch(receive, gone))
        await asyncio.wait({app_task, watch}, return_when=asyncio.FIRST_COMPLETED)
        if not app_task.done() and scope["path"] in self.cancellable:
            app_task.cancel()  # the client went away: stop its job and free the slot
            with contextlib.suppress(asyncio.CancelledError):
                await app_task
            return
        try:
            await app_task
        finally:
            watch.cancel()

    async def _read_body(self, scope: Scope, receive: Receive) -> bytes:
        """The whole body, or _Refused (413 over the cap, 408 when it stops arriving)."""
        for name, value in scope.get("headers", []):
            if name == b"content-length" and value.isdigit() and int(value) > self.max_body:
                raise _Refused(413, f"request body over {self.max_body} bytes")
        chunks, size = [], 0
        while True:
            try:
                message = await asyncio.wait_for(receive(), self.idle_s)
            except TimeoutError:
                raise _Refused(408, f"request body stalled for {self.idle_s:g} s") from None
            if message["type"] == "http.disconnect":
                raise _ClientGone
            chunk = message.get("body", b"")
            size += len(chunk)
            if size > self.max_body:
                raise _Refused(413, f"request body over {self.max_body} bytes")
            chunks.append(chunk)
            if not message.get("more_body", False):
                return b"".join(chunks)

    @staticmethod
    async def _watch(receive: Receive, gone: asyncio.Event) -> None:
        """Return once the client has disconnected (uvicorn also says so after the response)."""
        while True:
            message = await receive()
            if message["type"] == "http.disconnect":
                gone.set()
                return


class Admission:
    """Bounds the jobs of one pool: at most `slots + queue_limit` in the service at once."""

    def __init__(self, slots: int, queue_limit: int) -> None:
        self.limit = slots + queue_limit
        self.inflight = 0
        self.refused = 0

    @contextlib.contextmanager
    def admit(self):
        """Hold a place for one job; raises QueueFull when none is left."""
        if self.inflight >= self.limit:
            self.refused += 1
            raise QueueFull(f"queue full ({self.limit} jobs in the service); retry later")
        self.inflight += 1
        try:
            yield
        finally:
            self.inflight -= 1


class QueueFull(Exception):
    """No place left in a pool's queue (HTTP 503)."""


def safe_text(text: str, limit: int = 300) -> str:
    """ASCII-only, bounded text for an error message (lone surrogates cannot break JSON)."""
    return text.encode("ascii", "backslashreplace").decode("ascii")[:limit]


async def validation_error(_request: Request, exc: RequestValidationError) -> JSONResponse:
    """422 naming where and what is wrong, never the offending input (which may be huge or
    hold lone surrogates that no JSON encoder accepts)."""
    detail = [
        {
            "loc": [part if isinstance(part, int) else safe_text(str(part), 80)
                    for part in error.get("loc", ())],
            "type": safe_text(str(error.get("type", "")), 80),
            "msg": safe_text(str(error.get("msg", ""))),
        }
        for error in exc.errors()[:20]
    ]
    return JSONResponse(status_code=422, content={"detail": detail})


def idle_protocol(idle_s: float) -> type:
    """uvicorn's h11 protocol, closing a connection that has no complete request `idle_s`
    seconds after it opened (silent clients, headers sent byte by byte)."""
    from uvicorn.protocols.http.h11_impl import H11Protocol

    class IdleTimeoutH11(H11Protocol):
        def connection_made(self, transport: asyncio.Transport) -> None:  # type: ignore[override]
            super().connection_made(transport)
            self._idle_timer = self.loop.call_later(idle_s, self._close_if_idle)

        def _close_if_idle(self) -> None:
            if self.cycle is None and not self.transport.is_closing():
                self.transport.close()

        def connection_lost(self, exc: Exception | None) -> None:
            self._idle_timer.cancel()
            super().connection_lost(exc)

    return IdleTimeoutH11
