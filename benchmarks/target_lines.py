"""A benchmark's closing lines: its targets are judged only on a complete run whose checks all
passed (shared by every benchmark under benchmarks/).

A benchmark records what went wrong as it runs (`Outcome.fail`, `Outcome.check`) and the
targets it measured (`Outcome.target`), then ends with `raise SystemExit(outcome.finish())`.
`finish` prints either one `FAILED:` line per problem and no target verdict at all (exit 1),
or one `target:` line per target, `met` or `NOT met`, with the figure that decided it (exit 0:
a target not met on a complete run is a measurement, not a broken run). So a run stopped after
300 of 939 checks can never print "met", nor a figure projected from its partial data.
"""

from __future__ import annotations

from dataclasses import dataclass, field

# Exit status of a run that is incomplete or had a failed check.
FAILED_EXIT = 1


@dataclass(frozen=True)
class Target:
    """One target: `name` (e.g. "full validation <= 120 s"), whether the measured figure met
    it, and that figure as text (e.g. "39.5 s, load average 0.4 before it")."""

    name: str
    met: bool
    measured: str

    def line(self) -> str:
        """`target: NAME: met (MEASURED)` or `... NOT met (...)`."""
        return f"target: {self.name}: {'met' if self.met else 'NOT met'} ({self.measured})"


@dataclass
class Outcome:
    """What a benchmark run found: its problems (checks failed, parts not run) and targets.

    problems: one reason per failed check or missing part, in the order they were recorded.
    targets: the targets measured, printed only when `problems` is empty.
    """

    problems: list[str] = field(default_factory=list)
    targets: list[Target] = field(default_factory=list)

    @property
    def complete(self) -> bool:
        """True when no check failed and no part of the run is missing."""
        return not self.problems

    def fail(self, reason: str) -> None:
        """Record a failed check or an incomplete part of the run (`reason`: one line)."""
        self.problems.append(reason)

    def check(self, ok: bool, reason: str) -> bool:
        """Record `reason` as a problem unless `ok`; returns `ok` (for `if outcome.check(...)`)."""
        if not ok:
            self.fail(reason)
        return ok

    def target(self, name: str, met: bool, measured: str) -> None:
        """Record a target and the figure that decides it (judged at `finish`, on a complete
        run only)."""
        self.targets.append(Target(name, bool(met), measured))

    def lines(self) -> list[str]:
        """The closing lines (pure): the problems and a line saying that no target is judged,
        or, on a complete run, one line per target."""
        if self.problems:
            return [f"FAILED: {reason}" for reason in self.problems] + [
                "no target is judged: the run is incomplete or a check failed"]
        return [target.line() for target in self.targets]

    def finish(self) -> int:
        """Print `lines()` and return the exit status: FAILED_EXIT when a problem was
        recorded, else 0."""
        for line in self.lines():
            print(line, flush=True)
        return FAILED_EXIT if self.problems else 0
