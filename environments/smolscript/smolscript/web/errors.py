"""Errors of the web part: bad jobs or data (caller's fault) versus infrastructure failures."""


class WebError(Exception):
    """Base class for errors raised by `smolscript.web`."""


class JobError(WebError, ValueError):
    """A browser job is malformed (unknown kind or probe op, missing fields)."""


class InfraError(WebError, RuntimeError):
    """Trusted setup or the browser failed; never to be scored as a model failure."""
