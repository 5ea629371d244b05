"""The one reader of what `vf-eval -s` saves: `results.jsonl` (one rollout per line, with
`info`, `metrics`, `reward`) and the `metadata.json` beside it, into a `model.Results`; and the
search of folders for runs. A verifiers 0.4 run folder (`traces.jsonl`) is read by `traces.py`
into the same `Results`. Reads files (and, for former environment ids, the installed entry
points: `env_ids`) only; no verifiers.

An environment's own command may write one JSON results document instead (`results.json`, e.g.
`smolscript evaluate`): it names its `format`, and the environment registers a reader for that
format in the entry-point group `smol_envs.results_format` (name: the format; value: a function
`(Path) -> Results`). A `metadata.json` beside such a document (a baseline's provenance: model
label, wall time) is laid over the reader's metadata.
"""

from __future__ import annotations

import datetime as dt
import json
from collections.abc import Iterable, Mapping
from pathlib import Path
from typing import Any

from ..env_ids import canonical_key
from ..runinfo import RUN_KEY
from .model import UNVERSIONED, Provenance, ReportError, Results, ResultsError, Row
from .traces import TRACES_FILE, parse_traces

RESULTS_FILE = "results.jsonl"
DOCUMENT_FILE = "results.json"
DOCUMENT_GROUP = "smol_envs.results_format"
METADATA_FILE = "metadata.json"
FAILED_SUFFIX = "-FAILED"
VERSION_KEY = "behaviour_version"
NOT_RECORDED = "not recorded"


def results_path(path: str | Path) -> Path:
    """`path` itself, or the results.jsonl inside it when it is the folder vf-eval wrote (the
    results.json document, or verifiers 0.4's traces.jsonl, inside it when the folder holds
    that instead)."""
    path = Path(path)
    if not path.is_dir():
        return path
    if (path / RESULTS_FILE).exists():
        return path / RESULTS_FILE
    for other in (DOCUMENT_FILE, TRACES_FILE):
        if (path / other).is_file():
            return path / other
    return path / RESULTS_FILE


def _info(row: Mapping[str, Any]) -> dict[str, Any]:
    info = row.get("info") or {}
    info = json.loads(info) if isinstance(info, str) else info
    return dict(info) if isinstance(info, Mapping) else {}


def make_row(raw: Mapping[str, Any], line: int = 0, fallback_version: str | None = None) -> Row:
    """A `model.Row` from one parsed results line: `info` decoded, `metrics` merged over the
    row's top-level numbers, the behaviour version from `info` or `fallback_version`."""
    info = _info(raw)
    flat = {k: v for k, v in raw.items() if isinstance(v, int | float)}
    nested = raw.get("metrics") if isinstance(raw.get("metrics"), Mapping) else {}
    version = info.get(VERSION_KEY) or fallback_version or UNVERSIONED
    return Row(line=line, info=info, metrics={**flat, **nested}, raw=dict(raw),
               behaviour_version=str(version))


def provenance(path: Path, metadata: Mapping[str, Any], rows: Iterable[Row],
               env_id: str | None = None) -> Provenance:
    """The provenance of the run whose results file is `path`: metadata.json's environment
    (else `env_id`, else "?"), model, endpoint, start and end (its `run` record, else its
    `date`, else "not recorded": never the file's modification time, which says when the file
    was copied or cloned), command and machine (the `run` record, else a baseline's own
    record), wall time, and the rows' behaviour versions and dataset hashes."""
    rows = list(rows)
    run = metadata.get(RUN_KEY) if isinstance(metadata.get(RUN_KEY), Mapping) else {}
    date = _when(run.get("started_at")) or metadata.get("date") or NOT_RECORDED
    fallback = metadata.get(VERSION_KEY)
    versions = sorted({r.behaviour_version for r in rows}) or [str(fallback or UNVERSIONED)]
    shas = sorted({str(r.info["dataset_sha256"]) for r in rows if r.info.get("dataset_sha256")})
    return Provenance(env_id=str(metadata.get("env_id") or metadata.get("env") or env_id or "?"),
                      model=str(metadata.get("model") or "?"),
                      endpoint=str(metadata.get("base_url") or "?"), date=str(date),
                      path=path.parent, behaviour_versions=tuple(versions),
                      dataset_sha256=tuple(shas), wall_time_s=_seconds(metadata.get("time")),
                      ended=_when(run.get("ended_at")) or NOT_RECORDED,
                      command=str(run.get("command") or _baseline(metadata, "command")
                                  or NOT_RECORDED),
                      machine=_machine(run.get("machine") or _baseline(metadata, "machine")))


def _when(value: Any) -> str | None:
    """An ISO 8601 UTC time ("2026-12-04T17:30:00Z") as shown: "2026-12-04 17:30:00 UTC"."""
    if not isinstance(value, str) or not value:
        return None
    try:
        stamp = dt.datetime.fromisoformat(value.replace("Z", "+00:00"))
    except ValueError:
        return value
    return stamp.astimezone(dt.UTC).strftime("%Y-%m-%d %H:%M:%S UTC")


def _baseline(metadata: Mapping[str, Any], key: str) -> Any:
    block = metadata.get("baseline")
    return block.get(key) if isinstance(block, Mapping) else None


def _machine(host: Any) -> str:
    """A machine record in one line: "AMD EPYC, 2 cores, 23.5 GiB, load 0.5/0.7/0.9"."""
    if not isinstance(host, Mapping):
        return NOT_RECORDED
    parts = [str(host.get("cpu") or "?")]
    if host.get("cores"):
        parts.append(f"{host['cores']} cores")
    if host.get("memory_gib"):
        parts.append(f"{host['memory_gib']} GiB")
    load = host.get("load_average")
    if isinstance(load, list | tuple) and load:
        parts.append("load " + "/".join(str(x) for x in load))
    return ", ".join(parts)


def _seconds(value: Any) -> float | None:
    ok = isinstance(value, int | float) and not isinstance(value, bool) and value == value
    return float(value) if ok else None


def expect_environment(results: Results, env_id: str) -> None:
    """Refuse a run of another environment (by metadata.json's env_id) in an environment's
    own report command; a run recorded under the environment's former id (`env_ids`) is its.

    Raises:
        ReportError: the run's metadata names another environment.
    """
    found = results.metadata.get("env_id")
    if found and canonical_key(found) != canonical_key(env_id):
        raise ReportError(f"{results.path.parent} is a {found} run, not {env_id}: report it with "
                          f"`smol-envs report {results.path.parent}`")


def read_results(path: str | Path, expect: str | None = None) -> Results:
    """Read a vf-eval results.jsonl (or its folder) and the metadata.json beside it; a
    verifiers 0.4 traces.jsonl (or its folder) through `traces.read_traces`.

    expect: the environment id an environment's own command reads; a run of another
        environment is refused, and a run without metadata.json is taken to be one of it.
    Raises:
        ResultsError: the file does not exist, cannot be read, or a line is not JSON.
        ReportError: `expect` is given and the metadata names another environment.
    """
    path = results_path(path)
    if not path.is_file():
        raise ResultsError(f"{path}: no such results file")
    if path.name == TRACES_FILE:
        return read_traces(path, expect)
    if path.suffix == ".json":
        results = read_document(path, expect)
        if expect is not None:
            expect_environment(results, expect)
        return results
    try:
        meta_path = path.with_name(METADATA_FILE)
        metadata = json.loads(meta_path.read_text()) if meta_path.is_file() else {}
        if not isinstance(metadata, dict):
            raise ResultsError(f"{meta_path}: not a JSON object")
        fallback = metadata.get(VERSION_KEY)
        rows = []
        with path.open(encoding="utf-8") as handle:
            for number, text in enumerate(handle, start=1):
                if text.strip():
                    raw = json.loads(text)
                    if not isinstance(raw, dict):
                        raise ResultsError(f"{path}: line {number} is not a JSON object")
                    rows.append(make_row(raw, number, fallback))
    except (OSError, json.JSONDecodeError) as exc:
        raise ResultsError(f"cannot read results {path}: {exc}") from exc
    results = Results(path=path, rows=tuple(rows), metadata=metadata,
                      provenance=provenance(path, metadata, rows, expect))
    if expect is not None:
        expect_environment(results, expect)
    return results


def read_traces(path: Path, expect: str | None = None) -> Results:
    """Read a verifiers 0.4 `traces.jsonl` (`traces.parse_traces`: one row per trace) into
    `Results`; `expect` as in `read_results`.

    Raises:
        ResultsError: the file cannot be read, a line is not a JSON object, or it holds no trace.
        ReportError: `expect` is given and the run is of another environment.
    """
    parsed, metadata = parse_traces(path)
    rows = [make_row(raw, line) for line, raw in parsed]
    results = Results(path=path, rows=tuple(rows), metadata=metadata,
                      provenance=provenance(path, metadata, rows, expect))
    if expect is not None:
        expect_environment(results, expect)
    return results


def find_runs(paths: Iterable[str | Path]) -> tuple[list[Path], list[str]]:
    """The results files named by `paths` (a results.jsonl, results.json document or 0.4
    traces.jsonl, a run folder, or a folder searched recursively), in the order given, and
    notes on failed runs skipped in searched folders.

    Raises:
        ReportError: a path does not exist, a run folder given by name is a failed run
            (`<hash>-FAILED`), or a searched folder holds no results.jsonl.
    """
    found: list[Path] = []
    skipped: list[str] = []
    for given in map(Path, paths):
        if not given.exists():
            raise ReportError(f"{given}: no such file or folder")
        run_dir = given.parent if given.is_file() else given
        if run_dir.name.endswith(FAILED_SUFFIX):
            raise ReportError(f"{run_dir}: a failed run (see its FAILED.txt), nothing to report")
        if given.is_file():
            found.append(given)
        elif results_path(given).is_file():
            found.append(results_path(given))
        else:
            inside = sorted([*given.rglob(RESULTS_FILE), *given.rglob(DOCUMENT_FILE),
                             *given.rglob(TRACES_FILE)])
            kept = [p for p in inside if not p.parent.name.endswith(FAILED_SUFFIX)]
            skipped += [f"skipped failed run {p.parent}" for p in inside if p not in kept]
            if not kept:
                raise ReportError(f"{given}: no {RESULTS_FILE} or {TRACES_FILE} inside "
                                  "(expected a `vf-eval -s` result folder, or verifiers 0.4's "
                                  "`vf-eval` output folder)")
            found += kept
    return list(dict.fromkeys(found)), skipped


def read_document(path: Path, env_id: str | None = None) -> Results:
    """Read an environment's JSON results document through the reader its `format` names
    (entry-point group `smol_envs.results_format`), with a metadata.json beside it laid over
    the reader's metadata.

    Raises:
        ResultsError: the file is not JSON, names no format, or no installed reader knows it.
    """
    from importlib.metadata import entry_points

    try:
        document = json.loads(path.read_text(encoding="utf-8"))
        meta_path = path.with_name(METADATA_FILE)
        beside = json.loads(meta_path.read_text()) if meta_path.is_file() else {}
    except (OSError, json.JSONDecodeError) as exc:
        raise ResultsError(f"cannot read results {path}: {exc}") from exc
    found = document.get("format") if isinstance(document, dict) else None
    readers = {ep.name: ep for ep in entry_points(group=DOCUMENT_GROUP)}
    if found not in readers:
        known = ", ".join(sorted(readers)) or "none installed"
        raise ResultsError(f"{path}: not a results document of a known format (its `format` is "
                           f"{found!r}; known: {known}); vf-eval runs are results.jsonl folders")
    results = readers[found].load()(path)
    if not beside:
        return results
    if not isinstance(beside, dict):
        raise ResultsError(f"{meta_path}: not a JSON object")
    metadata = {**results.metadata, **beside}
    header = provenance(path, metadata, results.rows, env_id)
    return Results(path=path, rows=results.rows, metadata=metadata, provenance=header)
