"""smolscript: an execution-based benchmark of basic programming in nine languages.

`load_environment` (verifiers wiring, in `env.py`) is resolved lazily, so that the pure core
(assembly, prompts, report, evaluator) imports without verifiers.
"""

from typing import Any

__all__ = ["load_environment"]


def __getattr__(name: str) -> Any:
    if name == "load_environment":
        from smolscript.env import load_environment

        return load_environment
    raise AttributeError(f"module 'smolscript' has no attribute {name!r}")
