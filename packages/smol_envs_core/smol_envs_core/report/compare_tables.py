"""A `compare.Comparison` as what the renderers show: header rows (who was compared, on how
many rows), plain tables (the figures, each breakdown, the flipped rows) and notes, so that the
terminal (`text`) and Markdown (`markdown`) print the same content. Pure."""

from __future__ import annotations

import math

from .compare import SHOWN_IDS, Comparison, Difference
from .model import Provenance, Table
from .statistics import fmt


def _run(p: Provenance) -> str:
    return (f"{p.model} · {p.path} · {p.date} · behaviour version {p.behaviour_version}")


def header_rows(c: Comparison) -> list[tuple[str, str]]:
    """(field, text): environment, the two runs, the dataset, the rows paired and unmatched,
    and the verdict."""
    unmatched = (f"{len(c.only_a)} only in A, {len(c.only_b)} only in B" if c.only_a or c.only_b
                 else "none")
    return [("environment", c.env_id), ("A", _run(c.a)), ("B", _run(c.b)),
            ("dataset", c.dataset), ("rows paired", str(c.paired)),
            ("rows unmatched (left out)", unmatched),
            ("rows excluded (e.g. judge errors)", str(len(c.excluded))),
            ("verdict", c.verdict)]


def _p(d: Difference) -> str:
    return "-" if d.p_value is None else f"{d.p_value:.3g}"


def _interval(d: Difference) -> str:
    return f"[{fmt(d.diff.low)}, {fmt(d.diff.high)}]"


def _mdd(d: Difference) -> str:
    return "n/a" if math.isnan(d.mdd) else fmt(d.mdd)


def figures_table(c: Comparison) -> Table:
    """The headline and the other figures: A, B, B - A, its interval and method, McNemar's p,
    N paired and the minimum detectable difference."""
    rows = tuple((d.name, fmt(d.a), fmt(d.b), fmt(d.diff.value), _interval(d), d.diff.method,
                  _p(d), str(d.diff.n), _mdd(d)) for d in (c.headline, *c.measures))
    return Table("paired difference B - A (points; 95% interval; MDD at 80% power, two-sided 5%)",
                 ("figure", "A", "B", "B - A", "95% interval", "method", "McNemar p",
                  "N paired", "MDD"), rows)


def breakdown_tables(c: Comparison) -> tuple[Table, ...]:
    """One table per breakdown: each group's rows, A, B, B - A, interval, p and MDD."""
    out = []
    for key, groups in c.breakdowns:
        if not groups:
            continue
        name = groups[0][1].name
        rows = tuple((group, str(d.diff.n), fmt(d.a), fmt(d.b), fmt(d.diff.value), _interval(d),
                      _p(d), _mdd(d)) for group, d in groups)
        out.append(Table(f"by {key}: {name}", (key, "N paired", "A", "B", "B - A",
                                               "95% interval", "McNemar p", "MDD"), rows))
    return tuple(out)


def _ids(keys: tuple[str, ...]) -> str:
    shown = ", ".join(keys[:SHOWN_IDS])
    more = len(keys) - SHOWN_IDS
    return (shown + (f" ... and {more} more" if more > 0 else "")) or "-"


def flips_table(c: Comparison) -> Table:
    """The rows whose `flip_metric` changed, each way: counts and ids (largest change
    first)."""
    return Table(f"rows that changed ({c.flip_metric})", ("direction", "rows", "ids"),
                 (("A higher than B", str(len(c.a_better)), _ids(c.a_better)),
                  ("B higher than A", str(len(c.b_better)), _ids(c.b_better))))


def tables(c: Comparison) -> tuple[Table, ...]:
    """Every table of the comparison, in the order shown."""
    return (figures_table(c), *breakdown_tables(c), flips_table(c))


def notes(c: Comparison) -> tuple[str, ...]:
    """The core's notes (mixed versions allowed, averaged rollouts), the unmatched and the
    excluded rows."""
    out = list(c.notes)
    if c.only_a or c.only_b:
        out.append(f"unmatched rows left out: A only {_ids(c.only_a)}; B only {_ids(c.only_b)}")
    reasons: dict[str, int] = {}
    for _key, reason in c.excluded:
        reasons[reason] = reasons.get(reason, 0) + 1
    out += [f"excluded from both runs' figures: {n} row(s), {reason}"
            for reason, n in sorted(reasons.items())]
    return tuple(out)
