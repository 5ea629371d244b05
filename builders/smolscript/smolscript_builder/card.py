"""The dataset card (``data/smolscript/README.md``), rendered from the built editions.

Tables are computed from the records, so the card cannot drift from the data; the status
paragraph is rendered from the validation report (`status_section`), and the validator
re-renders it (`with_status`) whenever it records an execution result.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Mapping, Sequence
from typing import Any

from smolscript.languages import LANGUAGE_ORDER, LANGUAGES

from smolscript_builder.editions import DATASET_VERSION, DIFFICULTIES, EDITION_SIZES

FAMILY_TEXT = {
    "arithmetic": "integer arithmetic, digit manipulation and conditions on one integer n",
    "strings": "ASCII string transformations, character filters and counts on a string s",
    "collections": "filtered reductions, mappings and orderings of integer lists xs and word "
    "lists words",
    "frequency": "frequency tables: distinct values, modes, duplicates and first occurrences",
    "combinations": "pipelines that cross families (a string count fed into arithmetic, a "
    "list reduction tested by a condition, ...)",
}

_FRONT_MATTER = """---
pretty_name: SmolScript
license: mit
language:
- en
tags:
- code
- code-generation
- evaluation
- multilingual
configs:
- config_name: default
  default: true
  data_files:
  - split: test
    path: smolscript.parquet
- config_name: previous1000
  data_files:
  - split: test
    path: archive/v0.2.0/smolscript.parquet
- config_name: full2000
  data_files:
  - split: test
    path: archive/v0.1.0/smolscript.parquet
- config_name: default-0.3.0
  data_files:
  - split: test
    path: archive/v0.3.0/smolscript.parquet
- config_name: default-0.4.0
  data_files:
  - split: test
    path: archive/v0.4.0/smolscript.parquet
---
"""


def _table(header: Sequence[str], rows: Sequence[Sequence[Any]]) -> str:
    lines = ["| " + " | ".join(header) + " |", "|" + "---|" * len(header)]
    lines += ["| " + " | ".join(str(c) for c in row) + " |" for row in rows]
    return "\n".join(lines)


def composition_table(rows: Sequence[Mapping[str, Any]]) -> str:
    """Language x difficulty counts with totals (markdown)."""
    counts = Counter((r["language"], r["difficulty"]) for r in rows)
    body = []
    for language in LANGUAGE_ORDER:
        cells = [counts[(language, d)] for d in DIFFICULTIES]
        if sum(cells):
            body.append([LANGUAGES[language].display_name, *cells, sum(cells)])
    totals = [sum(counts[(lang, d)] for lang in LANGUAGE_ORDER) for d in DIFFICULTIES]
    body.append(["Total", *totals, sum(totals)])
    return _table(["Language", "Easy", "Medium", "Moderate", "Total"], body)


def family_table(rows: Sequence[Mapping[str, Any]]) -> str:
    """Modality / family / category counts (markdown)."""
    counts = Counter((r["modality"], r["family"], r["category"]) for r in rows)
    body = [[m, f, c, n] for (m, f, c), n in sorted(counts.items())]
    return _table(["Modality", "Family", "Category", "Tasks"], body)


# The selection column of the frozen default editions.
FROZEN_030 = "default as published at 0.3.0 (frozen)"
FROZEN_040 = "default as published at 0.4.0 (frozen)"
STATUS_MARK = "**Status:"


def status_section(report: Mapping[str, Any]) -> str:
    """The card's status paragraph, from validation_report.json's "static" and "execution"
    sections: verified (every reference passed and every negative control and near miss
    failed, with the counts), failed (where it stopped) or unverified. Pure."""
    static = report["static"]["status"]
    execution = report.get("execution") or {}
    status = execution.get("status", "unverified")
    if status == "passed":
        return (
            f"{STATUS_MARK} execution-verified.** Static validation: {static}. In the isolated "
            f"scoring service every reference passed and every negative control, near miss and "
            f"executed pipeline mutant failed: {execution.get('checks_run')}/"
            f"{execution.get('checks_planned')} checks "
            f"({execution.get('references_executed')} references, "
            f"{execution.get('negative_controls_executed')} negative controls, "
            f"{execution.get('near_misses_executed')} near misses, "
            f"{execution.get('mutants_executed', 0)} mutants; "
            f"{execution.get('tests_run'):,} hidden-test runs), as recorded in "
            "`validation_report.json` by `scripts/validate_smolscript.py`."
        )
    if status == "failed":
        return (
            f"{STATUS_MARK} execution check failed.** Static validation: {static}. "
            f"{execution.get('detail', '')}; see `validation_report.json` and rerun "
            "`scripts/validate_smolscript.py`."
        )
    return (
        f"{STATUS_MARK} execution-unverified.** Static validation: {static}. The scoring sandbox "
        "has not yet\nrun every reference solution and negative control; `validation_report.json` "
        "records this\nhonestly and only the full validator (`scripts/validate_smolscript.py` "
        "without\n`--static-only`) can change it."
    )


def _mutant_counts(report: Mapping[str, Any]) -> str:
    """The default edition's mutant-catch figure, from the static `mutant_catch` check."""
    detail = report["static"]["checks"].get("mutant_catch", {}).get("default")
    if not detail:
        return "mutant check not run"
    counts = detail["all"]
    return (f"{counts['caught']} of the default edition's {counts['caught'] + counts['survived']}"
            f" non-equivalent mutants are caught; {counts['equivalent']} that no input tells "
            "apart from the task are equivalent, not wrong")


def with_status(card_text: str, report: Mapping[str, Any]) -> str:
    """`card_text` with its status paragraph (from STATUS_MARK to the next blank line) replaced
    by `status_section(report)`. Raises ValueError when the card has no status paragraph."""
    start = card_text.find(STATUS_MARK)
    if start < 0:
        raise ValueError("the card has no status paragraph")
    end = card_text.find("\n\n", start)
    end = len(card_text) if end < 0 else end
    return card_text[:start] + status_section(report) + card_text[end:]


def render_card(
    default_tasks: Sequence[Any],
    audits: Mapping[str, Any],
    report: Mapping[str, Any],
    include_web: bool,
) -> str:
    """The card text."""
    rows = [t.public for t in default_tasks]
    mutants = _mutant_counts(report)
    trig = audits["default"]["trigram"]
    full_trig = audits["full2000"]["trigram"]
    dom_count = sum(1 for r in rows if r["language"] == "javascript" and r["modality"] == "browser")
    web_note = (
        ""
        if include_web
        else (
            "\n**This build is program-only** (the web task generator was not available): the "
            "HTML, CSS and JavaScript DOM cells are empty.\n"
        )
    )
    return f"""{_FRONT_MATTER}
# SmolScript

An execution-based benchmark of basic programming for small language models (25M–350M
parameters) in nine languages: Python, JavaScript, HTML, CSS, C++, C, Lua, C# and Rust.
Dataset edition {_version()}, MIT licence. Every task is an original composition from an
explicit operation grammar; none is taken from HumanEval, MBPP or MultiPL-E.

{status_section(report)}
{web_note}
## Composition (default edition, {len(rows)} tasks)

{composition_table(rows)}

JavaScript includes {dom_count} browser DOM/event tasks.

## Families and categories (default edition)

{family_table(rows)}

Programming families: {"; ".join(f"**{k}**: {v}" for k, v in FAMILY_TEXT.items())}.
The category is the kind of the last pipeline stage (transform, filter, reduce, condition,
digits, ...). HTML tasks check elements, attributes, text and nesting, the number of elements
of each kind, and that every element is shown (not hidden by an attribute, display, visibility,
opacity, a zero-size or clipped box, or placement off the page), except one the task hides; CSS
tasks check computed styles on a fixed fixture on every element a selector matches (the match
counts are checked too), selector scope, untouched distractors, flex geometry and responsive
breakpoints at each breakpoint, 1 px below it and 80 px on either side (every element of the
fixture, for every property a media query sets, at every width); DOM tasks check event
handling in a real browser.

## How the tasks were made

- A programming task is a pipeline of 1-4 typed stages over one input (`n`, `s`, `xs` or
  `words`): easy tasks have 1-2 stages and small domains, medium 2-3, moderate 3-4 with wider
  domains. Difficulty labels are design judgments, not calibrated on models.
- Each stage has three independent faces: an English phrase (the task comment), a Python
  oracle, and statements of a small imperative IR. One generic emitter spells the IR in
  Python, JavaScript, C (C11), C++ (C++17), Lua 5.4, C# (Mono, C# 7.2 subset) and Rust
  (edition 2021, std only), so shared tasks across languages are deliberate translations.
- Hidden tests: edge cases of the input domain plus seeded samples (12 per task, plus up to
  2 inputs that expose the near-miss when the 12 do not, plus the inputs that catch each
  pipeline mutant the others miss: a constant off by one, a comparison swapped, a stage left
  out, the stages reordered; {mutants}), expected
  values computed by the oracle and compared exactly as canonical stdout (no floats). One
  number policy holds in every language's harness: an int-typed result that is an integral
  value in the int32 range prints as that integer (Python `len(xs) / 1` prints `3`, `-0.0`
  prints `0`); a non-integral value, NaN, an infinity, a value outside int32 or a boolean
  prints as its language spells it and fails.
- `hidden_test_pass_rate` (a diagnostic) credits only hidden tests that neither the empty
  answer nor the task's negative control passes, so an answer that implements nothing
  scores 0 on it.
- Each task has a negative control (a deliberately wrong solution: +1, negated, or an extra
  item) and, where the grammar allows, a near-miss (a stage left out or a predicate weakened)
  with hidden inputs that expose it. Web near misses are answers the probes must catch: the
  asked HTML inside a `<div hidden>`, a stylesheet that styles only the first of several
  matching elements, a breakpoint moved by 40 px.
- Variants differ in operations, not only in names or numbers: no two tasks (in any language
  or difficulty) share an operation structure (the sequence of operations with the kinds of
  their predicates and mappings), so constants alone never tell two tasks apart. Pipelines
  with a stage that changes nothing, constant outputs, or lopsided true/false answers are
  rejected.
- Audits: within each language no two programming tasks share a behavioural fingerprint
  (oracle outputs on a fixed probe set); web tasks have unique structural specs. Instruction
  pairs with word-trigram Jaccard >= {trig["threshold"]} are flagged and kept only with a
  behavioural reason: {trig["flagged_count"]} flagged pairs in the default edition
  ({full_trig["flagged_count"]} in full2000); {trig["flagged_count"] - trig["rejected_count"]}
  of them are kept because their operations and behavioural fingerprints (programs) or
  structural specs (web tasks) differ. This is a finite behavioural audit, not a proof of
  semantic uniqueness.
  Details: `audit_report.json`.

## Editions

| Config | Archive | Tasks | Selected from |
|---|---|---|---|
| full2000 | archive/v0.1.0 | {EDITION_SIZES["full2000"]} | generated |
| previous1000 | archive/v0.2.0 | {EDITION_SIZES["previous1000"]} | full2000 |
| default | (root) | {EDITION_SIZES["default"]} | previous1000 |
| default-0.3.0 | archive/v0.3.0 | {EDITION_SIZES["default"]} | {FROZEN_030} |
| default-0.4.0 | archive/v0.4.0 | {EDITION_SIZES["default"]} | {FROZEN_040} |

Each selection is a deterministic SHA256 ranking within language x modality x difficulty x
family x category strata (`selection_manifest.json` lists every id and its hash). Ids,
instructions, references and tests of a selected task are identical in every edition. The
full2000 and previous1000 compositions are the default table scaled to 2,000 and 1,000 by
largest remainder. `archive/v0.3.0/` and `archive/v0.4.0/` are not rebuilt: they keep the
default edition of dataset versions 0.3.0 and 0.4.0 byte for byte (their own
`checksums.json`), so that earlier results stay reproducible; never pool their scores with
the current edition's (a run records its edition and the dataset's sha256).

## Changes

- **0.5.0** (issue 42): program hidden tests catch the task's own pipeline mutants. A mutant
  is the pipeline with a constant moved by one, a comparison swapped (strict or not, turned
  round, max for min), a stage left out or the stages reordered; 0.4.0's hidden tests passed
  52 of the default edition's 880 non-equivalent mutants, on 32 of its 276 program tasks, in
  all seven program languages ("less than -2" passed as `n < -3`, "first 8 characters" as the
  first 7). Each task gained the few inputs that catch every one (boundary values at K-1, K,
  K+1, strings longer than each take length, orders that tell reordered stages apart; 32
  default tasks gained 1 or 2); the static check `mutant_catch` requires every
  non-equivalent mutant of full2000 to fail, and the full validation executes the mutants
  only one hidden test catches. Media-query CSS tasks probe every fixture element for every
  property the query sets at every width: a rule restyling every element (`*`) inside the
  query passed 8 of the 9 breakpoint tasks of 0.4.0. Ids, instructions, prompts and
  references are unchanged; scores of 0.4.0 and 0.5.0 are not comparable.
- **0.4.0** (issue 25): HTML and CSS hidden tests check the whole task. Every observed
  selector's match count is checked and every match is probed (0.3.0 probed the first match:
  a stylesheet styling only the first matching element passed 9 of the 35 CSS tasks); media
  queries are tested at each breakpoint and 1 px below it (0.3.0 tested 80 px either side, so
  a 540 px breakpoint passed a 480 px task); every HTML element must be shown (0.3.0 passed
  correct markup hidden in a `<div hidden>`: 35 of 35 HTML tasks). Web tasks gained near
  misses for each of these faults. Ids, instructions, prompts, references and program tasks
  are unchanged; HTML and CSS scores of 0.3.0 and 0.4.0 are not comparable.
- **0.3.0**: the default edition of 350 tasks (now `default-0.3.0`).

## Files

- `smolscript.jsonl` / `smolscript.parquet`: the public test split (JSONL with native JSON
  values; Parquet with `signature`, `tests` and `metadata` as JSON strings, one schema for
  program and browser rows). `reference_solution` is null.
- `references/solutions.jsonl`: reference solution, negative control and near-miss sources.
- `private_tests/hidden.jsonl`: hidden tests with expected values. Published for auditing;
  never put them or the references into a model's context.
- `archive/v0.1.0/`, `archive/v0.2.0/`: the same files for full2000 and previous1000;
  `archive/v0.3.0/`, `archive/v0.4.0/`: the default edition of dataset versions 0.3.0 and
  0.4.0 (frozen, each with its own `checksums.json` and `validation_report.json`).
- `selection_manifest.json`, `audit_report.json`, `validation_report.json`, `checksums.json`
  (SHA256 of every file except itself and the validation report).

Program rows: `signature` is `{{"params": [{{"name", "type"}}], "returns"}}` over the types
`int, bool, str, list[int], list[str]`; `tests` lists `{{"args", "stdin"}}`; `prefix` is the
entry-point opening and `imports` the supplied headers. Browser rows: `tests` holds
`{{"kind", "viewports", "probes", "timeout_s"}}` and `fixture`/`base_styles` the page.

## Loading

```python
import json
from datasets import load_dataset

rows = load_dataset("parquet", data_files="data/smolscript/smolscript.parquet", split="train")
tests = json.loads(rows[0]["tests"])
signature = json.loads(rows[0]["signature"])
```

## Rebuild and validate

```
uv run python scripts/build_smolscript.py          # regenerates every file byte for byte
uv run python scripts/validate_smolscript.py --static-only
```
"""


def _version() -> str:
    return DATASET_VERSION
