"""Credit of the `hidden_test_pass_rate` diagnostic: no credit for what implements nothing.

A hidden test that a baseline answer also passes shows nothing about the answer scored: a CSS
"distractor keeps its colour" check passes on an empty stylesheet, an HTML check on the input
type passes on the negative control that only misspells the label. The seed's diagnostic gives
no credit to solutions that are not implemented, so such a test earns no credit on its own:
the rate is the share of *credited* tests passed, a credited test being one that neither
baseline answer passes. The baselines of a task are

- the empty answer: the task's head closed at once (`empty_continuation`), assembled as a
  model's continuation would be (a CSS/HTML prefix alone, a DOM `setup` that does nothing,
  a program function with an empty body);
- the builder's negative control, when the hidden record carries one (`data.load_hidden`
  attaches it; it never leaves the host).

`passed` (every test) is untouched. A failed test counts against the answer whether credited
or not, so the rate is 1.0 only for an answer that passed every test (issue 42: it used to
count credited tests alone, and gave 1.0 to an answer that failed only uncredited ones). A
task whose tests all pass on a baseline has no credited test: its rate is then 1.0 when every
test passed, else 0.0. Pure apart from the cache of
baseline verdicts (per process, keyed by task id, the baseline's source and the hidden tests).
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Mapping, Sequence
from typing import Any

from smolscript.assemble import assemble_completion, assemble_prediction
from smolscript.languages import LANGUAGES

MAX_CACHED = 8192  # baseline verdicts kept per process (two per task)
_CACHE: dict[tuple[str, str], list[bool]] = {}


def empty_continuation(task: Mapping[str, Any]) -> str:
    """The continuation that closes the task's head without implementing anything.

    Browser CSS and HTML: nothing (the prefix alone). Everything with a function head (program
    languages, DOM scripts): the language's closing text (`}`, `end`; Python: nothing).
    """
    language = task["language"]
    if task.get("modality") == "browser" and language != "javascript":
        return ""
    return LANGUAGES[language].closing()


def baseline_sources(task: Mapping[str, Any], hidden: Mapping[str, Any]) -> list[str]:
    """The assembled sources of the task's baselines (empty answer, negative control)."""
    sources = [assemble_completion(task, empty_continuation(task)).code]
    if hidden.get("negative_control"):
        sources.append(assemble_prediction(task, hidden["negative_control"]).code)
    return [code for code in sources if code]


def credited(passed: Sequence[bool], baselines: Sequence[Sequence[bool]]) -> list[bool]:
    """Per test: True when no baseline passes it (it earns credit when the answer passes it).

    Raises ValueError when a baseline has another number of tests than `passed`.
    """
    for flags in baselines:
        if len(flags) != len(passed):
            raise ValueError(f"baseline has {len(flags)} test verdicts, answer {len(passed)}")
    return [not any(flags[i] for flags in baselines) for i in range(len(passed))]


def credited_rate(passed: Sequence[bool], credit: Sequence[bool]) -> float:
    """The credited share of tests passed, in [0, 1]: credited tests passed over the credited
    tests plus the uncredited tests failed.

    Passing a test a baseline also passes earns nothing, but failing it still counts against
    the answer (it broke what even doing nothing keeps), so the rate is 1.0 exactly when every
    test passed and never reports a failing answer as a full pass. With no test, 0.0.
    """
    earned = sum(1 for ok, c in zip(passed, credit, strict=True) if ok and c)
    counted = sum(1 for ok, c in zip(passed, credit, strict=True) if c or not ok)
    if not counted:
        return 1.0 if passed else 0.0
    return earned / counted


def cache_key(task: Mapping[str, Any], hidden: Mapping[str, Any], code: str) -> tuple[str, str]:
    """The cache key of one baseline verdict: task id, and the sha256 of the baseline source
    with the hidden tests it ran on."""
    tests = json.dumps(hidden.get("tests"), sort_keys=True, default=str)
    digest = hashlib.sha256(f"{code}\0{tests}".encode()).hexdigest()
    return str(task.get("id")), digest


def cached(key: tuple[str, str]) -> list[bool] | None:
    """A baseline's per-test verdicts seen before in this process, or None."""
    return _CACHE.get(key)


def remember(key: tuple[str, str], flags: list[bool]) -> None:
    """Keep a baseline's per-test verdicts (the oldest entries go first when full)."""
    if len(_CACHE) >= MAX_CACHED:
        _CACHE.pop(next(iter(_CACHE)))
    _CACHE[key] = list(flags)
