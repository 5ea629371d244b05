"""Static rules that a browser task's probes check the whole task, not a part of it.

`coverage_errors(public_row, hidden_row)` lists the ways a task's probes could pass an answer
that does less than the task asks (issue 25): an observed selector whose element count is not
pinned or whose matches are not all probed (an answer styling only the first would pass), an
HTML element whose visibility is not checked (hidden markup would pass), a media-query
breakpoint without test widths at it and 1 px below it (a breakpoint anywhere between two
test widths would pass), a media-query task that leaves an observed element, property or
viewport unprobed (a universal rule inside the query would pass; issue 42). Pure code; the
full validation then runs the near misses that exploit each fault (`near_miss` of the
references) and requires them to fail.
"""

from __future__ import annotations

import re
from collections import defaultdict
from collections.abc import Mapping
from typing import Any

ACTIONS = {"click", "input", "key"}
KINDS = ("html", "css")  # DOM tasks address elements by id (one match each)


def coverage_errors(public: Mapping[str, Any], hidden: Mapping[str, Any]) -> list[str]:
    """Why `public`'s probes check less than its task (empty when they check all of it)."""
    scenario = public["tests"]
    if scenario["kind"] not in KINDS:
        return []
    probes = {p["id"]: p for p in scenario["probes"]}
    counts = {probes[t["probe"]]["selector"]: t["expected"]
              for t in hidden["tests"] if t["match"] == "count"}
    seen: dict[str, set[int]] = defaultdict(set)
    shown: dict[str, set[int]] = defaultdict(set)
    for probe in probes.values():
        if probe["op"] in ACTIONS | {"count"}:
            continue
        seen[probe["selector"]].add(int(probe.get("index", 0)))
        if probe["op"] == "visible":
            shown[probe["selector"]].add(int(probe.get("index", 0)))
    errors = []
    for selector, indices in sorted(seen.items()):
        if selector not in counts:
            errors.append(f"{public['id']}: no count test for {selector!r}")
        elif not set(range(int(counts[selector]))) <= indices:
            errors.append(f"{public['id']}: {selector!r} matches {counts[selector]} elements, "
                          f"probed at {sorted(indices)}")
        if scenario["kind"] == "html" and shown[selector] != indices:
            errors.append(f"{public['id']}: {selector!r} visibility not checked everywhere")
    widths = {v["width"] for v in scenario["viewports"]}
    points = breakpoints(public["metadata"].get("spec") or {})
    for point in points:
        if not {point - 1, point} <= widths:
            errors.append(f"{public['id']}: breakpoint {point}px lacks test widths "
                          f"{point - 1} and {point}")
    if points:
        errors += _media_query_gaps(public["id"], probes.values(), len(scenario["viewports"]),
                                    public.get("fixture") or "")
    return errors


def _media_query_gaps(task_id: str, probes: Any, viewports: int, fixture: str) -> list[str]:
    """A media-query task must probe every classed element of its fixture, and every element
    it observes for every property it observes at every viewport (issue 42): a rule inside
    the query that styles more than the targets, such as a universal one, then changes some
    probed value."""
    styles = {(p["selector"], int(p.get("index", 0)), p["property"], int(p.get("viewport", 0)))
              for p in probes if p["op"] == "style"}
    body = fixture[fixture.find("<body"):]
    classes = {name for names in re.findall(r'class="([^"]+)"', body) for name in names.split()}
    observed = {name for selector, _, _, _ in styles
                for name in re.findall(r"\.([\w-]+)", selector)}
    unprobed = sorted(classes - observed)
    elements = {(s, i) for s, i, _, _ in styles}
    props = {prop for _, _, prop, _ in styles}
    missing = [(s, i, prop, view) for s, i in sorted(elements) for prop in sorted(props)
               for view in range(viewports) if (s, i, prop, view) not in styles]
    errors = [f"{task_id}: media-query task leaves {len(missing)} element/property/viewport "
              f"combinations unprobed, e.g. {missing[0]}"] if missing else []
    if unprobed:
        errors.append(f"{task_id}: media-query task leaves fixture elements {unprobed} "
                      "unprobed")
    return errors


def breakpoints(spec: Mapping[str, Any]) -> list[int]:
    """The media-query breakpoints (px) of a CSS task's structural spec."""
    points = [int(rule[1]) for rule in spec.get("rules", [])]
    return points + ([int(spec["flex_point"])] if "flex_point" in spec else [])
