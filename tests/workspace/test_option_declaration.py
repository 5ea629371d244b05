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
from smol_envs_core.options import options_table

from tests.contract_rl.driver import load_tasks

from .test_environment_contract import REPO

pytestmark = pytest.mark.unit

# env id -> (module, declaration class path, {option: (type, default)}, a bad value, its words)
DECLARED: dict[str, tuple[str, str, dict[str, tuple[str, Any]], dict[str, Any], str]] = {
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
    }, {"slice": "bogus"}, "unknown slice 'bogus'; valid: mixed, copy_case"),
}
CASES = sorted(DECLARED)
V1_OWN = set(vf.TasksetConfig.model_fields)


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
    config_type = vf.taskset_config_type(env_id)
    fields = {name: field for name, field in config_type.model_fields.items()
              if name not in V1_OWN}
    listed = {name: (type_name(field.annotation), field.get_default(call_default_factory=True))
              for name, field in fields.items()}
    assert listed == DECLARED[env_id][2]
    assert issubclass(config_type, declaration(env_id))


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
    *_, bad, words = DECLARED[env_id]
    classic = error_of(lambda: classic_loader(env_id)(**bad))
    v1 = error_of(lambda: load_tasks(env_id, bad))
    assert type(classic) is type(v1) and isinstance(classic, ValueError)
    assert str(classic) == str(v1) and "\n" not in str(classic)
    assert words in str(classic)


@pytest.mark.parametrize("env_id", CASES)
def test_a_value_of_the_wrong_type_is_the_same_line_through_both(env_id: str) -> None:
    name = next(n for n, (kind, _) in DECLARED[env_id][2].items() if kind.startswith("int"))
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
