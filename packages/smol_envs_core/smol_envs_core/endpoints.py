"""The vf-eval endpoint aliases of the local model server, for the port it listens on.

vf-eval 0.3.1 reads endpoint aliases from a TOML registry (`-e PATH`, default
`./configs/endpoints.toml`: `[[endpoint]]` tables of endpoint_id, model, url, key = the name of
the variable holding the API key, optional type). The committed `configs/endpoints.toml` is
`render(host, 8765)`; a server moved to another port (`SMOL_ENVS_MODEL_PORT`) gets the same
aliases at its port from `smol-envs-serve endpoints [--port P] [--write PATH]`. Pure.
"""

from __future__ import annotations

from typing import NamedTuple

KEY_VAR = "SMOL_ENVS_LOCAL_API_KEY"


class Alias(NamedTuple):
    """One alias: its endpoint_id and vf-eval client type (None: vf-eval's default, chat)."""

    endpoint_id: str
    client_type: str | None


CHAT_ALIAS = "smollm2-135m"
# Raw /v1/completions requests, which base-model benchmarks need (smolscript, smol-slm-eval).
COMPLETIONS_ALIAS = "smollm2-135m-completions"
ALIASES = (Alias(CHAT_ALIAS, None), Alias(COMPLETIONS_ALIAS, "openai_completions"))


def render(base_url: str, model: str, port: int) -> str:
    """The endpoints.toml text naming every alias of `ALIASES` at `base_url` for `model`
    (`port` is named in the header comment, with the command that wrote the file)."""
    lines = [
        "# vf-eval endpoint aliases (verifiers 0.3.x format). Select one with "
        "`vf-eval ... -m <endpoint_id>`.",
        f"# The local server on port {port}, as `uv run smol-envs-serve endpoints --port {port}` "
        "prints it;",
        "# for a server on another port, `smol-envs-serve endpoints --write PATH`, then "
        "`vf-eval ... -e PATH`.",
    ]
    for alias in ALIASES:
        lines += [
            "",
            "[[endpoint]]",
            f'endpoint_id = "{alias.endpoint_id}"',
            f'model = "{model}"',
            f'url = "{base_url}"',
            f'key = "{KEY_VAR}"  # env var name; unset means "EMPTY"',
        ]
        if alias.client_type:
            lines.append(f'type = "{alias.client_type}"')
    return "\n".join(lines) + "\n"
