"""The Hugging Face Hub switched off for one test, in this process and its subprocesses."""

from __future__ import annotations

import pytest


def go_offline(monkeypatch: pytest.MonkeyPatch) -> None:
    """Put huggingface_hub and datasets in offline mode until `monkeypatch` is undone.

    Both libraries read HF_HUB_OFFLINE and HF_DATASETS_OFFLINE once, when first imported, which
    an earlier test in the same process may already have done; so the module constants are set
    as well as the variables (which subprocesses read). Without the constants a "Hub
    unreachable" test waits on DNS retries (23 s measured here) instead of the offline error.
    """
    import datasets.config
    from huggingface_hub import constants

    monkeypatch.setenv("HF_HUB_OFFLINE", "1")
    monkeypatch.setenv("HF_DATASETS_OFFLINE", "1")
    monkeypatch.setattr(constants, "HF_HUB_OFFLINE", True)
    monkeypatch.setattr(datasets.config, "HF_HUB_OFFLINE", True)
    monkeypatch.setattr(datasets.config, "HF_DATASETS_OFFLINE", True)
