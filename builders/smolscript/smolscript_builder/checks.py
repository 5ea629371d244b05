"""Static validation of the built dataset files (no sandbox): the basis of validation_report.

Every check takes the artifact map ``{relative path: bytes}`` (built in memory or read from
``data/smolscript/``) and returns ``{"passed": bool, "detail": ...}``. Python renderings of
references and mutants are executed in-process here: they are generated code, not model
output, and this is how the oracle, the IR and the mutants are cross-checked without the
sandbox. Execution of the real references in all languages is the sandbox's job and stays
"unverified" in this report.
"""

from __future__ import annotations

import ast
import hashlib
import json
from collections.abc import Callable, Mapping
from typing import Any

from smolscript.types import canonical_output, encode_stdin

from smolscript_builder.editions import (
    EDITIONS,
    FROZEN_ARCHIVES,
    count_cells,
    edition_counts,
    select,
    selection_hash,
)
from smolscript_builder.emit import emit_source
from smolscript_builder.generate import parse_stage
from smolscript_builder.grammar import emit_pipeline, run_pipeline
from smolscript_builder.records import read_parquet_rows

EDITION_DIRS = {"default": "", "previous1000": "archive/v0.2.0/", "full2000": "archive/v0.1.0/"}
UNCHECKSUMMED = ("checksums.json", "validation_report.json")
Check = dict[str, Any]


def _rows(files: Mapping[str, bytes], path: str) -> list[dict[str, Any]]:
    return [json.loads(line) for line in files[path].decode().splitlines() if line]


def load_edition(files: Mapping[str, bytes], edition: str) -> dict[str, list[dict[str, Any]]]:
    """Public, reference and hidden rows of one edition."""
    prefix = EDITION_DIRS[edition]
    return {
        "public": _rows(files, prefix + "smolscript.jsonl"),
        "references": _rows(files, prefix + "references/solutions.jsonl"),
        "hidden": _rows(files, prefix + "private_tests/hidden.jsonl"),
    }


def _frozen(path: str) -> bool:
    return path.startswith(tuple(FROZEN_ARCHIVES.values()))


def checksums(files: Mapping[str, bytes]) -> dict[str, str]:
    """SHA256 of every built artifact except the checksum file and the (re-runnable) report
    (frozen archives carry their own checksums.json)."""
    return {
        path: hashlib.sha256(data).hexdigest()
        for path, data in sorted(files.items())
        if path not in UNCHECKSUMMED and not _frozen(path)
    }


def _result(errors: list[str], **detail: Any) -> Check:
    return {"passed": not errors, "errors": errors[:20], "error_count": len(errors), **detail}


def check_composition(files: Mapping[str, bytes], include_web: bool) -> Check:
    """Every edition has exactly its composition's cell counts."""
    errors = []
    for edition in EDITIONS:
        want = {k: v for k, v in edition_counts(edition, include_web).items() if v}
        got = count_cells(load_edition(files, edition)["public"])
        if got != want:
            diff = {
                f"{k}": (got.get(k, 0), want.get(k, 0))
                for k in set(got) | set(want)
                if got.get(k, 0) != want.get(k, 0)
            }
            errors.append(f"{edition}: cell counts (got, want) {diff}")
    return _result(errors)


def check_ids_and_editions(files: Mapping[str, bytes]) -> Check:
    """Ids unique and aligned across the three files; editions nested with identical rows."""
    errors: list[str] = []
    rows_by_edition = {}
    for edition in EDITIONS:
        data = load_edition(files, edition)
        ids = [r["id"] for r in data["public"]]
        if len(set(ids)) != len(ids):
            errors.append(f"{edition}: duplicate ids")
        for part in ("references", "hidden"):
            if [r["id"] for r in data[part]] != ids:
                errors.append(f"{edition}: {part} ids differ from the public rows")
        rows_by_edition[edition] = {
            r["id"]: (
                json.dumps(r, sort_keys=True),
                json.dumps(ref, sort_keys=True),
                json.dumps(h, sort_keys=True),
            )
            for r, ref, h in zip(data["public"], data["references"], data["hidden"], strict=False)
        }
    for child, parent in (("previous1000", "full2000"), ("default", "previous1000")):
        for identifier, content in rows_by_edition[child].items():
            if rows_by_edition[parent].get(identifier) != content:
                errors.append(f"{child}: {identifier} missing from or different in {parent}")
    return _result(errors)


def check_manifest(files: Mapping[str, bytes], include_web: bool) -> Check:
    """The selection manifest lists each edition's ids and hashes and re-selection agrees."""
    errors: list[str] = []
    manifest = json.loads(files["selection_manifest.json"])
    parent_rows = None
    for edition in ("full2000", "previous1000", "default"):
        public = load_edition(files, edition)["public"]
        listed = manifest["editions"][edition]["ids"]
        if sorted(r["id"] for r in public) != [item["id"] for item in listed]:
            errors.append(f"{edition}: manifest ids differ from the edition's rows")
        if edition == "full2000":
            data = load_edition(files, edition)
            for pub, ref, hid, item in zip(
                sorted(data["public"], key=lambda r: r["id"]),
                sorted(data["references"], key=lambda r: r["id"]),
                sorted(data["hidden"], key=lambda r: r["id"]),
                listed,
                strict=False,
            ):
                content = hashlib.sha256(
                    json.dumps([pub, ref, hid], sort_keys=True, separators=(",", ":")).encode()
                ).hexdigest()
                if content != item["hash"]:
                    errors.append(f"full2000: content hash of {item['id']} differs")
        else:
            bad = [i["id"] for i in listed if i["hash"] != selection_hash(edition, i["id"])]
            if bad:
                errors.append(f"{edition}: selection hashes wrong for {bad[:3]}")
            again = select(edition, parent_rows, edition_counts(edition, include_web))
            if again != listed:
                errors.append(f"{edition}: re-running the selection gives different ids")
        parent_rows = public
    return _result(errors)


def _python_function(source: str) -> Callable[..., Any]:
    namespace: dict[str, Any] = {}
    exec(compile(source, "<reference>", "exec"), namespace)  # generated code, see module doc
    return namespace["solve"]


def check_program_tasks(files: Mapping[str, bytes]) -> Check:
    """Oracle cases, Python renderings of reference/negative/near-miss, regenerable sources.

    For every program task of full2000: the oracle reproduces every hidden expected value and
    its canonical output; public test inputs equal the hidden ones; the Python rendering of
    the reference passes all hidden tests; the negative control and the near-miss fail at
    least one (the near-miss on every listed distinguishing input); each language's reference,
    negative control and near-miss equal a fresh emission from the stages.
    """
    data = load_edition(files, "full2000")
    errors: list[str] = []
    counted = {"tasks": 0, "hidden_tests": 0, "near_miss": 0}
    cache: dict[str, tuple] = {}
    for pub, ref, hid in zip(data["public"], data["references"], data["hidden"], strict=False):
        if pub["modality"] != "program":
            continue
        counted["tasks"] += 1
        identifier, sig = pub["id"], pub["signature"]
        stages = tuple(parse_stage(s) for s in pub["metadata"]["stages"])
        returns, param = sig["returns"], sig["params"][0]["name"]
        near_stages = (
            tuple(parse_stage(s) for s in ref["near_miss_stages"])
            if ref["near_miss_stages"]
            else None
        )
        if [t["args"] for t in pub["tests"]] != [t["args"] for t in hid["tests"]]:
            errors.append(f"{identifier}: public and hidden test inputs differ")
        for test in hid["tests"]:
            counted["hidden_tests"] += 1
            expected = run_pipeline(stages, test["args"][0])[0]
            if (
                expected != test["expected"]
                or canonical_output(expected, returns) != test["expected_output"]
            ):
                errors.append(f"{identifier}: oracle disagrees with a hidden test")
            if encode_stdin(test["args"], sig) != test["stdin"]:
                errors.append(f"{identifier}: stdin encoding differs")
        for text, these, negative in (
            (ref["reference_solution"], stages, False),
            (ref["negative_control"], stages, True),
            (ref["near_miss"], near_stages, False),
        ):
            if these is None:
                if text is not None:
                    errors.append(f"{identifier}: near-miss source without stages")
                continue
            if (
                emit_source(pub["language"], emit_pipeline(these, param, returns, negative), sig)
                != text
            ):
                errors.append(f"{identifier}: a stored source differs from a fresh emission")
        key = pub["metadata"]["task_key"]
        if key not in cache:
            reference = _python_function(
                emit_source("python", emit_pipeline(stages, param, returns), sig)
            )
            negative = _python_function(
                emit_source("python", emit_pipeline(stages, param, returns, True), sig)
            )
            near = (
                _python_function(
                    emit_source("python", emit_pipeline(near_stages, param, returns), sig)
                )
                if near_stages
                else None
            )
            args = [t["args"][0] for t in hid["tests"]]
            expected = [t["expected"] for t in hid["tests"]]
            ok_ref = [reference(a) for a in args] == expected
            neg_differs = any(negative(a) != e for a, e in zip(args, expected, strict=True))
            near_ok = near is None or (
                bool(hid["near_miss_tests"])
                and all(near(args[i]) != expected[i] for i in hid["near_miss_tests"])
            )
            cache[key] = (ok_ref, neg_differs, near_ok)
        ok_ref, neg_differs, near_ok = cache[key]
        counted["near_miss"] += near_stages is not None
        if not ok_ref:
            errors.append(f"{identifier}: Python rendering of the reference fails a hidden test")
        if not neg_differs:
            errors.append(f"{identifier}: negative control passes every hidden test")
        if not near_ok:
            errors.append(f"{identifier}: near-miss not rejected by its distinguishing tests")
    return _result(errors, **counted)


def check_python_parse(files: Mapping[str, bytes]) -> Check:
    """Every Python reference, negative control and near-miss parses (ast)."""
    data = load_edition(files, "full2000")
    errors, parsed = [], 0
    for pub, ref in zip(data["public"], data["references"], strict=False):
        if pub["language"] != "python":
            continue
        for name in ("reference_solution", "negative_control", "near_miss"):
            if ref[name] is None:
                continue
            try:
                ast.parse(ref[name])
                parsed += 1
            except SyntaxError as exc:
                errors.append(f"{pub['id']} {name}: {exc}")
            if not ref[name].startswith((pub["imports"] or "") + pub["prefix"]):
                errors.append(f"{pub['id']} {name}: does not start with imports + prefix")
    return _result(errors, parsed=parsed)


def check_uniqueness_and_web(files: Mapping[str, bytes]) -> Check:
    """Fingerprints unique per language (programs), spec keys unique (web); web rows complete."""
    from smolscript_builder.audit import uniqueness_audit

    data = load_edition(files, "full2000")
    errors = [
        f"{group}: duplicates {info['duplicates'][:3]}"
        for group, info in uniqueness_audit(data["public"]).items()
        if info["duplicates"]
    ]
    for pub, ref, hid in zip(data["public"], data["references"], data["hidden"], strict=False):
        if pub["modality"] == "browser":
            if not hid["tests"] or not ref["reference_solution"] or not ref["negative_control"]:
                errors.append(f"{pub['id']}: browser task lacks tests or sources")
        if pub["reference_solution"] is not None:
            errors.append(f"{pub['id']}: public reference_solution is not null")
    return _result(errors)


def check_probe_coverage(files: Mapping[str, bytes]) -> Check:
    """Every HTML/CSS task's probes check the whole task (`web.coverage`): each observed
    selector's count pinned and every match probed, every HTML element's visibility checked,
    test widths at each breakpoint and 1 px below it."""
    from smolscript_builder.web.coverage import coverage_errors

    data = load_edition(files, "full2000")
    errors = [error for pub, hid in zip(data["public"], data["hidden"], strict=True)
              if pub["modality"] == "browser" for error in coverage_errors(pub, hid)]
    return _result(errors)


def check_mutant_catch(files: Mapping[str, bytes]) -> Check:
    """Every non-equivalent pipeline mutant of every program task of full2000 fails a hidden
    test (`mutant_catch`); the detail is the default edition's per-language table."""
    from smolscript_builder.mutant_catch import catch_table

    cache: dict = {}
    full = load_edition(files, "full2000")
    table = catch_table(full["public"], full["hidden"], cache)
    default = load_edition(files, "default")
    detail = catch_table(default["public"], default["hidden"], cache)
    errors = [f"{s['id']}: {s['mutant']} passes every hidden test (witness {s['witness']!r})"
              for s in table["survivors"]]
    return _result(errors, full2000=table["all"], default={
        "languages": detail["languages"], "families": detail["families"], "all": detail["all"]})


def check_parquet(files: Mapping[str, bytes]) -> Check:
    """Each edition's Parquet decodes (json.loads on string columns) to its JSONL rows."""
    errors = []
    for edition in EDITIONS:
        prefix = EDITION_DIRS[edition]
        rows = read_parquet_rows(files[prefix + "smolscript.parquet"])
        if rows != load_edition(files, edition)["public"]:
            errors.append(f"{edition}: Parquet rows differ from JSONL rows")
    return _result(errors)


def check_checksums(files: Mapping[str, bytes]) -> Check:
    """checksums.json matches every file present (and lists no missing file)."""
    if "checksums.json" not in files:
        return _result(["checksums.json missing"])
    listed = json.loads(files["checksums.json"])
    actual = checksums(files)
    errors = [
        f"{p}: checksum mismatch or missing"
        for p in sorted(set(listed) | set(actual))
        if listed.get(p) != actual.get(p)
    ]
    return _result(errors, files=len(listed))


def check_frozen_archives(files: Mapping[str, bytes]) -> Check:
    """Each frozen archive holds exactly the files its own checksums.json pins, unchanged."""
    errors = []
    for edition, prefix in FROZEN_ARCHIVES.items():
        if prefix + "checksums.json" not in files:
            errors.append(f"{edition}: {prefix}checksums.json missing")
            continue
        listed = json.loads(files[prefix + "checksums.json"])
        actual = {path[len(prefix):]: hashlib.sha256(data).hexdigest()
                  for path, data in files.items()
                  if path.startswith(prefix) and path != prefix + "checksums.json"}
        errors += [f"{edition}: {p} differs from its pinned checksum"
                   for p in sorted(set(listed) | set(actual)) if listed.get(p) != actual.get(p)]
    return _result(errors, archives=sorted(FROZEN_ARCHIVES))


def static_checks(
    files: Mapping[str, bytes], include_web: bool, with_checksums: bool = True
) -> dict[str, Check]:
    """Run every static check; keys are check names."""
    results = {
        "composition": check_composition(files, include_web),
        "ids_and_editions": check_ids_and_editions(files),
        "selection_manifest": check_manifest(files, include_web),
        "program_tasks": check_program_tasks(files),
        "python_parse": check_python_parse(files),
        "uniqueness_and_web": check_uniqueness_and_web(files),
        "probe_coverage": check_probe_coverage(files),
        "mutant_catch": check_mutant_catch(files),
        "parquet": check_parquet(files),
    }
    if with_checksums:  # files on disk (the build's own map has no frozen archive)
        results["checksums"] = check_checksums(files)
        results["frozen_archives"] = check_frozen_archives(files)
    return results


def validation_report(
    files: Mapping[str, bytes], include_web: bool, execution: Mapping[str, Any] | None = None
) -> dict[str, Any]:
    """The report written at build time: static results; execution stays unverified."""
    static = static_checks(files, include_web, with_checksums=False)
    return {
        "static": {
            "status": "passed" if all(c["passed"] for c in static.values()) else "failed",
            "checks": static,
        },
        "execution": dict(execution)
        if execution
        else {
            "status": "unverified",
            "detail": "no reference or negative control has been executed in the scoring "
            "sandbox for this build; run scripts/validate_smolscript.py without "
            "--static-only once the service is available",
            "references_executed": 0,
            "negative_controls_executed": 0,
        },
    }
