"""One option declaration per environment: the classic `load_environment` and the v1 taskset
accept exactly the options listed here (name, type, default), and refuse an unknown option or a
bad value with the same line (issue 45, "Two option surfaces").

The expected table is written out by hand on purpose: a change to an option's name, type or
default has to be made here too, where a reviewer sees it.
"""

from __future__ import annotations

import importlib
from typing import Any

import pytest
import verifiers.v1 as vf
from smol_envs_core.adapters.options import EnvOptions, options_table

from tests.contract_rl.driver import load_tasks

from .test_environment_contract import REPO

pytestmark = pytest.mark.unit

# env id -> (module, declaration class path, {option: (type, default)}, a bad value, its words,
#            an integer option for the wrong-type case)
DECLARED: dict[str, tuple[str, str, dict[str, tuple[str, Any]], dict[str, Any], str, str]] = {
    "pico-dsl-v1": ("pico_dsl_v1", "pico_dsl_v1.config:PicoOptions", {
        "num_examples": ("int or null", None),
        "slice": ("str", "mixed"),
        "dataset_mode": ("str", "fixed"),
        "seed": ("int", 0),
        "difficulty": ("str or null", None),
        "tokenizer": ("str", "auto"),
        "max_tokens": ("int", 512),
        "num_train": ("int", 480),
        "split": ("str", "eval"),
        "reward": ("str", "exact_match"),
    }, {"slice": "bogus"}, "unknown slice 'bogus'; valid: mixed, copy_case", "seed"),
    "smolscript": ("smolscript", "smolscript.config:SmolscriptOptions", {
        "languages": ("list[str] or str or null", None),
        "difficulties": ("list[str] or str or null", None),
        "edition": ("str", "default"),
        "num_examples": ("int", -1),
        "per_language": ("int or null", None),
        "max_tokens": ("int or null", None),
        "context_length": ("int or null", None),
        "tokenizer": ("str", "smollm2"),
        "split": ("str", "eval"),
        "service_url": ("str or null", None),
        "concurrency": ("int", 8),
        "reward_only": ("bool", False),
    }, {"edition": "v9"}, "unknown edition 'v9'; valid: default, ", "num_examples"),
    "smoltalkbench": ("smoltalkbench", "smoltalkbench.config:SmolTalkOptions", {
        "dataset": ("str", "HuggingFaceSwarms/SmolTalkBench"),
        "config": ("str", "gold"),
        "hub_split": ("str", "test"),
        "data_files": ("str or list[str] or null", None),
        "num_examples": ("int", -1),
        "split": ("str", "eval"),
        "source_path": ("str or null", None),
        "source_revision": ("str", "5feaf2fd3ffca7c237fc38d1861bc30365d48ffa"),
        "judge_model": ("str", "deepseek-ai/DeepSeek-V4.1-Flash"),
        "judge_base_url": ("str", "https://router.huggingface.co/v1"),
        "judge_api_key_var": ("str or null", "HF_TOKEN"),
        "judge_temperature": ("float", 1.0),
        "judge_max_retries": ("int", 3),
        "judge_timeout_s": ("float", 60.0),
        "judge_max_concurrent": ("int", 8),
        "length_penalty_chars": ("int", 500),
        "order_seed": ("int", 0),
        "max_judge_error_rate": ("float", 0.0),
        "judge_label_bias": ("str", "none"),
        "judge_min_label_mass": ("float", 0.5),
        "judge_both_orders": ("bool", False),
    }, {"num_examples": 0}, "num_examples must be -1 (all) or positive, got 0", "num_examples"),
    "smol-slm-eval": ("smol_slm_eval", "smol_slm_eval.config:SlmEvalOptions", {
        "task": ("str", "hellaswag"),
        "num_examples": ("int", -1),
        "prompt_style": ("str", "seed"),
        "data_path": ("str or null", None),
        "enable_tier2_metric": ("bool or null", None),
        "bfcl_category": ("str or null", None),
        "bfcl_mode": ("str", "smol"),
        "split": ("str", "eval"),
    }, {"task": "piqa"}, "unknown task 'piqa'; valid: hellaswag, ", "num_examples"),
}
CASES = sorted(DECLARED)


def declaration(env_id: str) -> Any:
    module, _, name = DECLARED[env_id][1].partition(":")
    return getattr(importlib.import_module(module), name)


def classic_loader(env_id: str) -> Any:
    return importlib.import_module(f"{DECLARED[env_id][0]}.env").load_environment


def type_name(annotation: Any) -> str:
    text = getattr(annotation, "__name__", None) or str(annotation).replace("typing.", "")
    return text.replace(" | ", " or ").replace("NoneType", "null").replace("None", "null")


@pytest.mark.parametrize("env_id", CASES)
def test_classic_arguments_are_the_declared_options(env_id: str) -> None:
    import inspect

    params = inspect.signature(classic_loader(env_id)).parameters
    listed = {name: (type_name(p.annotation), p.default) for name, p in params.items()
              if p.kind is p.POSITIONAL_OR_KEYWORD}
    assert listed == DECLARED[env_id][2]


@pytest.mark.parametrize("env_id", CASES)
def test_v1_options_are_the_declared_options(env_id: str) -> None:
    """The taskset's own options and, where scoring options are the task's
    (`--env.taskset.task.*`), those of its task config; every other field is verifiers' own."""
    config_type = vf.taskset_config_type(env_id)
    fields = dict(config_type.option_fields())
    task_config = type(config_type().task)
    if issubclass(task_config, EnvOptions):
        fields.update(task_config.option_fields())
        assert set(task_config.model_fields) - set(fields) <= set(vf.TaskConfig.model_fields)
    listed = {name: (type_name(field.annotation), field.get_default(call_default_factory=True))
              for name, field in fields.items()}
    assert listed == DECLARED[env_id][2]
    assert set(config_type.model_fields) - set(fields) <= set(vf.TasksetConfig.model_fields)


def error_of(call: Any) -> BaseException:
    with pytest.raises(Exception) as caught:
        call()
    return caught.value


@pytest.mark.parametrize("env_id", CASES)
def test_an_unknown_option_is_the_same_line_through_both(env_id: str) -> None:
    classic = error_of(lambda: classic_loader(env_id)(bogus_option=1))
    v1 = error_of(lambda: load_tasks(env_id, {"bogus_option": 1}))
    assert type(classic) is type(v1) and isinstance(classic, TypeError)
    assert str(classic) == str(v1)
    assert str(classic).startswith(f"{env_id}: unknown argument(s) bogus_option; valid: ")
    assert "\n" not in str(classic)


@pytest.mark.parametrize("env_id", CASES)
def test_a_bad_value_is_the_same_line_through_both(env_id: str) -> None:
    *_, bad, words, _ = DECLARED[env_id]
    classic = error_of(lambda: classic_loader(env_id)(**bad))
    v1 = error_of(lambda: load_tasks(env_id, bad))
    assert type(classic) is type(v1) and isinstance(classic, ValueError)
    assert str(classic) == str(v1) and "\n" not in str(classic)
    assert words in str(classic)


@pytest.mark.parametrize("env_id", CASES)
def test_a_value_of_the_wrong_type_is_the_same_line_through_both(env_id: str) -> None:
    name = DECLARED[env_id][5]
    classic = error_of(lambda: classic_loader(env_id)(**{name: "many"}))
    v1 = error_of(lambda: load_tasks(env_id, {name: "many"}))
    assert type(classic) is type(v1) and isinstance(classic, TypeError)
    assert str(classic) == str(v1) == (
        f"{env_id}: {name}: input should be a valid integer, unable to parse string as an "
        "integer, got 'many'")


@pytest.mark.parametrize("env_id", CASES)
def test_the_readme_table_is_the_declaration(env_id: str) -> None:
    folder = DECLARED[env_id][0]
    readme = (REPO / "environments" / folder / "README.md").read_text()
    assert options_table(declaration(env_id)) in readme


@pytest.mark.parametrize("env_id, options, name", [
    ("pico-dsl-v1", {"max_tokens": 64}, "max_tokens"),
    ("smoltalkbench", {"dataset": "fixture", "task": {"max_judge_error_rate": 0.1}},
     "max_judge_error_rate"),
])
def test_a_classic_only_option_is_refused_by_v1_saying_why(env_id, options, name) -> None:
    with pytest.raises(ValueError, match=f"^{env_id}: {name} applies to the classic environment "
                                         "only: "):
        load_tasks(env_id, options)


def test_smoltalkbench_hub_split_under_its_old_name_still_works_with_a_warning() -> None:
    from smoltalkbench.config import SmolTalkOptions

    with pytest.warns(FutureWarning, match="use hub_split"):
        options = SmolTalkOptions.from_kwargs({"split": "validation"})
    assert (options.split, options.hub_split) == ("eval", "validation")
    assert SmolTalkOptions.from_kwargs({"split": "train"}).hub_split == "test"
