"""Serialization of dataset records: JSONL (native JSON) and Parquet (one schema, JSON strings).

Both writers are byte-deterministic for the same records and library versions: keys are
sorted, separators fixed, and gzip members carry no timestamp.
"""

from __future__ import annotations

import gzip
import io
import json
from collections.abc import Iterable, Mapping, Sequence
from typing import Any

# Public columns in order; JSON_COLUMNS hold nested values and become JSON strings in Parquet.
PUBLIC_COLUMNS: tuple[str, ...] = (
    "id",
    "language",
    "difficulty",
    "family",
    "category",
    "modality",
    "instruction",
    "input_domain",
    "entry_point",
    "signature",
    "prefix",
    "imports",
    "fixture",
    "base_styles",
    "tests",
    "reference_solution",
    "metadata",
)
JSON_COLUMNS: frozenset[str] = frozenset({"signature", "tests", "metadata"})


def dumps(value: Any) -> str:
    """Canonical compact JSON (sorted keys, ASCII-safe)."""
    return json.dumps(value, sort_keys=True, separators=(",", ":"), ensure_ascii=True)


def jsonl_bytes(rows: Iterable[Mapping[str, Any]]) -> bytes:
    """One canonical JSON object per line."""
    return "".join(dumps(dict(row)) + "\n" for row in rows).encode()


def gzip_bytes(data: bytes) -> bytes:
    """Deterministic gzip (mtime 0)."""
    return gzip.compress(data, compresslevel=9, mtime=0)


def public_row(row: Mapping[str, Any]) -> dict[str, Any]:
    """Restrict a record to the public columns, with reference_solution null."""
    missing = [column for column in PUBLIC_COLUMNS if column not in row]
    if missing:
        raise ValueError(f"record {row.get('id')!r} lacks public columns {missing}")
    out = {column: row[column] for column in PUBLIC_COLUMNS}
    out["reference_solution"] = None
    return out


def parquet_bytes(rows: Sequence[Mapping[str, Any]]) -> bytes:
    """Parquet of public rows: every column a string (JSON text for nested columns)."""
    import pyarrow as pa
    import pyarrow.parquet as pq

    columns: dict[str, list[str | None]] = {name: [] for name in PUBLIC_COLUMNS}
    for row in rows:
        for name in PUBLIC_COLUMNS:
            value = row[name]
            columns[name].append(dumps(value) if name in JSON_COLUMNS else value)
    schema = pa.schema([pa.field(name, pa.string()) for name in PUBLIC_COLUMNS])
    table = pa.table(columns, schema=schema)
    buffer = io.BytesIO()
    pq.write_table(table, buffer, compression="zstd", use_dictionary=False, write_statistics=False)
    return buffer.getvalue()


def read_parquet_rows(data: bytes) -> list[dict[str, Any]]:
    """Read Parquet bytes back into public rows with nested columns decoded."""
    import pyarrow.parquet as pq

    table = pq.read_table(io.BytesIO(data))
    rows = table.to_pylist()
    for row in rows:
        for name in JSON_COLUMNS:
            row[name] = json.loads(row[name])
    return rows
