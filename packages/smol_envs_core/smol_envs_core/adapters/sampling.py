"""The sampling an environment promises, as its requests carry it: defaults the caller did not
set, and greedy that is greedy on every server.

vf-eval 0.3.1 always passes `max_tokens` in its sampling arguments, as None without `-t`, and
verifiers' `generate` lays the caller's arguments over the environment's with `dict.update`, so
that None replaced an environment's own token budget (MATH-500's 256, BFCL's 512): chat replies
then ran to the context end and completions stopped at the server's default of 16 tokens. Here a
value of None means "not set", and the environment's default stands (`effective`).

Greedy decoding (temperature 0) with llama-cpp-python still applies its `repeat_penalty` (1.1 by
default in 0.3.36) and so is not greedy; vLLM applies none. A greedy request therefore carries
`repeat_penalty` 1.0 in `extra_body` unless the caller names a penalty (`NEUTRAL_PENALTY`);
servers without that field ignore it (vLLM) or apply the same neutral value (llama.cpp). Pure.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

# What a greedy request sends besides temperature 0: no repetition penalty (llama.cpp's name).
NEUTRAL_PENALTY = {"repeat_penalty": 1.0}


def without_unset(args: Mapping[str, Any] | None) -> dict[str, Any]:
    """`args` without the keys whose value is None (vf-eval's "not given"). Pure."""
    return {key: value for key, value in (args or {}).items() if value is not None}


def effective(defaults: Mapping[str, Any] | None, caller: Mapping[str, Any] | None
              ) -> dict[str, Any]:
    """The sampling arguments a request is sent with: the caller's set values over the
    environment's `defaults`, `extra_body` merged key by key (the caller's keys win; left out
    when empty), and the neutral repetition penalty added to `extra_body` when the result is
    greedy (temperature 0) and neither side names `repeat_penalty`. `max_completion_tokens`
    from the caller counts as its `max_tokens`. Pure; returns a new dict.
    """
    mine, theirs = without_unset(defaults), without_unset(caller)
    limit = theirs.pop("max_completion_tokens", None)
    if limit is not None and "max_tokens" not in theirs:
        theirs["max_tokens"] = limit
    extra = {**without_unset(mine.get("extra_body")), **without_unset(theirs.get("extra_body"))}
    merged = {**mine, **theirs}
    merged.pop("extra_body", None)
    if merged.get("temperature") == 0 and "repeat_penalty" not in merged \
            and "repeat_penalty" not in extra:
        extra.update(NEUTRAL_PENALTY)
    return {**merged, "extra_body": extra} if extra else merged
