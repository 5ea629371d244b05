"""Precompiled headers of the scoring service (`smolscript_sandbox/prebuilt.py`): which files use
one (golden cases), and, against the real service and its real sandbox, that a job cannot
change them for a later job."""

from __future__ import annotations

import hashlib
import json
from pathlib import Path

import pytest
from smolscript.languages import render_job_files
from smolscript_sandbox.client import SandboxClient
from smolscript_sandbox.prebuilt import Built, Preamble, PrebuiltSet, leading_block
from smolscript_sandbox.runtimes import CPP_PREAMBLES
from smolscript_sandbox.testing import TEST_URL, ensure_service

HARNESS_BLOCK = (
    "// The harness's main is the entry point: a main written in the candidate's code is "
    "renamed\n// (and never called), so that it cannot clash with or replace the harness's.\n"
    "#define main smol_candidate_main\n"
    "#include <algorithm>\n#include <cstdlib>\n#include <string>\n#include <vector>\n"
)
CODE = "int solve(int n) {\n    return n * 2;\n}\n"
TASK = CPP_PREAMBLES[0]

BLOCKS = [
    # (file text, the block it opens with, why)
    (HARNESS_BLOCK + CODE, TASK, "what smolscript's C++ harness renders"),
    ("#include <vector>\nint x;\n", Preamble((), ("vector",)), "no define"),
    ("\n// c\n#include <vector>\n\n#include <string>\nint x;\n",
     Preamble((), ("vector", "string")), "blank and comment lines between"),
    ("#include <vector>\n#define A B\n#include <string>\n", Preamble((), ("vector",)),
     "a define after an include ends the block"),
    ("int x;\n#include <vector>\n", None, "code first"),
    ("#define main smol_candidate_main\nint x;\n", None, "no include"),
    ("// comment \\\n#include <vector>\n", None, "a continued comment swallows the include"),
    ("// what??/\n#include <vector>\n", None, "a trigraph line continuation"),
    ("#include <vector>\r\n", None, "a carriage return"),
    ('#include "vector"\n', None, "a quoted include"),
    ("#if 1\n#include <vector>\n#endif\n", None, "a conditional"),
    ("#define A(x) x\n#include <vector>\n", None, "a function-like macro"),
    ("#include <vector> // why\nint x;\n", None, "a comment after the include"),
    ("#include <vector>\nint f() { return 1 ? 2 : 3; }\n", Preamble((), ("vector",)),
     "what follows the block may hold anything"),
]


@pytest.mark.unit
@pytest.mark.parametrize(("text", "block", "why"), BLOCKS, ids=[b[2] for b in BLOCKS])
def test_leading_block(text, block, why):
    assert leading_block(text) == block, why


@pytest.mark.unit
def test_only_a_file_opening_with_the_exact_block_gets_the_header(tmp_path):
    built = PrebuiltSet(root=tmp_path)
    built.built[("cpp", TASK)] = Built("cpp", TASK, tmp_path / "cpp-x", "")
    assert built.compile_args("cpp", HARNESS_BLOCK + CODE) == ("-I", "/prebuilt/cpp-x")
    assert built.binds() == {str(tmp_path): "/prebuilt"}
    for text, why in [
        (HARNESS_BLOCK.replace("#include <vector>\n", "") + CODE, "a header fewer: it would "
         "see <vector> without including it"),
        (HARNESS_BLOCK + "#include <map>\n" + CODE, "a header more"),
        (HARNESS_BLOCK.replace("<string>\n#include <vector>", "<vector>\n#include <string>")
         + CODE, "another order"),
        (HARNESS_BLOCK.replace("smol_candidate_main", "other") + CODE, "another define"),
    ]:
        assert built.compile_args("cpp", text) == (), why
    assert built.compile_args("c", HARNESS_BLOCK + CODE) == (), "another runtime"


def sha256(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


# A job that runs code as its slot's uid and tries every way at the precompiled headers: the
# sandbox path (absent from test runs), the host folder /health names (outside the sandbox),
# and, should either be reachable, writing, replacing and removing the header.
POISON = r'''
import os, sys
folder = sys.stdin.readline().strip()
for root in ("/prebuilt", folder):
    if not os.path.exists(root):
        print("absent", root)
        continue
    for name in os.listdir(root):
        for entry in os.listdir(os.path.join(root, name)):
            path = os.path.join(root, name, entry)
            for attempt in ("write", "replace", "remove"):
                try:
                    if attempt == "write":
                        open(path, "wb").write(b"poison")
                    elif attempt == "replace":
                        open("/tmp/p", "wb").write(b"poison")
                        os.replace("/tmp/p", path)
                    else:
                        os.remove(path)
                    print("CHANGED", attempt, path)
                except OSError as exc:
                    print("refused", attempt, path, type(exc).__name__)
'''


@pytest.mark.integration
async def test_a_job_cannot_poison_a_later_jobs_precompiled_header():
    health = ensure_service()
    prebuilt = health["prebuilt"]
    assert prebuilt["headers"], prebuilt["errors"]
    header = prebuilt["headers"][0]
    folder = Path(prebuilt["folder"])
    gch = next(folder.glob("cpp-*/algorithm.gch"))
    assert sha256(gch) == header["sha256"]
    assert gch.stat().st_uid == 0 and (gch.stat().st_mode & 0o222) == 0
    signature = {"params": [{"name": "n", "type": "int"}], "returns": "int"}
    source = "#include <algorithm>\n#include <cstdlib>\n#include <string>\n#include <vector>\n"
    async with SandboxClient(TEST_URL) as client:
        attack = await client.run_program("python", {"main.py": POISON}, [f"{folder}\n"])
        assert attack.status == "ok", attack
        out = attack.tests[0].stdout
        assert "CHANGED" not in out, out
        assert "absent /prebuilt" in out, "a test run never sees the precompiled headers"
        # The compile sandbox is the only one with /prebuilt, read-only; only the compiler runs
        # there. A C++ job opening with the precompiled block still compiles and answers right.
        files = render_job_files("cpp", source + CODE, signature)
        assert leading_block(files["main.cpp"]) == TASK
        reply = await client.run_program("cpp", files, ["N\n21\n"])
        assert reply.status == "ok" and reply.compile.status == "ok", reply
        assert "smolscript-result-begin N\n42\nsmolscript-result-end N" in reply.tests[0].stdout
    assert sha256(gch) == header["sha256"]
    assert json.dumps(ensure_service()["prebuilt"]) == json.dumps(prebuilt)
