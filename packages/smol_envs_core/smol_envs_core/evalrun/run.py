"""Drive one model through a suite: start what it needs, run each environment through vf-eval's
own entry point, save one run set, print the summary, stop what was started.

Each run is `verifiers.legacy.scripts.eval.main(ARGV)` called in this process with the
environment's documented flags, an endpoints file written for this run set (two aliases,
chat and raw completions, naming the served model id) and `--disable-env-server`: verifiers
is imported once for the whole suite instead of once per vf-eval process and again in each
environment worker. vf-eval's own output goes to `logs/<run>.log`; the terminal shows one line
per run (rows, elapsed, estimate for the rest) and vf-eval's progress bar.

The run set (`--output DIR`) holds one folder per run in vf-eval's format (`results.jsonl`,
`metadata.json`, which `smol-envs report DIR` reads) and `manifest.json` (`manifest`). A run
stops at the first infrastructure failure (the environments' failure policy), and on Ctrl-C
with one line saying what was saved and the command that resumes it; a run stopped midway
keeps its rows (`resume.keep_unfinished`). `--resume` skips every run already complete and
reruns only the missing or errored rows of the others (`resume`: vf-eval's own resume from the
kept rows, which are never rescored); every finished run's rows are in example-id order.
"""

from __future__ import annotations

import contextlib
import json
import os
import shlex
import shutil
import signal
import sys
import time
from dataclasses import dataclass, field
from pathlib import Path

from ..errors import InfrastructureError, SmolEnvsError
from . import interrupt, resume, suites
from . import manifest as manifests
from .engines import LlamaCpp
from .model import ENDPOINT, ModelSpec, is_hf_folder
from .resume import EVAL_KEY, complete
from .services import Services

CHAT_ALIAS = "eval-chat"
COMPLETIONS_ALIAS = "eval-completions"
LOCAL_KEY_VAR = "SMOL_ENVS_LOCAL_API_KEY"
LOCAL_JUDGE = "smollm2-135m"


@dataclass
class EvalOptions:
    """What `smol-envs eval` was asked, beside MODEL.

    suite: "quick" or "full"; envs: run names or env ids (None: all); limit: at most this many
    rows per run; output: the run set folder; resume: skip complete runs and run only
    the missing or errored rows of the others (`resume`); judge: None (the
    bundled local judge), an endpoint URL (with judge_model, judge_key_var) or a MODEL served
    locally; threads: llama.cpp threads per server; argv: the command as typed (for the
    resume line); engine: what serves MODEL (`engines.select`; None: llama.cpp).
    """

    suite: str = "quick"
    envs: list[str] | None = None
    limit: int | None = None
    output: Path = Path("eval-runs")
    resume: bool = False
    judge: str | None = None
    judge_model: str | None = None
    judge_key_var: str | None = None
    threads: int = 2
    fixed_threads: bool = False
    argv: list[str] = field(default_factory=list)
    engine: object = None


def endpoints_text(base_url: str, served_name: str, key_var: str | None) -> str:
    """The endpoints.toml of one run set: CHAT_ALIAS and COMPLETIONS_ALIAS at `base_url`,
    answering to `served_name`. Pure."""
    entries = []
    for alias, kind in ((CHAT_ALIAS, None), (COMPLETIONS_ALIAS, "openai_completions")):
        entries += ["[[endpoint]]", f"endpoint_id = {json.dumps(alias)}",
                    f"model = {json.dumps(served_name)}", f"url = {json.dumps(base_url)}",
                    f"key = {json.dumps(key_var or LOCAL_KEY_VAR)}"]
        entries += [f"type = {json.dumps(kind)}"] if kind else []
        entries.append("")
    return "# written by smol-envs eval for this run set\n" + "\n".join(entries)


def vf_eval_argv(run: suites.SuiteRun, suite: str, limit: int | None, endpoints: Path,
                 env_args: dict, output: Path, resume_from: Path | None = None) -> list[str]:
    """The vf-eval arguments of `run` (without the program name); `resume_from`: the folder
    of kept rows vf-eval resumes (`--resume PATH`: it runs only the examples missing there).
    Pure."""
    alias = COMPLETIONS_ALIAS if run.api == suites.COMPLETIONS else CHAT_ALIAS
    return [run.env_id, "-e", str(endpoints), "-m", alias, "-a", json.dumps(env_args),
            "-n", str(run.rows_for(suite, limit)), *run.flags, "-s", "-o", str(output),
            "--disable-tui", *(["--disable-env-server"] if run.in_process else []),
            *(["--resume", str(resume_from)] if resume_from is not None else [])]


def selection(run: suites.SuiteRun, suite: str, limit: int | None) -> dict:
    """What chooses and scores a run's rows (environment arguments, vf-eval `-n`, flags): a
    resumed run must keep it (`resume.check_selection`). Pure."""
    return {"env_args": run.args_for(suite), "rows": run.rows_for(suite, limit),
            "flags": list(run.flags)}


def _run_vf_eval(argv: list[str], log_path: Path) -> None:
    """vf-eval's main in this process, its stdout to `log_path`."""
    from verifiers.legacy.scripts.eval import main as vf_eval_main

    log_path.parent.mkdir(parents=True, exist_ok=True)
    with open(log_path, "a", encoding="utf-8") as log, contextlib.redirect_stdout(log):
        vf_eval_main(argv)


def _finish(stage: Path, target: Path, extra: dict) -> int:
    """Move the one results folder under `stage` to `target`, adding `extra` to its
    metadata.json under EVAL_KEY; return its row count."""
    found = list(stage.rglob("results.jsonl"))
    if len(found) != 1:
        raise SmolEnvsError(f"smol-envs eval: expected one results.jsonl under {stage}, found "
                            f"{len(found)}")
    source = found[0].parent
    rows = resume.order_rows(source)
    meta_path = source / "metadata.json"
    metadata = json.loads(meta_path.read_text())
    earlier = extra.pop("earlier_time_s", 0.0)
    if earlier and isinstance(metadata.get("time"), int | float):
        metadata["time"] = metadata["time"] + earlier  # the sessions' sum
    metadata[EVAL_KEY] = {**extra, "rows": rows}
    meta_path.write_text(json.dumps(metadata, indent=2) + "\n")
    if target.exists():
        shutil.rmtree(target)
    shutil.move(str(source), target)
    shutil.rmtree(stage, ignore_errors=True)
    return rows


def _judge_args(spec: ModelSpec, base_url: str, opts: EvalOptions, services: Services,
                log) -> tuple[dict, dict]:
    """(smoltalkbench's judge arguments, the manifest's judge record). A judge that is a
    Hugging Face folder is served by the run's engine, an alias or a GGUF (the bundled judge)
    by llama.cpp; the model itself judges when it is the judge. The label-bias ids are read
    from the judge server ("auto")."""
    if opts.judge is None or not opts.judge.startswith(("http://", "https://")):
        engine = opts.engine if opts.judge and is_hf_folder(Path(opts.judge)) else None
        judge_spec = (engine or LlamaCpp()).resolve(opts.judge or LOCAL_JUDGE, None, None)
        same = (judge_spec.kind, judge_spec.sha256) == (spec.kind, spec.sha256)
        judge_spec = spec if same else judge_spec
        url = base_url if same else services.model_server(judge_spec, engine)
        args = {"judge_model": judge_spec.served_name, "judge_base_url": url,
                "judge_api_key_var": "", "judge_label_bias": "auto",
                "judge_timeout_s": 600}
        record = {"model": judge_spec.identity(), "bundled_local_judge": opts.judge is None}
        return args, record
    if not opts.judge_model:
        raise SmolEnvsError("smol-envs eval: --judge URL needs --judge-model (the id its "
                            "/v1/models lists)")
    args = {"judge_model": opts.judge_model, "judge_base_url": opts.judge.rstrip("/"),
            "judge_api_key_var": opts.judge_key_var or "", "judge_label_bias": "auto"}
    return args, {"endpoint": opts.judge, "model": opts.judge_model}


def _resume_command(opts: EvalOptions) -> str:
    argv = list(opts.argv)
    if "--output" not in argv and "-o" not in argv:
        argv += ["--output", str(opts.output)]
    if "--resume" not in argv:
        argv.append("--resume")
    return "smol-envs eval " + shlex.join(argv)


def progress_line(index: int, total: int, name: str, rows_done: int, rows_total: int,
                  elapsed: float, what: str) -> str:
    """One progress line: run k of n, rows done of the suite's total, elapsed and an estimate
    of the rest from the rows per second so far. Pure."""
    rest = ""
    if rows_done and rows_total > rows_done:
        rest = f", about {(rows_total - rows_done) * elapsed / rows_done / 60:.1f} min left"
    return (f"smol-envs eval: [{index}/{total}] {name}: {what} ({rows_done} of about "
            f"{rows_total} rows done, {elapsed / 60:.1f} min elapsed{rest})")


def evaluate(spec: ModelSpec, opts: EvalOptions, log=None) -> int:
    """Evaluate `spec` on `opts.suite` into `opts.output`; return the exit status (0 done, 1
    an infrastructure failure, 130 interrupted). Stops every process it started."""
    log = log or (lambda line: print(line, file=sys.stderr, flush=True))
    chosen = suites.runs(opts.suite, opts.envs)
    out = Path(opts.output).resolve()
    out.mkdir(parents=True, exist_ok=True)
    previous = manifests.read(out) if opts.resume else None
    if previous and previous.get("model", {}).get("sha256") not in (None, spec.sha256):
        raise SmolEnvsError(f"smol-envs eval: {out} holds runs of another model file "
                            f"({previous['model'].get('given')}); use another --output")
    saved = {r.name: resume.saved_run(out, r.name) for r in chosen} if opts.resume else {}
    for run in chosen:
        if saved.get(run.name) is not None:
            resume.check_selection(saved[run.name], selection(run, opts.suite, opts.limit),
                                   out / run.name)
    todo = [r for r in chosen if not (opts.resume and complete(out / r.name))]
    skipped = [r.name for r in chosen if r not in todo]
    if skipped:
        log(f"smol-envs eval: --resume: {len(skipped)} complete run(s) kept: "
            f"{', '.join(skipped)}")
    partial = {r.name: saved[r.name] for r in todo if saved.get(r.name) and saved[r.name].kept}
    if partial:
        log("smol-envs eval: --resume: " + "; ".join(
            f"{name}: {len(p.kept)} row(s) kept, {p.missing} to run ({p.dropped} errored)"
            for name, p in partial.items()))
    record = (previous or {}) | {
        "model": spec.identity(), "engine": (opts.engine or LlamaCpp()).manifest(spec),
        "suite": opts.suite, "limit": opts.limit, "started": manifests.now(), "ended": None,
        "machine": manifests.machine(), "load_average_start": manifests.load_average(),
        "command": "smol-envs eval " + shlex.join(opts.argv)}
    record.setdefault("runs", {})
    services = Services(threads=opts.threads, log=log, governed=not opts.fixed_threads)
    started = time.monotonic()
    rows_total = sum(partial[r.name].missing if r.name in partial else
                     max(r.rows_for(opts.suite, opts.limit), 0) or 1 for r in todo)
    rows_done = 0
    current: tuple[suites.SuiteRun, Path, dict] | None = None  # the run under way
    try:
        base_url = services.model_server(spec, opts.engine)
        key_var = spec.key_var if spec.kind == ENDPOINT else None
        endpoints = out / "endpoints.toml"
        endpoints.write_text(endpoints_text(base_url, spec.served_name, key_var))
        record["model"]["served_at"] = base_url
        extra_args: dict[str, dict] = {}
        if any(r.judge for r in todo):
            judge_args, record["judge"] = _judge_args(spec, base_url, opts, services, log)
            extra_args["judge"] = judge_args
        if any(r.scoring_service for r in todo):
            extra_args["service"] = {"service_url": services.scoring_service()}
        manifests.write(out, record)
        for index, run in enumerate(todo, 1):
            env_args = {**run.args_for(opts.suite),
                        **(extra_args["judge"] if run.judge else {}),
                        **(extra_args["service"] if run.scoring_service else {})}
            stage = out / ".partial" / run.name
            shutil.rmtree(stage, ignore_errors=True)
            kept = partial.get(run.name)
            resume_from = resume.seed(stage, kept) if kept else None
            argv = vf_eval_argv(run, opts.suite, opts.limit, endpoints, env_args, stage,
                                resume_from)
            extra = {"suite": opts.suite, "run": run.name,
                     "command": "vf-eval " + shlex.join(argv), "model": spec.identity(),
                     "selection": selection(run, opts.suite, opts.limit)}
            current = (run, stage, extra)
            log(progress_line(index, len(todo), run.name, rows_done, rows_total,
                              time.monotonic() - started, "starting"))
            load_before = manifests.load_average()
            t0 = time.monotonic()
            try:
                _run_vf_eval(argv, out / "logs" / f"{run.name}.log")
            except SmolEnvsError as exc:
                if resume_from is None or isinstance(exc, InfrastructureError):
                    raise
                # resume_guard's refusal names the stage; the user knows the run folder
                raise SmolEnvsError("--resume: " + str(exc).replace(
                    str(resume_from), str(out / run.name))) from None
            wall = time.monotonic() - t0
            resumed = {"resumed": {"kept_rows": len(kept.kept)},
                       "earlier_time_s": kept.metadata.get("time") or 0.0} if kept else {}
            rows = _finish(stage, out / run.name, {
                **extra, "wall_time_s": round(wall, 1), "load_average_before": load_before,
                "load_average_after": manifests.load_average(), **resumed})
            current = None
            resume.drop_leftovers(out, run.name)
            rows_done += rows - (len(kept.kept) if kept else 0)
            record["runs"][run.name] = {"rows": rows, "wall_time_s": round(wall, 1),
                                        "behaviour_version": _behaviour_version(out / run.name)}
            manifests.write(out, record)
            log(progress_line(index, len(todo), run.name, rows_done, rows_total,
                              time.monotonic() - started, f"{rows} rows in {wall:.0f} s"))
    except KeyboardInterrupt:
        # A second Ctrl-C (or a handler verifiers installed re-raising) must not cut the
        # cleanup short: stop what was started first, then say so.
        signal.signal(signal.SIGINT, signal.SIG_IGN)
        stopped = services.close()
        rows = resume.keep_unfinished(current[1], out / current[0].name, current[2]) \
            if current else 0
        done = [r.name for r in chosen if complete(out / r.name)]
        log(f"smol-envs eval: interrupted; saved {len(done)} of {len(chosen)} runs in {out}"
            f"{' (' + ', '.join(done) + ')' if done else ''}"
            f"{f' and {rows} row(s) of {current[0].name}' if rows else ''}; stopped "
            f"{', '.join(stopped) or 'nothing'}; resume: {_resume_command(opts)}")
        return interrupt.handled()
    except InfrastructureError:
        if current:  # its good rows, where `smol-envs report` does not take them for results
            resume.keep_unfinished(current[1], out / f"{current[0].name}"
                                   f"{resume.FAILED_SUFFIX}", current[2])
        raise
    finally:
        previous_handler = signal.signal(signal.SIGINT, signal.SIG_IGN)
        services.close()
        signal.signal(signal.SIGINT, previous_handler)
        record["ended"] = manifests.now()
        record["load_average_end"] = manifests.load_average()
        with contextlib.suppress(OSError):
            manifests.write(out, record)
        shutil.rmtree(out / ".partial", ignore_errors=True)
    log(f"smol-envs eval: {len(todo)} run(s) in {(time.monotonic() - started) / 60:.1f} min; "
        f"run set {out}")
    return 0


def _behaviour_version(folder: Path) -> str | None:
    try:
        return json.loads((folder / "metadata.json").read_text()).get("behaviour_version")
    except (OSError, ValueError):
        return None


def guarded_evaluate(spec: ModelSpec, opts: EvalOptions) -> int:
    """`evaluate`, with an infrastructure failure as one line and status 1."""
    try:
        return evaluate(spec, opts)
    except InfrastructureError as exc:
        print(f"{exc} (smol-envs eval stopped; complete runs are kept in {opts.output}; "
              f"resume: {_resume_command(opts)})", file=sys.stderr)
        return 1


def environment_ready() -> None:
    """Make the local API key variable defined (a local server needs no key)."""
    os.environ.setdefault(LOCAL_KEY_VAR, "EMPTY")
