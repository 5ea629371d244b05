"""Lazy package exports, so an environment package imports under verifiers 0.3.1 and 0.4.

Each environment package exports its classic `load_environment` (verifiers 0.3.1's API, gone
in 0.4) and its v1 `Taskset` (both versions) through `__all__`. verifiers' v1 loader reads every
name of `__all__` with `getattr(module, name, None)`, so under 0.4 the classic name must answer
AttributeError (skipped), not ImportError (fatal). Pure; imports nothing heavy.
"""

from __future__ import annotations

import importlib
import importlib.util
from collections.abc import Callable, Mapping
from typing import Any

CLASSIC_HINT = (
    "needs verifiers' classic API (verifiers>=0.3.1,<0.4, module verifiers.legacy); "
    "with verifiers 0.4 use the package's v1 taskset"
)


def classic_api_available() -> bool:
    """True when the installed verifiers ships the classic API (`verifiers.legacy`)."""
    try:
        return importlib.util.find_spec("verifiers.legacy") is not None
    except ModuleNotFoundError:
        return False


def lazy_exports(
    package: str, classic: Mapping[str, str], v1: Mapping[str, str]
) -> Callable[[str], Any]:
    """A module `__getattr__` that imports each exported name on first use.

    Args:
        package: the package's `__name__`.
        classic: name -> submodule (".env") of names that need the classic API.
        v1: name -> submodule (".taskset") of names built on `verifiers.v1`.
    Returns the function to assign to the package's `__getattr__`. A classic name asked for
    under verifiers 0.4 raises AttributeError saying what it needs.
    """

    def __getattr__(name: str) -> Any:
        if name in classic:
            if not classic_api_available():
                raise AttributeError(f"{package}.{name} {CLASSIC_HINT}")
            return getattr(importlib.import_module(classic[name], package), name)
        if name in v1:
            return getattr(importlib.import_module(v1[name], package), name)
        raise AttributeError(f"module {package!r} has no attribute {name!r}")

    return __getattr__
