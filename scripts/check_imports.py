"""Check the workspace's import boundaries from the code itself (static: nothing is imported).

Usage: uv run python scripts/check_imports.py [--root DIR]

Reads every module of every workspace package with `ast` (imports inside functions count too:
a lazy import is still a dependency) and prints the package graph, then one line per rule:
  1. no environment imports another environment;
  2. the scoring service (smolscript_sandbox) imports no smolscript module (runtime or builder);
  3. the smolscript runtime imports nothing of its builder;
  4. the shared core (smol_envs_core) imports no environment, service or builder;
  5. the core's parts keep to their jobs: `adapters`, `server` and `report` import none of each
     other (nor `evalrun` or `cli`, which compose them), and the core's top modules other than
     `cli` import none of its subpackages;
  6. there are no import cycles, between modules or between packages.
Exit status 0 when every rule holds, 1 otherwise (the offending imports are listed).
"""

from __future__ import annotations

import argparse
import ast
import sys
from collections.abc import Iterable
from dataclasses import dataclass, field
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
# Import name -> folder holding it, relative to the repository root.
PACKAGES = {
    "smol_envs_core": "packages/smol_envs_core/smol_envs_core",
    "pico_dsl_v1": "environments/pico_dsl_v1/pico_dsl_v1",
    "smolscript": "environments/smolscript/smolscript",
    "smoltalkbench": "environments/smoltalkbench/smoltalkbench",
    "smol_slm_eval": "environments/smol_slm_eval/smol_slm_eval",
    "smolscript_builder": "builders/smolscript/smolscript_builder",
    "smolscript_sandbox": "services/smolscript_sandbox/smolscript_sandbox",
}
ENVIRONMENTS = ("pico_dsl_v1", "smolscript", "smoltalkbench", "smol_slm_eval")
SERVICE = "smolscript_sandbox"
CORE = "smol_envs_core"
# The core's subpackages, each one job (packages/smol_envs_core/README.md); `evalrun` and the top
# module `cli` compose the others, so only they may import across.
CORE_PARTS = ("adapters", "server", "report", "evalrun")
CORE_COMPOSERS = ("evalrun", "cli")


@dataclass
class Graph:
    """Modules of the workspace packages and the imports between them."""

    modules: dict[str, Path] = field(default_factory=dict)
    edges: dict[str, set[str]] = field(default_factory=dict)
    where: dict[tuple[str, str], int] = field(default_factory=dict)  # (src, dst) -> line

    def package_edges(self) -> dict[str, set[str]]:
        out: dict[str, set[str]] = {}
        for src, dsts in self.edges.items():
            for dst in dsts:
                a, b = top(src), top(dst)
                if a != b:
                    out.setdefault(a, set()).add(b)
        return out


def top(module: str) -> str:
    return module.split(".", 1)[0]


def module_name(package: str, folder: Path, path: Path) -> str:
    parts = [package, *path.relative_to(folder).with_suffix("").parts]
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


def _resolve(graph: Graph, name: str) -> str | None:
    """The workspace module `name` refers to (its longest known prefix), or None."""
    parts = name.split(".")
    while parts:
        candidate = ".".join(parts)
        if candidate in graph.modules:
            return candidate
        parts.pop()
    return None


def _imported(module: str, is_package: bool, tree: ast.AST) -> Iterable[tuple[str, int]]:
    """(imported name, line) for every import statement of a module, lazy ones included."""
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            for alias in node.names:
                yield alias.name, node.lineno
        elif isinstance(node, ast.ImportFrom):
            if node.level:
                base = module.split(".")
                base = base if is_package else base[:-1]
                base = base[: len(base) - (node.level - 1)]
                prefix = ".".join(base + ([node.module] if node.module else []))
            else:
                prefix = node.module or ""
            for alias in node.names:  # `from pkg import sub` may name a submodule
                yield f"{prefix}.{alias.name}", node.lineno


def build_graph(root: Path, packages: dict[str, str] = PACKAGES) -> Graph:
    """Parse every module under the packages' folders into an import graph."""
    graph = Graph()
    sources: dict[str, tuple[Path, bool]] = {}
    for package, rel in packages.items():
        folder = root / rel
        for path in sorted(folder.rglob("*.py")):
            name = module_name(package, folder, path)
            graph.modules[name] = path
            sources[name] = (path, path.name == "__init__.py")
    for name, (path, is_package) in sources.items():
        tree = ast.parse(path.read_text(encoding="utf-8"), filename=str(path))
        targets = graph.edges.setdefault(name, set())
        for imported, line in _imported(name, is_package, tree):
            target = _resolve(graph, imported)
            if target is not None and target != name:
                targets.add(target)
                graph.where.setdefault((name, target), line)
    return graph


def cycles(edges: dict[str, set[str]]) -> list[list[str]]:
    """Strongly connected components with more than one node (Tarjan, iterative)."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    found: list[list[str]] = []
    counter = 0
    nodes = set(edges) | {d for ds in edges.values() for d in ds}
    for start in sorted(nodes):
        if start in index:
            continue
        work = [(start, iter(sorted(edges.get(start, ()))))]
        index[start] = low[start] = counter
        counter += 1
        stack.append(start)
        on_stack.add(start)
        while work:
            node, children = work[-1]
            advanced = False
            for child in children:
                if child not in index:
                    index[child] = low[child] = counter
                    counter += 1
                    stack.append(child)
                    on_stack.add(child)
                    work.append((child, iter(sorted(edges.get(child, ())))))
                    advanced = True
                    break
                if child in on_stack:
                    low[node] = min(low[node], index[child])
            if advanced:
                continue
            work.pop()
            if work:
                low[work[-1][0]] = min(low[work[-1][0]], low[node])
            if low[node] == index[node]:
                component = []
                while True:
                    member = stack.pop()
                    on_stack.discard(member)
                    component.append(member)
                    if member == node:
                        break
                if len(component) > 1:
                    found.append(sorted(component))
    return sorted(found)


def _crossing(graph: Graph, sources: Iterable[str], forbidden: Iterable[str]) -> list[str]:
    """`src -> dst (file:line)` for every import from a package in `sources` into `forbidden`."""
    sources, forbidden = set(sources), set(forbidden)
    out = []
    for src, dsts in sorted(graph.edges.items()):
        for dst in sorted(dsts):
            if top(src) in sources and top(dst) in forbidden and top(dst) != top(src):
                path = graph.modules[src]
                out.append(f"{src} -> {dst} ({path.name}:{graph.where[(src, dst)]})")
    return out


def core_part(module: str) -> str | None:
    """The core part holding `module` (a subpackage, or the top module's own name), or None."""
    parts = module.split(".")
    if parts[0] != CORE or len(parts) == 1:
        return None
    return parts[1]


def _core_crossings(graph: Graph) -> list[str]:
    """`src -> dst (file:line)` for every import from one part of the core into another that
    only a composer (`evalrun`, `cli`) may make: into a subpackage, from any other part."""
    out = []
    for src, dsts in sorted(graph.edges.items()):
        a = core_part(src)
        if a is None or a in CORE_COMPOSERS:
            continue
        for dst in sorted(dsts):
            b = core_part(dst)
            if b is not None and b != a and b in CORE_PARTS + CORE_COMPOSERS:
                out.append(f"{src} -> {dst} ({graph.modules[src].name}:{graph.where[(src, dst)]})")
    return out


def check(graph: Graph) -> list[tuple[str, list[str]]]:
    """Each rule with the imports that break it (an empty list: it holds)."""
    rules = []
    env_violations = []
    for env in ENVIRONMENTS:
        env_violations += _crossing(graph, [env], [e for e in ENVIRONMENTS if e != env])
    rules.append((f"no environment imports another ({', '.join(ENVIRONMENTS)})", env_violations))
    rules.append((f"the scoring service ({SERVICE}) imports no smolscript module",
                  _crossing(graph, [SERVICE], ["smolscript", "smolscript_builder"])))
    rules.append(("the smolscript runtime imports nothing of its builder",
                  _crossing(graph, ["smolscript"], ["smolscript_builder"])))
    rules.append((f"the shared core ({CORE}) imports no environment, service or builder",
                  _crossing(graph, [CORE], [p for p in PACKAGES if p != CORE])))
    rules.append((f"the core's {', '.join(CORE_PARTS[:3])} import none of each other; only "
                  f"{' and '.join(CORE_COMPOSERS)} compose them", _core_crossings(graph)))
    module_cycles = cycles(graph.edges)
    package_cycles = cycles(graph.package_edges())
    n_edges = sum(len(d) for d in graph.edges.values())
    rules.append((f"no import cycles ({len(graph.modules)} modules, {n_edges} imports, "
                  f"{len(PACKAGES)} packages)",
                  [" <-> ".join(c) for c in module_cycles + package_cycles]))
    return rules


def main(argv: list[str] | None = None) -> int:
    """Print the package graph and the rules; return 0 when every rule holds."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0],
                                     formatter_class=argparse.ArgumentDefaultsHelpFormatter)
    parser.add_argument("--root", type=Path, default=ROOT, help="repository root")
    args = parser.parse_args(argv)
    graph = build_graph(args.root)
    print("package imports (from the code, lazy imports included):")
    counts = {p: sum(1 for m in graph.modules if top(m) == p) for p in PACKAGES}
    package_edges = graph.package_edges()
    for package in PACKAGES:
        deps = sorted(package_edges.get(package, ()))
        print(f"  {package} ({counts[package]} modules) -> {', '.join(deps) or '(nothing)'}")
    failed = False
    for rule, violations in check(graph):
        print(f"{'ok  ' if not violations else 'FAIL'} {rule}")
        for violation in violations:
            print(f"       {violation}")
        failed = failed or bool(violations)
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
