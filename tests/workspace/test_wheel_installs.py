"""The collection as a user installs it: built wheels and source archives in one folder
(`scripts/build_wheels.py`), installed into clean venvs beside verifiers 0.3.1 and 0.4.0 with
nothing on PYTHONPATH (tests/support/venvs.py).

- The folder is self-sufficient: a wheel and an sdist of every environment and of the two
  workspace packages they need, each wheel built by uv from its sdist alone; the sdists hold
  the data (no link out of the project folder), and the wheels carry it.
- verifiers 0.4.0: every environment installs from its source archive alone (`--no-binary`),
  imports, exports its v1 taskset and answers AttributeError for the classic name.
- verifiers 0.3.1: the wheels install, and the design card's classic command
  `vf-eval pico-dsl-v1 -m <endpoint> -a '{"slice":"repeat"}'` runs against the local server.
  (0.4's own `vf-eval` on each taskset from the same venv: tests/contract_rl/test_vf_eval_040.py.)
"""

from __future__ import annotations

import configparser
import json
import posixpath
import subprocess
import tarfile
import zipfile
from pathlib import Path

import pytest

from tests.support import venvs
from tests.support.vf_eval import latest_run, vf_eval

PACKAGES = {  # distribution -> module
    "smol_envs_core": "smol_envs_core", "smolscript_sandbox": "smolscript_sandbox",
    "pico_dsl_v1": "pico_dsl_v1", "smol_slm_eval": "smol_slm_eval",
    "smolscript": "smolscript", "smoltalkbench": "smoltalkbench",
}
# Data each environment ships inside its wheel (archive path -> repository file).
SHIPPED_DATA = {
    "pico_dsl_v1": ("pico_dsl_v1/data/pico_dsl_v1_benchmark.jsonl",
                    "data/pico_dsl_v1_benchmark.jsonl"),
    "smolscript": ("smolscript/_data/smolscript.jsonl", "data/smolscript/smolscript.jsonl"),
}
# Under 0.4: the module, its v1 export and its classic export.
EXPORTS = {"pico_dsl_v1": "PicoTaskset", "smolscript": "SmolscriptTaskset",
           "smoltalkbench": "SmolTalkTaskset", "smol_slm_eval": "SlmEvalTaskset"}
PROBE = """
import json, sys, verifiers
out = {"verifiers": verifiers.__version__, "path": [p for p in sys.path if "/environments/" in p
       or "/packages/" in p]}
for module, v1 in json.loads(sys.argv[1]).items():
    package = __import__(module)
    out[module] = {"file": package.__file__, "v1": getattr(package, v1).__name__}
    try:
        package.load_environment
        out[module]["classic"] = "present"
    except AttributeError as error:
        out[module]["classic"] = str(error)
print(json.dumps(out))
"""


def files(folder: Path, suffix: str) -> dict[str, Path]:
    """Distribution name -> the one file of that kind in `folder`."""
    found = {p.name.split("-")[0]: p for p in folder.glob(f"*{suffix}")}
    assert len(found) == len(list(folder.glob(f"*{suffix}")))
    return found


@pytest.mark.integration
def test_the_folder_holds_every_wheel_and_sdist_with_their_data() -> None:
    folder = venvs.wheelhouse()
    wheels, sdists = files(folder, ".whl"), files(folder, ".tar.gz")
    assert set(wheels) == set(sdists) == set(PACKAGES)
    for name, sdist in sdists.items():
        with tarfile.open(sdist) as archive:
            # outputs/ (the committed Hub evidence run) is for the repository, not the package
            assert not [m.name for m in archive.getmembers() if "/outputs/" in m.name], name
            for member in archive.getmembers():
                if member.issym():  # a link must stay inside the unpacked project
                    target = posixpath.normpath(posixpath.join(
                        posixpath.dirname(member.name), member.linkname))
                    assert target.startswith(sdist.name.removesuffix(".tar.gz") + "/"), (
                        name, member.name, member.linkname)
    for name, (inside, source) in SHIPPED_DATA.items():
        expected = (venvs.REPO / source).read_bytes()
        with zipfile.ZipFile(wheels[name]) as wheel:
            assert wheel.read(inside) == expected
        with tarfile.open(sdists[name]) as archive:
            member = archive.getmember(f"{sdists[name].name.removesuffix('.tar.gz')}/{inside}")
            assert member.isfile() and archive.extractfile(member).read() == expected


def _module_file(module: str) -> str:
    """The archive path of a module of the core ('a.b' -> 'a/b.py')."""
    return module.replace(".", "/") + ".py"


@pytest.mark.integration
def test_the_core_wheel_ships_its_parts_its_commands_and_its_hook() -> None:
    """smol-envs-core's wheel holds each part (adapters, server, report, evalrun) with its
    README, every console script names a module inside it, and its `.pth` line names the
    vf-eval hook's module: installed beside verifiers 0.3.1 the hook runs at interpreter start
    (no "Error processing line" from `site`) and turns vf-eval's unknown id into one line."""
    wheel = files(venvs.wheelhouse(), ".whl")["smol_envs_core"]
    with zipfile.ZipFile(wheel) as archive:
        names = set(archive.namelist())
        pth = archive.read("smol_envs_core.pth").decode()
        entry_points = next(n for n in names if n.endswith(".dist-info/entry_points.txt"))
        scripts = configparser.ConfigParser()
        scripts.read_string(archive.read(entry_points).decode())
    for part in ("adapters", "server", "report", "evalrun"):
        assert {f"smol_envs_core/{part}/__init__.py", f"smol_envs_core/{part}/README.md"} <= names
    commands = dict(scripts["console_scripts"])
    assert set(commands) == {"smol-envs", "smol-envs-serve"}
    for target in commands.values():
        assert _module_file(target.split(":")[0]) in names, target
    assert pth.strip() == ("import smol_envs_core.adapters.vfeval_hook; "
                           "smol_envs_core.adapters.vfeval_hook.install()")
    assert _module_file("smol_envs_core.adapters.vfeval_hook") in names
    bin_dir = venvs.python("0.3.1").parent
    done = subprocess.run([str(bin_dir / "vf-eval"), "no-such-env", "-m", "x"],
                          capture_output=True, text=True, env=venvs.environ("0.3.1"), cwd="/",
                          timeout=300)
    assert "Error processing line" not in done.stderr, done.stderr[-2000:]
    assert done.returncode == 1
    assert "smol-envs: error: no environment 'no-such-env' is installed" in done.stderr, (
        done.stdout[-1000:], done.stderr[-2000:])


@pytest.mark.integration
def test_every_environment_imports_from_its_sdist_beside_verifiers_040() -> None:
    python = venvs.python("0.4.0")
    done = subprocess.run([str(python), "-c", PROBE, json.dumps(EXPORTS)], capture_output=True,
                          text=True, env=venvs.environ("0.4.0"), cwd="/", timeout=600)
    assert done.returncode == 0, done.stderr[-3000:]
    seen = json.loads(done.stdout.strip().splitlines()[-1])
    assert seen["verifiers"] == "0.4.0" and seen["path"] == []
    for module, v1 in EXPORTS.items():
        assert "site-packages" in seen[module]["file"], seen[module]
        assert seen[module]["v1"] == v1
        assert "needs verifiers' classic API" in seen[module]["classic"]
    installed = subprocess.run(["uv", "pip", "list", "-p", str(python), "--format", "json"],
                               capture_output=True, text=True, check=True).stdout
    assert {p["name"].replace("-", "_") for p in json.loads(installed)} >= set(PACKAGES)


@pytest.mark.e2e
def test_the_classic_command_runs_from_wheels_beside_verifiers_031(
        local_model_base_url: str, local_model_name: str, tmp_path: Path) -> None:
    program = venvs.python("0.3.1").parent / "vf-eval"
    done = vf_eval("pico-dsl-v1", local_model_base_url, local_model_name, {"slice": "repeat"},
                   "-n", "2", "-r", "1", "-c", "1", "-t", "64", "-s", "-o", str(tmp_path),
                   program=program, env=venvs.environ("0.3.1"), cwd=tmp_path)
    assert done.returncode == 0, (done.stdout[-2000:], done.stderr[-3000:])
    run = latest_run(tmp_path, "pico-dsl-v1")
    rows = [json.loads(line) for line in (run / "results.jsonl").read_text().splitlines()]
    print(f"\nverifiers 0.3.1 vf-eval pico-dsl-v1 (wheels) x{len(rows)}: "
          + ", ".join(f"exact_match={r.get('exact_match')}" for r in rows))
    assert len(rows) == 2
    assert all(r["exact_match"] in (0.0, 1.0) and r["reward"] == r["exact_match"] for r in rows)
    assert all(r["info"]["slice"] == "repeat" for r in rows)
    metadata = json.loads((run / "metadata.json").read_text())
    assert metadata["env_id"] == "pico-dsl-v1"
