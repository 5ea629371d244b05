"""The suites of `smol-envs eval`, declared once: each run is one environment (or one task of
smol-slm-eval) with the API it needs, its documented defaults and, per suite, its rows.

`--suite quick` is a fixed subset (the first rows of each benchmark in its own order, so that
two quick runs of two models pair row by row) meant to finish in minutes on 2 CPU cores; the
report labels every one of its figures as a subset ("first 10 of 2376 rows"). `--suite full`
is every benchmark in full. `smol-envs eval --list` prints `table()`. Pure.
"""

from __future__ import annotations

from dataclasses import dataclass, field

SUITES = ("quick", "full")
CHAT = "chat"
COMPLETIONS = "completions"
ALL_ROWS = -1


@dataclass(frozen=True)
class SuiteRun:
    """One run of a suite.

    Attributes:
        name: the run's folder in the run set and its name on the command line (`--env`).
        env_id: the vf-eval environment id.
        api: CHAT (chat completions: instruction-following environments) or COMPLETIONS (raw
            `/v1/completions`: base-model benchmarks, echoed log-probabilities).
        env_args: `load_environment` arguments (vf-eval `-a`), the same in every suite.
        flags: further vf-eval flags (token budget, temperature), the same in every suite.
        rows: vf-eval `-n` per suite name (ALL_ROWS: every row).
        quick_args: `load_environment` arguments added in the quick suite only (a subset
            chosen by the environment, e.g. smolscript's first task per language).
        judge: True when the run needs the judge (smoltalkbench).
        in_process: run the environment inside this process (vf-eval's
            `--disable-env-server`); False for smolscript, whose rows' string `task` field
            verifiers 0.3.1 refuses there ("Plain string task routes are no longer supported")
            while its env server accepts it.
        scoring_service: True when the run needs the smolscript scoring service.
        what: the benchmark in words, for `--list`.
    """

    name: str
    env_id: str
    api: str
    env_args: dict = field(default_factory=dict)
    flags: tuple[str, ...] = ()
    rows: dict = field(default_factory=dict)
    quick_args: dict = field(default_factory=dict)
    judge: bool = False
    in_process: bool = True
    scoring_service: bool = False
    what: str = ""

    def args_for(self, suite: str) -> dict:
        """The `load_environment` arguments of this run in `suite`."""
        return {**self.env_args, **(self.quick_args if suite == "quick" else {})}

    def rows_for(self, suite: str, limit: int | None = None) -> int:
        """vf-eval's `-n` in `suite`, capped at `limit` rows when given (ALL_ROWS: every row)."""
        rows = self.rows.get(suite, ALL_ROWS)
        if limit is None:
            return rows
        return limit if rows == ALL_ROWS else min(rows, limit)


# The multiple-choice tasks keep each row's per-choice log-likelihoods (numbers only, never a
# question's text) in results.jsonl, so that two engines or conversions compare row by row.
MC_STATE = ("-C", "mc_record")


def _slm(task: str, quick: int, what: str, flags: tuple[str, ...] = (), **extra) -> SuiteRun:
    return SuiteRun(f"smol-slm-eval-{task}", "smol-slm-eval", COMPLETIONS,
                    env_args={"task": task, **extra}, flags=flags,
                    rows={"quick": quick, "full": ALL_ROWS}, what=what)


# One declaration. Token budgets and temperatures are each environment's documented defaults
# (its README's Quickstart); the smoltalkbench judge arguments are filled in by `run`.
RUNS: tuple[SuiteRun, ...] = (
    SuiteRun("pico-dsl-v1", "pico-dsl-v1", CHAT, flags=("-r", "1", "-t", "256", "-T", "0"),
             rows={"quick": 4, "full": ALL_ROWS},
             what="string transduction over an instruction tape (480 rows)"),
    SuiteRun("smolscript", "smolscript", COMPLETIONS, flags=("-r", "1"),
             rows={"quick": 9, "full": ALL_ROWS}, quick_args={"per_language": 1},
             scoring_service=True, in_process=False,
             what="programs in nine languages, hidden tests (350 tasks; quick: first task of "
                  "each language)"),
    SuiteRun("smoltalkbench", "smoltalkbench", CHAT, env_args={"dataset": "fixture"},
             flags=("-r", "1", "-t", "128", "-C", "judge"),
             rows={"quick": 3, "full": ALL_ROWS}, judge=True,
             what="everyday chat, logprob judge vs reference replies (the packaged 12-row "
                  "offline fixture)"),
    _slm("hellaswag", 10, "HellaSwag validation, echoed log-likelihoods (10042 rows)", MC_STATE),
    _slm("arc_easy", 10, "ARC-Easy test (2376 rows)", MC_STATE),
    _slm("arc_challenge", 10, "ARC-Challenge test (1172 rows)", MC_STATE),
    _slm("gpqa_diamond", 10, "GPQA Diamond (198 rows; rows never printed)", MC_STATE),
    _slm("math_500", 3, "MATH-500, generation (500 rows)"),
    _slm("bfcl_v4", 3, "BFCL v4 simple_python, function calls (generation)",
         bfcl_category="simple_python"),
)


def runs(suite: str, names: list[str] | None = None) -> list[SuiteRun]:
    """The runs of `suite`, restricted to `names` (run names or env ids) when given.

    Raises:
        ValueError: unknown suite, or a name matching no run (the message names the valid ones).
    """
    if suite not in SUITES:
        raise ValueError(f"unknown suite {suite!r}; choose one of {', '.join(SUITES)}")
    if not names:
        return list(RUNS)
    chosen = [r for r in RUNS if r.name in names or r.env_id in names]
    unknown = [n for n in names if not any(n in (r.name, r.env_id) for r in RUNS)]
    if unknown:
        raise ValueError(f"no run named {', '.join(unknown)}; valid: "
                         f"{', '.join(r.name for r in RUNS)} (or an environment id)")
    return chosen


def table() -> str:
    """The suites as a Markdown table (run, API, quick rows, full rows, what), as `--list`
    prints it and the README shows it."""
    def rows(run: SuiteRun, suite: str) -> str:
        n = run.rows_for(suite)
        if suite == "quick" and run.quick_args:
            return ", ".join(f"{k}={v}" for k, v in run.quick_args.items())
        return "all" if n == ALL_ROWS else f"first {n}"

    lines = ["| run | API | quick | full | benchmark |", "| :--- | :--- | :--- | :--- | :--- |"]
    lines += [f"| {r.name} | {r.api} | {rows(r, 'quick')} | {rows(r, 'full')} | {r.what} |"
              for r in RUNS]
    return "\n".join(lines)
