"""The vf-eval endpoint aliases of the local model servers, for the ports they listen on.

vf-eval 0.3.1 reads endpoint aliases from a TOML registry (`-e PATH`, default
`./configs/endpoints.toml`: `[[endpoint]]` tables of endpoint_id, model, url, key = the name of
the variable holding the API key, optional type). Each local model (`smol_envs_core.server.models`)
has two aliases: `KEY` (chat) and `KEY-completions` (raw `/v1/completions`, which base-model
benchmarks need). The committed `configs/endpoints.toml` is `render` of every model at its
default port (SmolLM2 8765, Gemma 8766); a server moved to another port gets the same aliases
at its port from `smol-envs-serve endpoints [--model NAME] [--port P] [--write PATH]`. Pure.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import NamedTuple

from .models import DEFAULT, LocalModel

KEY_VAR = "SMOL_ENVS_LOCAL_API_KEY"
# The default model's raw-completions alias (`smollm2-135m-completions`), which warnings name.
COMPLETIONS_ALIAS = DEFAULT.completions_alias


class Server(NamedTuple):
    """One local server: the model it serves and its OpenAI base URL and port."""

    model: LocalModel
    base_url: str
    port: int


def render(servers: Sequence[Server]) -> str:
    """The endpoints.toml text naming both aliases of each server in `servers`, in order (the
    header comment names each model's port and the command that wrote the file)."""
    where = ", ".join(f"{s.model.key} on port {s.port}" for s in servers)
    lines = [
        "# vf-eval endpoint aliases (verifiers 0.3.x format). Select one with "
        "`vf-eval ... -m <endpoint_id>`.",
        "# The local model servers, as `uv run smol-envs-serve endpoints` prints them:",
        f"#   {where}.",
        "# For a server on another port: `smol-envs-serve endpoints --model NAME --port P "
        "--write PATH`,",
        "# then `vf-eval ... -e PATH`.",
    ]
    for server in servers:
        for endpoint_id, client_type in ((server.model.chat_alias, None),
                                         (server.model.completions_alias, "openai_completions")):
            lines += [
                "",
                "[[endpoint]]",
                f'endpoint_id = "{endpoint_id}"',
                f'model = "{server.model.served_name}"',
                f'url = "{server.base_url}"',
                f'key = "{KEY_VAR}"  # env var name; unset means "EMPTY"',
            ]
            if client_type:
                lines.append(f'type = "{client_type}"')
    return "\n".join(lines) + "\n"
