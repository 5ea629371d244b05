"""The collection's environment ids, as the installed distributions declare them.

Each environment registers its report hook as an entry point in the group `smol_envs.report`
(name: its vf-eval id). An environment whose id changed keeps each former id as an entry point
in the group `smol_envs.renamed` (name: the former id; value: the same hook as its
`smol_envs.report` entry), so that the report still reads runs recorded under the former id
and vf-eval's startup hook can name the current one. (smol-slm-eval was `slm-eval` until its
0.3.0, when the PyPI project of that name made the rename necessary: see its README.)
Reads only installed package metadata; never imports an environment. Cheap to import (vf-eval's
startup hook does, in every interpreter): importlib.metadata is loaded on first use.
"""

from __future__ import annotations

REPORT_GROUP = "smol_envs.report"
RENAMED_GROUP = "smol_envs.renamed"


def env_key(env_id: str) -> str:
    """An environment id as runs are compared: `pico_dsl_v1` and `pico-dsl-v1` are one. Pure."""
    return env_id.strip().lower().replace("_", "-")


def installed_environments() -> list[str]:
    """The ids of this collection's installed environments, sorted (their `smol_envs.report`
    entry points)."""
    from importlib.metadata import entry_points

    return sorted({entry.name for entry in entry_points(group=REPORT_GROUP)})


def renamed_environments() -> dict[str, str]:
    """{env_key(former id): current id} for every installed `smol_envs.renamed` entry point.

    Raises:
        ValueError: a former id's hook is registered by no `smol_envs.report` entry point (a
            packaging mistake: the former id would lead nowhere).
    """
    from importlib.metadata import entry_points

    current = {entry.value: entry.name for entry in entry_points(group=REPORT_GROUP)}
    renamed = {}
    for entry in entry_points(group=RENAMED_GROUP):
        if entry.value not in current:
            raise ValueError(f"entry point {RENAMED_GROUP} {entry.name!r} names the hook "
                             f"{entry.value}, which no {REPORT_GROUP} entry point registers")
        renamed[env_key(entry.name)] = current[entry.value]
    return renamed


def canonical_key(env_id: str, renamed: dict[str, str] | None = None) -> str:
    """`env_key` of the environment's current id: a former id (`renamed`, by default the
    installed `renamed_environments()`) maps to its current one, any other id to itself.

    Raises:
        ValueError: from `renamed_environments()` (a former id leading nowhere).
    """
    key = env_key(env_id)
    renamed = renamed_environments() if renamed is None else renamed
    return env_key(renamed.get(key, key))
