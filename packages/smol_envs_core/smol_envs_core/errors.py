"""The errors every environment shares, and how an uncaught one reaches the user.

An infrastructure failure (model endpoint, scoring service, judge) is never a model outcome:
environments raise `InfrastructureError` (or a subclass) and the run stops, non-zero, with one
line naming the component and its URL. A user error (a bad or misspelled argument) is one clear
line too. Both derive from `SmolEnvsError`; `install_excepthook` prints such an error, also when
vf-eval has wrapped it in its own exception, as one line without a traceback (a traceback with
SMOL_ENVS_DEBUG=1).
"""

from __future__ import annotations

import json
import os
import re
import sys

_REPR = re.compile(r"Error\((\{\"component\": .*?\})\)")


class SmolEnvsError(Exception):
    """An error whose message tells the user everything: printed as one line when uncaught."""


class InfrastructureError(SmolEnvsError, RuntimeError):
    """A component the scores depend on failed.

    Attributes:
        component: what failed, in words ("model endpoint", "scoring service", "judge").
        reason: one line on what happened (the last error after retries).
        url: where the component was reached, when known.

    `str(error)` is the one-line message users see:
    `smol-envs: infrastructure failure: <component> <url>: <reason>`.
    """

    def __init__(self, component: str, reason: str, url: str | None = None):
        self.component = component
        self.reason = " ".join(str(reason).split())
        self.url = url
        where = f" {url}" if url else ""
        super().__init__(f"smol-envs: infrastructure failure: {component}{where}: {self.reason}")

    def __reduce__(self):
        # Crosses the vf-eval env-server process boundary intact.
        return (type(self), (self.component, self.reason, self.url))

    def __repr__(self) -> str:
        # vf-eval's env server sends repr(exception) as text: make it exactly recoverable.
        fields = {"component": self.component, "reason": self.reason, "url": self.url}
        return f"{type(self).__name__}({json.dumps(fields)})"

    @classmethod
    def from_text(cls, text: str) -> InfrastructureError | None:
        """The error whose repr appears in `text` (an env server's error message), if any."""
        match = _REPR.search(text)
        if match is None:
            return None
        try:
            fields = json.loads(match.group(1))
            return cls(fields["component"], fields["reason"], fields.get("url"))
        except (ValueError, KeyError, TypeError):
            return None


class UnknownArgumentError(SmolEnvsError, TypeError):
    """`load_environment` got an argument it does not take."""


def reject_unknown_arguments(environment: str, given: dict, valid: list[str]) -> None:
    """Refuse environment arguments that `load_environment` does not take (a typo such as
    `slise` must not silently run the defaults).

    Raises:
        UnknownArgumentError (a TypeError): naming the unknown arguments and every valid one.
    """
    if given:
        raise UnknownArgumentError(
            f"{environment}: unknown argument(s) {', '.join(sorted(given))}; "
            f"valid: {', '.join(valid)}"
        )


def one_line_error(error: BaseException) -> SmolEnvsError | None:
    """The SmolEnvsError behind `error` (itself or along its cause/context chain), if any."""
    seen: set[int] = set()
    current: BaseException | None = error
    while current is not None and id(current) not in seen:
        if isinstance(current, SmolEnvsError):
            return current
        seen.add(id(current))
        current = current.__cause__ or current.__context__
    return None


def one_line_excepthook(previous, find=one_line_error, mark: str = "smol_envs"):
    """An excepthook printing `find(exception)` as one line on stderr (prefixed
    `smol-envs: error: ` unless it starts with `smol-envs:`), or calling `previous` when `find`
    returns None or SMOL_ENVS_DEBUG is set. The hook carries the attribute `mark` (True)."""
    def hook(kind, value, traceback):
        found = find(value)
        if found is None or os.environ.get("SMOL_ENVS_DEBUG"):
            previous(kind, value, traceback)
            return
        text = str(found)
        print(text if text.startswith("smol-envs:") else f"smol-envs: error: {text}",
              file=sys.stderr)

    setattr(hook, mark, True)
    return hook


def install_excepthook() -> None:
    """Print an uncaught SmolEnvsError (or one wrapped by vf-eval) as its one line; idempotent."""
    if not getattr(sys.excepthook, "smol_envs", False):
        sys.excepthook = one_line_excepthook(sys.excepthook)
