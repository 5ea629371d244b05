"""Host-side comparator: browser observations + hidden expected values -> per-assertion verdicts.

Expected values never leave the host; the service returns only observations (see
`executor.py` and CONTRACT.md). Each hidden test names a probe, a match mode and the expected
value. Match modes encode the semantic equivalences the benchmark accepts:

- `exact`: JSON equality. `count`: integer equality.
- `text`: whitespace normalized by the element's computed `white-space-collapse` (ordinary
  text collapses, `pre` keeps every space, `pre-line` keeps line breaks).
- `enum`: enumerated attribute values, trimmed and compared case-insensitively (POST = post).
- `number`: numeric attribute forms ("2", "02", " 2 ", "2.0").
- `tokens`: class tokens as a set (order and repeats ignored).
- `bool`: boolean states (the executor already folds `hidden`, `hidden=""`, `hidden="hidden"`).
- `css`: computed CSS values atom by atom: colours in any notation, px within 0.5.
- `rect`: the expected keys of a rect, each within `tolerance` px (default 0.5).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from smolscript.errors import ScoringInfraError

from .values import css_values_equal, normalize_text, parse_number

Matcher = Callable[[Any, Any, dict], tuple[bool, str]]


def _exact(observed: Any, expected: Any, _test: dict) -> tuple[bool, str]:
    return observed == expected, "equal" if observed == expected else "values differ"


def _count(observed: Any, expected: Any, _test: dict) -> tuple[bool, str]:
    ok = isinstance(observed, int) and observed == int(expected)
    return ok, "count matches" if ok else f"expected {expected} element(s), found {observed}"


def _text(observed: Any, expected: Any, _test: dict) -> tuple[bool, str]:
    if not isinstance(observed, dict) or observed.get("text") is None:
        return False, "no text observed"
    mode = observed.get("white_space_collapse") or "collapse"
    got = normalize_text(observed["text"], mode)
    want = normalize_text(expected, mode)
    return got == want, f"text matches ({mode})" if got == want else f"text differs ({mode})"


def _enum(observed: Any, expected: Any, _test: dict) -> tuple[bool, str]:
    if not isinstance(observed, str):
        return False, "attribute missing"
    ok = observed.strip().lower() == str(expected).strip().lower()
    return ok, "enumerated value matches" if ok else "enumerated value differs"


def _number(observed: Any, expected: Any, _test: dict) -> tuple[bool, str]:
    got = parse_number(observed) if isinstance(observed, str) else observed
    if not isinstance(got, int | float):
        return False, "not a number"
    ok = abs(float(got) - float(expected)) < 1e-9
    return ok, "number matches" if ok else "number differs"


def _tokens(observed: Any, expected: Any, _test: dict) -> tuple[bool, str]:
    if not isinstance(observed, list):
        return False, "no class list observed"
    ok = set(observed) == set(expected)
    return ok, "class tokens match" if ok else "class tokens differ"


def _bool(observed: Any, expected: Any, _test: dict) -> tuple[bool, str]:
    if not isinstance(observed, bool):
        return False, "no boolean state observed"
    return observed == bool(expected), "state matches" if observed == bool(expected) \
        else "state differs"


def _css(observed: Any, expected: Any, _test: dict) -> tuple[bool, str]:
    if not isinstance(observed, str):
        return False, "no computed value observed"
    ok = css_values_equal(observed, str(expected))
    return ok, "computed value matches" if ok else "computed value differs"


def _rect(observed: Any, expected: Any, test: dict) -> tuple[bool, str]:
    if not isinstance(observed, dict):
        return False, "no geometry observed"
    tolerance = float(test.get("tolerance", 0.5))
    bad = [k for k, v in expected.items()
           if not isinstance(observed.get(k), int | float) or abs(observed[k] - v) > tolerance]
    return not bad, "geometry matches" if not bad else f"geometry differs in {', '.join(bad)}"


MATCHERS: dict[str, Matcher] = {
    "exact": _exact, "count": _count, "text": _text, "enum": _enum, "number": _number,
    "tokens": _tokens, "bool": _bool, "css": _css, "rect": _rect,
}


def compare(observations: dict, hidden_tests: list[dict]) -> list[dict]:
    """Judge each hidden test against the observations of one browser job.

    `observations` maps probe id -> {"ok": True, "value": v} | {"ok": False, "error": str};
    a missing probe id means the probe was never reached (e.g. the candidate timed out) and
    fails. Returns one verdict per test: {"id", "probe", "passed", "observed", "expected",
    "reason"}. Raises ValueError for an unknown match mode (a data error, not a model error).
    """
    verdicts = []
    for test in hidden_tests:
        matcher = MATCHERS.get(test["match"])
        if matcher is None:
            raise ValueError(f"unknown match mode {test['match']!r}; valid: {sorted(MATCHERS)}")
        observation = observations.get(test["probe"])
        observed = None
        if observation is None:
            passed, reason = False, "probe not reached"
        elif not observation.get("ok"):
            passed, reason = False, str(observation.get("error", "probe failed"))
        else:
            observed = observation.get("value")
            passed, reason = matcher(observed, test["expected"], test)
        verdicts.append({"id": test["id"], "probe": test["probe"], "passed": passed,
                         "observed": observed, "expected": test["expected"], "reason": reason})
    return verdicts


def score_browser_result(result: Any, hidden_tests: list[dict]) -> dict:
    """Turn a service browser result into a task outcome.

    Returns {"passed": all verdicts passed, "syntax_ok", "fraction" (passed share), "status",
    "verdicts"}. Raises ScoringInfraError when the service reports `infra_error`: infrastructure
    failures must never be scored as model failures.
    """
    if hasattr(result, "model_dump"):  # the service's BrowserReply (smolscript_sandbox.schema)
        result = result.model_dump()
    if result.get("status") == "infra_error":
        raise ScoringInfraError(f"browser job infrastructure error: {result.get('errors')}")
    verdicts = compare(result.get("observations") or {}, hidden_tests)
    passed = sum(v["passed"] for v in verdicts)
    return {"passed": bool(verdicts) and passed == len(verdicts),
            "syntax_ok": bool(result.get("syntax_ok")),
            "fraction": passed / len(verdicts) if verdicts else 0.0,
            "status": result.get("status"), "verdicts": verdicts}
