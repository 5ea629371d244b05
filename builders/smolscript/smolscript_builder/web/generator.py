"""Entry point of the web task generator: `generate_web_tasks` and `web_capacity`.

Tasks are drawn family by family (round-robin over the difficulty's builders, so categories
stay balanced) from one `random.Random(seed)` per (language, difficulty), and a draw whose
structural spec was already produced is rejected, so specs are unique within a call. The
difficulty is part of the random stream's seed and every difficulty uses different structure
sizes, so the data part can concatenate calls per difficulty. Pure and deterministic.
"""

from __future__ import annotations

import random
from functools import cache

from .css_tasks import BUILDERS as CSS_BUILDERS
from .css_tasks import draw_css_task
from .dom_tasks import BUILDERS as DOM_BUILDERS
from .dom_tasks import draw_dom_task
from .html_tasks import BUILDERS as HTML_BUILDERS
from .html_tasks import draw_html_task
from .records import DIFFICULTIES, to_record

LANGUAGES = {"html": (HTML_BUILDERS, draw_html_task), "css": (CSS_BUILDERS, draw_css_task),
             "javascript": (DOM_BUILDERS, draw_dom_task)}
MAX_MISSES = 400  # consecutive duplicate draws of one builder before it counts as exhausted
CAPACITY_PROBE = 3000  # draws per builder used to measure capacity


def _check(language: str, difficulty: str) -> None:
    if language not in LANGUAGES:
        raise ValueError(f"unknown web language {language!r}; valid: {sorted(LANGUAGES)}")
    if difficulty not in DIFFICULTIES:
        raise ValueError(f"unknown difficulty {difficulty!r}; valid: {DIFFICULTIES}")


def generate_web_tasks(language: str, count: int, seed: int, difficulty: str) -> list[dict]:
    """Generate `count` web task records with unique structural specs (see CONTRACT.md).

    `language`: "html", "css" or "javascript" (browser DOM/event tasks); `difficulty`:
    "easy", "medium" or "moderate". The same arguments always give the same records.
    Raises ValueError for unknown arguments, a negative count, or when the builders cannot
    supply `count` distinct specs.
    """
    _check(language, difficulty)
    if count < 0:
        raise ValueError("count must be >= 0")
    builders, draw = LANGUAGES[language]
    rng = random.Random(f"smolscript-web:{language}:{difficulty}:{seed}")
    seen: set[str] = set()
    records: list[dict] = []
    misses = [0] * len(builders[difficulty])
    turn = 0
    while len(records) < count:
        live = [k for k, m in enumerate(misses) if m < MAX_MISSES]
        if not live:
            raise ValueError(f"only {len(records)} distinct {language}/{difficulty} web specs "
                             f"could be generated; asked for {count}")
        k = live[turn % len(live)]
        record = to_record(draw(rng, difficulty, builders[difficulty][k]))
        if record["spec_key"] in seen:
            misses[k] += 1
            continue
        misses[k] = 0
        turn += 1
        seen.add(record["spec_key"])
        records.append(record)
    return records


@cache
def web_capacity(language: str, difficulty: str) -> int:
    """A measured lower bound on the distinct specs available for (language, difficulty).

    Counts the distinct spec keys among `CAPACITY_PROBE` draws per builder; the true space
    is larger for most families. Takes 1-30 s per call (html is slowest; cached).
    """
    _check(language, difficulty)
    builders, draw = LANGUAGES[language]
    rng = random.Random(f"smolscript-web-capacity:{language}:{difficulty}")
    keys = {to_record(draw(rng, difficulty, b))["spec_key"]
            for b in builders[difficulty] for _ in range(CAPACITY_PROBE)}
    return len(keys)
