"""The classic (verifiers 0.3.1) side of the RL contract: train and eval datasets differ, the
train split never holds an eval prompt, and an unreachable source is a clear error."""

from __future__ import annotations

import pytest
from smol_envs_core.errors import InfrastructureError

pytestmark = pytest.mark.unit

SOURCE = "tests/smoltalkbench/fixtures/source"


def test_smoltalkbench_train_split_is_the_source_minus_the_benchmark() -> None:
    from smoltalkbench import load_environment

    env = load_environment(dataset="fixture", source_path=SOURCE)
    train, evaluation = env.get_dataset(), env.get_eval_dataset()
    assert len(train) > 0 and len(evaluation) == 12
    assert not set(train["question"]) & set(evaluation["question"])


def test_smoltalkbench_unreachable_source_names_it_and_the_way_out(monkeypatch) -> None:
    import datasets
    from smoltalkbench import splits

    def unreachable(*args, **kwargs):
        raise ConnectionError("Couldn't reach 'HuggingFaceTB/smoltalk' on the Hub")

    monkeypatch.setattr(datasets, "load_dataset", unreachable)
    with pytest.raises(InfrastructureError, match="train source.*source_path="):
        splits.load_source(None)
