"""`smol-envs report`: one command over every environment's vf-eval runs, with the real report
hooks of the installed environments, and its HTML page in the real Chromium (Playwright)."""

from __future__ import annotations

import json
import math
import re
import shutil
from pathlib import Path

import pytest
from smol_envs_core import cli
from smol_envs_core.report import report_runs

from tests.workspace.report_runs import (
    ENDPOINT,
    MODEL,
    pico_run,
    smol_slm_eval_run,
    smolscript_run,
    smoltalkbench_run,
)

CHROMIUM = "/usr/lib/chromium/chromium"


@pytest.fixture(scope="module")
def runs(tmp_path_factory) -> dict[str, Path]:
    root = tmp_path_factory.mktemp("runs")
    return {"pico": pico_run(root / "pico" / "a1"),
            "smolscript": smolscript_run(root / "smolscript" / "b2"),
            "smoltalkbench": smoltalkbench_run(root / "smoltalkbench" / "c3"),
            "smol_slm_eval": smol_slm_eval_run(root / "slm" / "d4")}


@pytest.fixture(autouse=True)
def wide_terminal(monkeypatch):
    monkeypatch.setenv("COLUMNS", "300")  # rich wraps long paths at the terminal width


def _out(capsys) -> str:
    return " ".join(capsys.readouterr().out.split())


@pytest.mark.unit
def test_each_environment_gets_its_table_under_one_header(runs, capsys):
    assert cli.main(["report", *map(str, runs.values())]) == 0
    out = _out(capsys)
    for env_id in ("pico-dsl-v1", "smolscript", "smoltalkbench", "smol-slm-eval"):
        assert f"{env_id}: {MODEL}" in out
    assert out.count(f"endpoint {ENDPOINT}") == 4 and out.count("started ") >= 4
    # these folders record no time: never a file's modification time instead (issue 44)
    assert out.count("started not recorded") == 4 and "ended not recorded" in out
    # pico: slice x level, "exact match x100 (rows)"
    assert "copy_case │ 100.0 (2) │ 0.0 (2) │ 50.0 (4)" in out
    assert "all │ 50.0 (4) │ 0.0 (4) │ 25.0 (8)" in out
    assert "fixed benchmark pico_dsl_v1_benchmark.jsonl, sha256" in out
    # smolscript: the official table; a per_language subset gets its filtered macro score,
    # labelled as not the official score
    assert "status filtered" in out and "missing" not in out
    assert "Python │ 1 │ 100.0 │ 100.0 │ 100.0" in out and "Rust │ 1 │ 100.0" in out
    assert "filtered_macro_score (not official) │ 9 │ 22.2" in out
    assert "SmolScript Score" not in out
    # smoltalkbench: win rates with denominators; the judge error excluded and counted
    assert "judged / total 11 / 12" in out and "52.3 ±" in out
    assert "judge errors (excluded) 1" in out and "warning: SmolLM and SmolLM2" in out
    # smol-slm-eval: per-task metrics, Int Index (refused for half of ARC), eval_avg
    assert "arc_easy │ acc_norm │ 75.00 │ ± 21.65 │ [30.06, 95.44] Wilson │ 4" in out
    assert "eval_avg 50.00 ± " in out and "stratified bootstrap over rows within tasks" in out
    assert "Int Index n/a: ARC needs arc_easy and arc_challenge" in out
    # every run names its behaviour version; headline figures carry N, se, interval and method
    assert out.count("behaviour version unversioned") == 4
    assert "exact_match x100 25.0 ± 15.3 (95% CI [7.1, 59.1], Wilson, N=8)" in out
    assert "win rate x100 (length-penalized) 52.3 ± 11.4 (95% CI [26.9, 77.7], t, N=11)" in out
    assert "micro_accuracy 22.2 ± 13.9 (95% CI [6.3, 54.7], Wilson, N=9)" in out
    # one task per language: nothing to resample within a language, so no interval
    assert "filtered_macro_score (not official) 22.2 ± n/a (95% CI [n/a, n/a]" in out


@pytest.mark.unit
def test_runs_recorded_under_the_former_slm_eval_id_are_still_reported(runs, tmp_path, capsys):
    """smol-slm-eval was `slm-eval` before 0.3.0 (`slm_eval` in some metadata): its hook reports
    such runs, says so, and counts them as the same environment for the version check."""
    old = smol_slm_eval_run(tmp_path / "old", "slm-eval")
    older = smol_slm_eval_run(tmp_path / "older", "slm_eval")
    assert cli.main(["report", str(old), str(older), str(runs["smol_slm_eval"])]) == 0
    out = _out(capsys)
    assert out.count("arc_easy │ acc_norm │ 75.00 │ ± 21.65 │ [30.06, 95.44] Wilson │ 4") == 3
    assert "recorded as slm-eval, the former id of smol-slm-eval" in out
    assert "recorded as slm_eval, the former id of smol-slm-eval" in out
    meta = json.loads((old / "metadata.json").read_text())
    (old / "metadata.json").write_text(json.dumps({**meta, "behaviour_version": "0.9"}))
    assert cli.main(["report", str(old), str(runs["smol_slm_eval"])]) == 2
    assert "refusing to compare or pool smol-slm-eval runs of different behaviour versions" in (
        capsys.readouterr().err)


@pytest.mark.unit
def test_a_folder_of_runs_is_searched_and_failed_runs_are_skipped(runs, tmp_path, capsys):
    shutil.copytree(runs["pico"], tmp_path / "evals" / "pico" / "e5")
    failed = shutil.copytree(runs["pico"], tmp_path / "evals" / "pico" / "f6-FAILED")
    assert cli.main(["report", str(tmp_path / "evals")]) == 0
    out = _out(capsys)
    assert out.count("pico-dsl-v1: ") == 1 and f"skipped failed run {failed}" in out
    assert cli.main(["report", str(failed)]) == 2
    assert capsys.readouterr().err == (
        f"smol-envs: error: {failed}: a failed run (see its FAILED.txt), nothing to report\n")


@pytest.mark.unit
@pytest.mark.parametrize("breakage", ["no_metadata", "unknown_env", "missing_metric",
                                      "other_dataset", "empty_folder"])
def test_runs_that_cannot_be_reported_give_one_line_and_exit_2(runs, tmp_path, capsys,
                                                               breakage):
    source = runs["smolscript" if breakage == "other_dataset" else "pico"]
    run = shutil.copytree(source, tmp_path / "run")
    expected = {"no_metadata": "no metadata.json beside results.jsonl",
                "unknown_env": "no report for environment 'reverse-text' (known: pico-dsl-v1, ",
                "missing_metric": "results line 1: metric 'exact_match' is missing",
                "other_dataset": "the results were scored on dataset sha256 0000000000000000",
                "empty_folder": "no results.jsonl or traces.jsonl inside"}[breakage]
    if breakage == "no_metadata":
        (run / "metadata.json").unlink()
    elif breakage == "unknown_env":
        meta = json.loads((run / "metadata.json").read_text())
        (run / "metadata.json").write_text(json.dumps({**meta, "env_id": "reverse-text"}))
    elif breakage in ("missing_metric", "other_dataset"):
        rows = [json.loads(x) for x in (run / "results.jsonl").read_text().splitlines()]
        if breakage == "missing_metric":
            del rows[0]["metrics"]["exact_match"]
        else:
            rows[0]["info"]["dataset_sha256"] = "0" * 64
        (run / "results.jsonl").write_text("".join(json.dumps(r) + "\n" for r in rows))
    else:
        shutil.rmtree(run)
        run.mkdir()
    assert cli.main(["report", str(run)]) == 2
    err = capsys.readouterr().err
    assert err.startswith("smol-envs: error: ") and expected in err
    assert err.count("\n") == 1 and "Traceback" not in err
    with pytest.raises(Exception, match=re.escape(expected.split(" (known")[0])):
        cli.main(["report", str(run), "--debug"])  # the debug flag shows the real error


def _page_runs(runs: dict[str, Path], count: int, root: Path) -> list[Path]:
    """`count` run folders: the four environments' runs, then copies of them (a second
    model's runs, as a user comparing runs would pass)."""
    folders = list(runs.values())
    for index in range(len(folders), count):
        copy = root / f"copy{index}"
        shutil.copytree(folders[index % len(folders)], copy)
        folders.append(copy)
    return folders[:count]


@pytest.mark.integration
@pytest.mark.parametrize("count", [1, 6])
def test_html_page_in_chromium(runs, tmp_path, capsys, count):
    """The page in the real Chromium at 1,280 px: runs stacked one under the other at full
    width, every table header shown whole, every bar labelled with its value and N, the
    warnings drawn inside the charts. With SMOL_ENVS_SCREENSHOTS=<folder> the full-page
    screenshot is also written there (docs/screenshots/report_<count>_runs.png)."""
    import os

    playwright = pytest.importorskip("playwright.sync_api")
    if not Path(CHROMIUM).exists():
        pytest.fail(f"Chromium not found at {CHROMIUM} (bootstrap.sh --with-toolchains)")
    folders = _page_runs(runs, count, tmp_path)
    page_path = tmp_path / "report.html"
    assert cli.main(["report", *map(str, folders), "--html", str(page_path)]) == 0
    assert f"report page written to {page_path}" in capsys.readouterr().out
    reports = report_runs(folders)
    expected_bars = [sum(len(v) for c in run.body.charts for _, v in c.series) for run in reports]
    errors: list[str] = []
    shot = tmp_path / "report.png"
    with playwright.sync_playwright() as p:
        browser = p.chromium.launch(executable_path=CHROMIUM,
                                    args=["--no-sandbox", "--disable-gpu"])
        try:
            page = browser.new_page(viewport={"width": 1280, "height": 900})
            page.on("console", lambda m: errors.append(m.text) if m.type == "error" else None)
            page.on("pageerror", lambda e: errors.append(str(e)))
            page.goto(page_path.as_uri(), wait_until="load")
            sections = page.locator("section.run")
            assert sections.count() == count
            assert page.locator("nav li").count() == count
            boxes = [sections.nth(i).bounding_box() for i in range(count)]
            # stacked: one under the other, each as wide as the page, nothing scrolls sideways
            assert [b["y"] for b in boxes] == sorted(b["y"] for b in boxes)
            assert len({round(b["y"]) for b in boxes}) == count
            assert all(b["width"] > 1100 for b in boxes), boxes
            assert page.evaluate("document.documentElement.scrollWidth") <= 1280
            cut = page.evaluate("""[...document.querySelectorAll('th, caption')]
                .filter(e => e.scrollWidth > e.clientWidth + 1).map(e => e.textContent)""")
            assert cut == []
            for i in range(count):
                section = sections.nth(i)
                env_id = section.locator("h2").inner_text().split(":")[0]
                head = section.locator("table.head").inner_text()
                for field in ("model", "endpoint", "started", "dataset", "run", "status"):
                    assert re.search(rf"^{field}\t\S", head, re.MULTILINE), (env_id, field)
                assert MODEL in head and ENDPOINT in head
                charts = section.locator("figure.chart svg")
                assert charts.count() == 1
                texts = [t.strip() for t in charts.first.locator("text").all_text_contents()]
                assert any(MODEL in t for t in texts), (env_id, texts)  # the chart names the model
                values = [t for t in texts if re.fullmatch(r"\d+\.\d|n/a", t)]
                sizes = [t for t in texts if re.fullmatch(r"N=(\d+|\?)", t)]
                assert len(values) == len(sizes) == expected_bars[i], (env_id, texts)
                drawn = " ".join(texts)
                if env_id == "smoltalkbench":  # the small judge's caveat is on the picture
                    assert "not a valid measurement" in drawn, texts
                if env_id == "smolscript":  # one task per language: a subset, N=1 bars marked
                    assert "subset: per_language 1" in drawn and "N=1" in sizes, texts
                    assert any(t.startswith("hatched, pale: N=1") for t in texts), texts
            text = page.locator("body").inner_text()
            if count > 1:
                assert "copy_case\t100.0 (2)" in text and "judged / total\t11 / 12" in text
                assert "eval_avg\t50.00" in text and "Rust\t1\t100.0" in text
            page.screenshot(path=str(shot), full_page=True)
        finally:
            browser.close()
    assert errors == []
    assert shot.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
    if os.environ.get("SMOL_ENVS_SCREENSHOTS"):
        folder = Path(os.environ["SMOL_ENVS_SCREENSHOTS"])
        folder.mkdir(parents=True, exist_ok=True)
        shutil.copyfile(shot, folder / f"report_{count}_runs.png")


@pytest.mark.unit
def test_every_hook_gives_its_bars_n_and_interval_and_its_warnings(runs):
    """The four report hooks pass an estimate (N, 95% interval) for every measured bar and
    their validity warnings to the chart (issue 44: charts over-read)."""
    charts = {run.header.env_id: run.body.charts[0] for run in report_runs(list(runs.values()))}
    sizes = {env_id: [v.n for _, values in chart.series for v in values]
             for env_id, chart in charts.items()}
    assert sizes == {"pico-dsl-v1": [4, 4], "smolscript": [1] * 18,
                     "smoltalkbench": [3, 2, 2, 1, 1, 2], "smol-slm-eval": [4, 4]}
    # a category of one judged sample keeps no t interval; a language's one task keeps Wilson's
    talk = dict(zip(charts["smoltalkbench"].labels, charts["smoltalkbench"].series[0][1],
                    strict=True))
    assert talk["math (1/1)"].method == "t" and math.isnan(talk["math (1/1)"].low)
    rust = charts["smolscript"].series[0][1][charts["smolscript"].labels.index("Rust")]
    assert (rust.value, rust.method) == (100.0, "Wilson") and rust.low < 30
    assert "not a valid measurement" in charts["smoltalkbench"].warning
    assert "trained on SmolTalkBench" in charts["smoltalkbench"].warning
    assert charts["smolscript"].warning.startswith("subset: per_language 1")
    assert charts["pico-dsl-v1"].warning == "subset: first 8 of 480 rows"
    assert "arc_easy: first 4 of 2376 rows" in charts["smol-slm-eval"].warning


@pytest.mark.unit
def test_matplotlib_notes_stay_out_of_the_output(caplog, recwarn):
    import logging

    from smol_envs_core.report.charts import quiet_matplotlib

    with quiet_matplotlib() as plt:
        # what a first run logs while it builds the font cache, and a layout that cannot fit
        logging.getLogger("matplotlib.font_manager").warning(
            "Matplotlib is building the font cache; this may take a moment.")
        fig, ax = plt.subplots(figsize=(1, 1))
        ax.set_title("a title far too long for a one-inch figure " * 4)
        ax.set_ylabel("label " * 20)
        fig.tight_layout()
        plt.close(fig)
    assert [r for r in caplog.records if r.name.startswith("matplotlib")] == []
    assert [str(w.message) for w in recwarn] == []
    assert logging.getLogger("matplotlib").level != logging.ERROR  # restored afterwards


@pytest.mark.integration
def test_a_first_run_prints_nothing_but_the_report(runs, tmp_path):
    import os
    import subprocess
    import sys

    env = {**os.environ, "MPLCONFIGDIR": str(tmp_path / "fresh-matplotlib"), "COLUMNS": "200"}
    done = subprocess.run([sys.executable, "-m", "smol_envs_core.cli", "report",
                           *map(str, runs.values()), "--html", str(tmp_path / "r.html")],
                          capture_output=True, text=True, env=env, timeout=300)
    assert done.returncode == 0, done.stderr
    assert done.stderr == ""
    assert "matplotlib" not in done.stdout.lower()


@pytest.mark.e2e
def test_a_real_vf_eval_run_is_reported(local_model_base_url, tmp_path):
    """vf-eval pico-dsl-v1 against the local model (2 rows), then `smol-envs report` on the
    folder vf-eval wrote: the header names what vf-eval recorded, the table counts the rows."""
    import os
    import subprocess

    repo = Path(__file__).resolve().parents[2]
    env = {**os.environ, "OPENAI_API_KEY": "EMPTY", "COLUMNS": "200"}
    run = subprocess.run(
        ["uv", "run", "vf-eval", "pico-dsl-v1", "-m", "SmolLM2-135M-Instruct", "-b",
         local_model_base_url, "-k", "OPENAI_API_KEY", "-n", "2", "-r", "1", "-t", "64", "-T", "0",
         "-s", "-o", str(tmp_path)], cwd=repo, capture_output=True, text=True, env=env,
        timeout=590)
    assert run.returncode == 0, run.stderr[-2000:]
    report = subprocess.run(["uv", "run", "smol-envs", "report", str(tmp_path)], cwd=repo,
                            capture_output=True, text=True, env=env, timeout=300)
    assert report.returncode == 0 and report.stderr == "", report.stderr
    out = " ".join(report.stdout.split())
    [folder] = [p.parent for p in tmp_path.rglob("results.jsonl")]
    assert f"endpoint {local_model_base_url}" in out and f"run {folder}" in out
    assert "pico-dsl-v1: SmolLM2-135M-Instruct" in out and "status 2 examples" in out
    assert re.search(r"all │ (\S+ \(\d\) │ )+\d+\.\d \(2\)", out), out


def _set_version(run: Path, metadata: str | None = None, rows: dict[int, str] | None = None):
    """Stamp a copied run: metadata.json's behaviour_version and/or some rows' info."""
    if metadata is not None:
        meta = json.loads((run / "metadata.json").read_text())
        (run / "metadata.json").write_text(json.dumps({**meta, "behaviour_version": metadata}))
    if rows:
        lines = [json.loads(x) for x in (run / "results.jsonl").read_text().splitlines()]
        for index, version in rows.items():
            lines[index]["info"]["behaviour_version"] = version
        (run / "results.jsonl").write_text("".join(json.dumps(r) + "\n" for r in lines))
    return run


@pytest.mark.unit
@pytest.mark.parametrize("first, second, why", [
    (("2", None), ("3", None), "two versions in metadata.json"),
    (("2", None), (None, None), "versioned and unversioned runs"),
    (("2", None), ("2", {0: "3"}), "one row of the second run scored by another version"),
])
def test_runs_of_different_behaviour_versions_are_refused(runs, tmp_path, capsys, first,
                                                         second, why):
    a = _set_version(shutil.copytree(runs["pico"], tmp_path / "a"), first[0], first[1])
    b = _set_version(shutil.copytree(runs["pico"], tmp_path / "b"), second[0], second[1])
    assert cli.main(["report", str(a), str(b)]) == 2, why
    captured = capsys.readouterr()
    assert captured.out == "" and captured.err.count("\n") == 1, why
    assert captured.err.startswith("smol-envs: error: refusing to compare or pool pico-dsl-v1 "
                                   "runs of different behaviour versions ("), why
    assert captured.err.endswith("pass --allow-mixed-versions to report them anyway\n"), why
    assert cli.main(["report", str(a), str(b), "--allow-mixed-versions"]) == 0, why
    out = _out(capsys)
    assert out.count("pico-dsl-v1: ") == 2 and "note: mixed behaviour versions allowed" in out


@pytest.mark.unit
def test_each_run_prints_its_behaviour_version_rows_first(runs, tmp_path, capsys):
    """A row's info names the version first, metadata.json second; other environments' runs
    may carry other versions (only runs of one environment are compared)."""
    a = _set_version(shutil.copytree(runs["pico"], tmp_path / "a"), "1",
                     {i: "2" for i in range(8)})
    b = _set_version(shutil.copytree(runs["smoltalkbench"], tmp_path / "b"), "7")
    assert cli.main(["report", str(a), str(b)]) == 0
    out = _out(capsys)
    assert "behaviour version 2 run " + str(a) in out and "behaviour version 7 run " in out
    mixed = _set_version(shutil.copytree(runs["pico"], tmp_path / "m"), None, {0: "2"})
    assert cli.main(["report", str(mixed)]) == 2  # one run's rows disagree: 2 and unversioned
    assert "(2 in " in capsys.readouterr().err
    assert cli.main(["report", str(mixed), "--allow-mixed-versions"]) == 0
    assert "behaviour version mixed: 2, unversioned" in _out(capsys)


def _with_errored_rows(src: Path, dest: Path, count: int) -> Path:
    """A copy of the run `src` whose first `count` rollouts errored as vf-eval records it: the
    error set, no metrics, reward 0."""
    shutil.copytree(src, dest)
    rows = [json.loads(line) for line in (dest / "results.jsonl").read_text().splitlines()]
    for row in rows[:count]:
        row.update(error="ModelEndpointError: connection refused", metrics={}, reward=0.0)
    (dest / "results.jsonl").write_text("".join(json.dumps(r) + "\n" for r in rows))
    return dest


@pytest.mark.unit
def test_errored_rollouts_are_left_out_of_every_figure_and_said(runs, tmp_path, capsys):
    """An errored rollout is an infrastructure failure, not a wrong answer: it is neither
    scored 0 nor a reason to refuse the run; the figures rest on the rest, and the report and
    the leaderboard cell say how many were left out."""
    run = _with_errored_rows(runs["pico"], tmp_path / "pico" / "e1", count=1)  # a copy_case L1
    body = report_runs([run])[0].body
    exact = dict(body.headline)["exact_match x100"]
    assert exact.n == 7 and exact.value == pytest.approx(100 / 7, abs=0.05)
    assert body.status.endswith("less 1 errored rollout(s)")
    assert body.notes[0].startswith("1 errored rollout(s) left out of every figure")
    assert "connection refused" in body.notes[0]
    assert all("less 1 errored rollout(s)" in s.subset for s in body.leaderboard)
    assert cli.main(["report", str(run)]) == 0
    assert "1 errored rollout(s) left out" in _out(capsys)
    every = _with_errored_rows(runs["smol_slm_eval"], tmp_path / "slm" / "e2", count=10**6)
    assert cli.main(["report", str(every)]) == 2
    assert "every rollout errored" in capsys.readouterr().err
