"""The contract every environment keeps, one suite parametrized over all of them.

Metadata (pyproject), the README's argument and metric tables against the code, an offline
`load_environment`, the rubric's weights (one headline reward, the one the root README names),
and the failure policy (a failed model call stops the run with an InfrastructureError naming
the model endpoint; it is never scored).
"""

from __future__ import annotations

import importlib
import inspect
import re
import tomllib
from dataclasses import dataclass
from pathlib import Path

import pytest
from smol_envs_core.adapters.policy import PolicyEnv, ScoreOnceRubric
from smol_envs_core.errors import InfrastructureError

from tests.support.hub import go_offline
from tests.support.markdown import table_first_column

pytestmark = pytest.mark.unit
REPO = Path(__file__).resolve().parents[2]
# smol-slm-eval's default task reads archives it downloads; the contract loads one task from a
# small local file in the Hub schema instead (three made-up ARC-style questions).
TINY_ARC = REPO / "tests" / "support" / "data" / "arc_easy_tiny.jsonl"


@dataclass(frozen=True)
class Env:
    """One environment: distribution name, module, folder, headline reward, and the arguments
    that load it from packaged or local files only (no download)."""

    name: str
    module: str
    folder: str
    headline: str
    offline: tuple[tuple[str, object], ...] = ()


ENVIRONMENTS = [
    Env("pico-dsl-v1", "pico_dsl_v1", "environments/pico_dsl_v1", "exact_match"),
    Env("smolscript", "smolscript", "environments/smolscript", "passed"),
    Env("smoltalkbench", "smoltalkbench", "environments/smoltalkbench", "win_prob",
        (("dataset", "fixture"),)),
    Env("smol-slm-eval", "smol_slm_eval", "environments/smol_slm_eval", "acc_norm",
        (("task", "arc_easy"), ("data_path", str(TINY_ARC)))),
]


def our_rubric(env) -> ScoreOnceRubric:
    """The environment's own rubric (verifiers may wrap it in a RubricGroup)."""
    rubrics = getattr(env.rubric, "rubrics", [env.rubric])
    ours = [r for r in rubrics if isinstance(r, ScoreOnceRubric)]
    assert len(ours) == 1, rubrics
    return ours[0]


@pytest.fixture(scope="module", params=ENVIRONMENTS, ids=[e.name for e in ENVIRONMENTS])
def case(request, tmp_path_factory):
    """(environment description, its README text, an environment loaded offline)."""
    spec: Env = request.param
    mp = pytest.MonkeyPatch()
    go_offline(mp)  # packaged data only, no download
    try:
        env = importlib.import_module(spec.module).load_environment(**dict(spec.offline))
    finally:
        mp.undo()
    yield spec, (REPO / spec.folder / "README.md").read_text(), env


def test_pyproject_metadata(case):
    """What the Hub shows: name, version, description, licence, readme and tags, with `train`
    exactly where the README documents a train split (its "Train and eval splits" section;
    tests/contract_rl/test_classic_splits.py holds the splits to it)."""
    spec, readme, _ = case
    project = tomllib.loads((REPO / spec.folder / "pyproject.toml").read_text())
    meta = project["project"]
    assert meta["name"] == spec.name and meta["version"] and meta["description"]
    assert meta["license"] and (REPO / spec.folder / meta["readme"]).is_file()
    assert "eval" in meta["tags"]
    assert ("train" in meta["tags"]) == ("\n### Train and eval splits\n" in readme)
    deps = " ".join(meta["dependencies"])
    assert "smol-envs-core" in deps and "verifiers>=0.3.1,<0.5" in deps
    assert project["tool"]["verifiers"]["eval"]["num_examples"] != 0


def test_vf_eval_reads_the_eval_defaults(case):
    """vf-eval 0.3.1 looks for pyproject.toml in the module's own folder: each package holds a
    link to its project's, so the declared defaults are the ones a bare `vf-eval NAME` uses."""
    from verifiers.legacy.scripts.eval import get_env_eval_defaults

    spec, _, _ = case
    project = tomllib.loads((REPO / spec.folder / "pyproject.toml").read_text())
    assert get_env_eval_defaults(spec.name) == project["tool"]["verifiers"]["eval"]


def test_readme_arguments_table_matches_load_environment(case):
    spec, readme, _ = case
    module = importlib.import_module(spec.module)
    params = inspect.signature(module.load_environment).parameters
    expected = [n for n, p in params.items() if p.kind is p.POSITIONAL_OR_KEYWORD]
    assert table_first_column(readme, "Environment Arguments") == expected


def test_readme_metrics_table_matches_the_rubric(case):
    _, readme, env = case
    names = our_rubric(env)._get_reward_func_names()
    assert table_first_column(readme, "Metrics")[: len(names)] == names


def test_offline_load_gives_a_policy_env_with_rows(case):
    _, _, env = case
    assert isinstance(env, PolicyEnv)
    rows = env.get_eval_dataset()
    assert len(rows) > 0 and rows[0]["prompt"]


def test_one_headline_reward_named_in_the_root_readme(case):
    """The weight-1.0 reward is the one the root README's table names in its last column
    (smol-slm-eval's headline is per task: the column lists them, `acc_norm` among them)."""
    spec, _, env = case
    rubric = our_rubric(env)
    weights = dict(zip(rubric._get_reward_func_names(), rubric.weights, strict=True))
    assert {name: w for name, w in weights.items() if w} == {spec.headline: 1.0}
    root = (REPO / "README.md").read_text()
    assert re.search(rf"^\| \[`{re.escape(spec.name)}`\].*\| [^|]*`{spec.headline}`[^|]*\|$",
                     root, flags=re.MULTILINE)


async def test_a_failed_model_call_stops_the_run_and_is_never_scored(case):
    _, _, env = case
    state = {"info": {}, "prompt": "", "completion": "", "answer": "", "trajectory": [],
             "example_id": 0, "error": RuntimeError("model endpoint refused the connection")}
    with pytest.raises(InfrastructureError, match="model endpoint: RuntimeError: model endpoint"):
        await env.rubric.score_group([state])
    assert state.get("reward") is None


@pytest.mark.parametrize("package", ["pico_dsl_v1", "smolscript", "smoltalkbench",
                                     "smol_slm_eval", "smolscript_sandbox"])
def test_one_errors_module_with_one_infrastructure_error(package):
    """Each package keeps its errors in `errors.py`, with exactly one infrastructure error
    class: a subclass of the collection's InfrastructureError, which the policy recognises."""
    errors = importlib.import_module(f"{package}.errors")
    infra = [obj for obj in vars(errors).values()
             if inspect.isclass(obj) and obj.__module__ == errors.__name__
             and issubclass(obj, InfrastructureError)]
    assert len(infra) == 1, infra
    assert "infrastructure failure" in str(infra[0]("a reason"))
