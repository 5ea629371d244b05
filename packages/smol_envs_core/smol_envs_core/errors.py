"""The one infrastructure error that every environment raises and the failure policy recognises.

An infrastructure failure (model endpoint, scoring service, judge) is never a model outcome:
environments raise `InfrastructureError` (or a subclass) and the run stops, non-zero, with one
line naming the component and its URL.
"""

from __future__ import annotations


class InfrastructureError(RuntimeError):
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


def reject_unknown_arguments(environment: str, given: dict, valid: list[str]) -> None:
    """Refuse environment arguments that `load_environment` does not take (a typo such as
    `slise` must not silently run the defaults).

    Raises:
        TypeError: naming the unknown arguments and every valid one.
    """
    if given:
        raise TypeError(
            f"{environment}: unknown argument(s) {', '.join(sorted(given))}; "
            f"valid: {', '.join(valid)}"
        )
