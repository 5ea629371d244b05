"""The share of pipeline mutants each edition's hidden tests catch, per language and family.

``catch_table(public_rows, hidden_rows)`` classifies every mutant (``mutants.classify``) of
every program task of an edition against the task's hidden inputs and counts, per language,
the mutants caught, survived (a wrong program that passes every hidden test) and equivalent
(no domain input tells it from the task: not counted as wrong). The static check
``mutant_catch`` requires the built edition to catch every non-equivalent mutant;
``scripts/validate_smolscript.py`` prints the table of the current and the frozen default
editions (the before/after figure of issue 42). Pure: rows in, counts out.
"""

from __future__ import annotations

import json
from collections import Counter, defaultdict
from collections.abc import Iterable, Mapping
from functools import lru_cache
from typing import Any

from smolscript_builder.domains import DOMAINS
from smolscript_builder.generate import parse_stage
from smolscript_builder.mutants import FAMILIES, Verdict, classify

STATUSES = ("caught", "survived", "equivalent")


def task_verdicts(public: Mapping[str, Any], hidden: Mapping[str, Any]) -> list[Verdict]:
    """Mutant verdicts of one program row against its hidden tests (the search seed is the
    task key, so the verdicts are the same in every language and every run).

    The classification is pure, so it is memoised for the process (`_classified`), keyed by
    everything it reads: a build, the static checks and the validator that classify the same
    task against the same inputs pay for it once."""
    meta, signature = public["metadata"], public["signature"]
    inputs = json.dumps([test["args"][0] for test in hidden["tests"]])
    return list(_classified(meta["task_key"], tuple(meta["stages"]), public["difficulty"],
                            signature["params"][0]["type"], inputs))


@lru_cache(maxsize=16384)
def _classified(task_key: str, stages: tuple[str, ...], difficulty: str, param_type: str,
                inputs: str) -> tuple[Verdict, ...]:
    """`classify` of the pipeline `stages` (as written in a row's metadata) on the domain of
    (`difficulty`, `param_type`) against the hidden-test inputs `inputs` (a JSON list)."""
    domain = DOMAINS[difficulty][param_type]
    return tuple(classify(tuple(parse_stage(s) for s in stages), domain, json.loads(inputs),
                          f"smolscript-mutants:check:{task_key}"))


def catch_table(public_rows: Iterable[Mapping[str, Any]],
                hidden_rows: Iterable[Mapping[str, Any]],
                cache: dict[tuple[str, int], list[Verdict]] | None = None) -> dict[str, Any]:
    """Per-language and per-family mutant counts of an edition's program tasks.

    Returns ``{"languages": {lang: counts}, "families": {family: counts}, "all": counts,
    "survivors": [{"id", "mutant", "witness"}]}`` where counts are ``tasks``,
    ``tasks_with_survivor``, ``caught``, ``survived``, ``equivalent`` and ``share`` (caught
    over caught + survived, 1.0 when there is nothing to catch). ``cache`` (by task key and
    test count) may be shared between calls on nested editions.
    """
    hidden = {row["id"]: row for row in hidden_rows}
    cache = {} if cache is None else cache
    languages: dict[str, Counter] = defaultdict(Counter)
    families: dict[str, Counter] = {family: Counter() for family in FAMILIES}
    survivors = []
    for row in public_rows:
        if row["modality"] != "program":
            continue
        tests = hidden[row["id"]]
        key = (row["metadata"]["task_key"], len(tests["tests"]))
        if key not in cache:
            cache[key] = task_verdicts(row, tests)
        counts = languages[row["language"]]
        counts["tasks"] += 1
        counts["tasks_with_survivor"] += any(v.status == "survived" for v in cache[key])
        for verdict in cache[key]:
            counts[verdict.status] += 1
            families[verdict.mutant.family][verdict.status] += 1
            if verdict.status == "survived":
                survivors.append({"id": row["id"], "mutant": verdict.mutant.description,
                                  "witness": verdict.witness})
    total: Counter = Counter()
    for counts in languages.values():
        total.update(counts)
    return {
        "languages": {lang: _finish(c) for lang, c in languages.items()},
        "families": {family: _finish(c) for family, c in families.items()},
        "all": _finish(total),
        "survivors": survivors,
    }


def _finish(counts: Counter) -> dict[str, Any]:
    out: dict[str, Any] = {name: counts.get(name, 0) for name in
                           ("tasks", "tasks_with_survivor", *STATUSES)}
    judged = out["caught"] + out["survived"]
    out["share"] = round(out["caught"] / judged, 4) if judged else 1.0
    return out


def format_table(tables: Mapping[str, Mapping[str, Any]]) -> str:
    """A plain-text table: one line per language, one column group per edition."""
    editions = list(tables)
    langs = list(dict.fromkeys(lang for t in tables.values() for lang in t["languages"]))
    lines = ["language      " + "  ".join(f"{e:>34}" for e in editions)]
    for lang in [*langs, "all"]:
        cells = []
        for edition in editions:
            c = tables[edition]["all"] if lang == "all" else tables[edition]["languages"][lang]
            cells.append(f"{c['caught']:>4}/{c['caught'] + c['survived']:<4} "
                         f"{100 * c['share']:5.1f}% tasks {c['tasks_with_survivor']:>2}/"
                         f"{c['tasks']:<3}")
        lines.append(f"{lang:<13} " + "  ".join(f"{cell:>34}" for cell in cells))
    return "\n".join(lines)
