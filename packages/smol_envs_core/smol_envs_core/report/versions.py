"""Refuse to compare or pool runs of one environment scored by different behaviour versions.

A behaviour version names the scoring that produced a run's rows (each row's
`info["behaviour_version"]`, else metadata.json's; runs without one are "unversioned"). Two
versions of one environment may give different verdicts for the same reply, so their figures
are not comparable: the report refuses them in one line unless told to allow them. Runs recorded
under an environment's former id count as its own (`env_ids`). Pure apart from reading the
installed entry points that name former ids.
"""

from __future__ import annotations

from collections.abc import Sequence

from ..env_ids import canonical_key, renamed_environments
from .model import Provenance, ReportError

ALLOW_FLAG = "--allow-mixed-versions"


class MixedVersionsError(ReportError):
    """Runs (or the rows of one run) of one environment carry different behaviour versions."""


def mixed_versions(runs: Sequence[Provenance]) -> dict[str, dict[str, list[str]]]:
    """{environment: {version: [run paths]}} for every environment (by its current id's
    `env_key`) whose runs (or rows) carry more than one behaviour version; {} when every
    environment is consistent."""
    renamed = renamed_environments()
    seen: dict[str, dict[str, list[str]]] = {}
    for run in runs:
        for version in run.behaviour_versions:
            by_version = seen.setdefault(canonical_key(run.env_id, renamed), {})
            by_version.setdefault(version, []).append(str(run.path))
    return {env: by_version for env, by_version in seen.items() if len(by_version) > 1}


def check_versions(runs: Sequence[Provenance], allow: bool = False) -> tuple[str, ...]:
    """Check that each environment's runs share one behaviour version.

    Returns one note per mixed environment when `allow` is true (the report shows them), ()
    when nothing is mixed.
    Raises:
        MixedVersionsError: some environment mixes versions and `allow` is false; the message
            is one line naming the versions, a run of each, and the flag that allows it.
    """
    mixed = mixed_versions(runs)
    lines = []
    for env, by_version in sorted(mixed.items()):
        shown = "; ".join(f"{version} in {paths[0]}" + (f" (+{len(paths) - 1})"
                                                         if len(paths) > 1 else "")
                          for version, paths in sorted(by_version.items()))
        lines.append(f"{env} runs of different behaviour versions ({shown})")
    if lines and not allow:
        raise MixedVersionsError(f"refusing to compare or pool {lines[0]}: their scores are not "
                                 f"comparable; pass {ALLOW_FLAG} to report them anyway")
    return tuple(f"mixed behaviour versions allowed: {line}" for line in lines)
