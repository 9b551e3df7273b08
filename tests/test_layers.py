"""The package's layers import only downward, and no module imports itself in a circle.

Every import is read from the source (those inside functions too: a lazy
import is still a dependency), so a cycle cannot hide behind one.
"""

from __future__ import annotations

import ast
import pathlib

import pytest

PACKAGE = pathlib.Path(__file__).parents[1] / "warpsim"

# Bottom to top. A unit (a subpackage, or a top-level module) may import units
# of lower rows only, plus itself; units in one row are independent peers.
LAYERS = [
    ("errors",),
    ("settings", "sessions", "cache"),
    ("toolchains",),        # which CUDA release compiles (NVRTC, ptxas, nvcc): the tool cache, the installer
    ("ptx", "semantics"),   # semantics/: what instructions compute, on raw bits, for both executors
    ("machine",),
    ("sass", "frontends"),
    ("metrics", "sanitizer", "timing"),
    ("runtime",),           # the CUDA runtime for whole programs (runs kernels, reads timing)
    ("report",),
    ("api", "profiler"),
    ("cuda",),
    ("distributed",),
    ("__init__",),          # the package namespace: `import warpsim as cp`
    ("demo",),
    ("cli",),
    ("__main__",),
]
ROW = {unit: row for row, units in enumerate(LAYERS) for unit in units}


def module_name(path: pathlib.Path) -> str:
    parts = ("warpsim",) + path.relative_to(PACKAGE).with_suffix("").parts
    return ".".join(parts[:-1]) if parts[-1] == "__init__" else ".".join(parts)


MODULES = {module_name(p): p for p in sorted(PACKAGE.rglob("*.py"))}


def unit_of(module: str) -> str:
    """The layer unit of a module: its subpackage, or the top-level module's own name."""
    parts = module.split(".")
    if len(parts) == 1:
        return "__init__"
    return parts[1]


def imports_of(module: str) -> set:
    """The warpsim modules `module` imports anywhere in its source."""
    path = MODULES[module]
    package = module if path.name == "__init__.py" else module.rpartition(".")[0]
    found = set()
    for node in ast.walk(ast.parse(path.read_text(), str(path))):
        if isinstance(node, ast.Import):
            found.update(alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom):
            if node.level:
                base = package.split(".")
                base = base[:len(base) - (node.level - 1)]
                target = ".".join(base + ([node.module] if node.module else []))
            else:
                target = node.module or ""
            for alias in node.names:
                sub = f"{target}.{alias.name}"
                found.add(sub if sub in MODULES else target)
    return {m for m in found if m in MODULES and m != module}


GRAPH = {module: imports_of(module) for module in MODULES}


def test_every_unit_has_a_layer():
    missing = sorted({unit_of(m) for m in MODULES} - set(ROW))
    assert not missing, f"add these to LAYERS in tests/test_layers.py: {missing}"


def test_imports_go_downward():
    wrong = []
    for module, targets in GRAPH.items():
        unit = unit_of(module)
        for target in sorted(targets):
            other = unit_of(target)
            if other != unit and ROW[other] >= ROW[unit]:
                kind = "a peer" if ROW[other] == ROW[unit] else "a higher layer"
                wrong.append(f"{module} imports {target} ({kind}: {other})")
    assert not wrong, "imports against the layer order:\n  " + "\n  ".join(wrong)


def strongly_connected(graph: dict) -> list:
    """Tarjan's algorithm, iteratively: the components of more than one module."""
    index, low, on_stack, stack, components = {}, {}, set(), [], []
    counter = 0
    for root in graph:
        if root in index:
            continue
        work = [(root, iter(sorted(graph[root])))]
        index[root] = low[root] = counter
        counter += 1
        stack.append(root)
        on_stack.add(root)
        while work:
            node, children = work[-1]
            child = next(children, None)
            if child is not None:
                if child not in index:
                    index[child] = low[child] = counter
                    counter += 1
                    stack.append(child)
                    on_stack.add(child)
                    work.append((child, iter(sorted(graph[child]))))
                elif child in on_stack:
                    low[node] = min(low[node], index[child])
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
                    components.append(sorted(component))
    return components


def test_no_import_cycles():
    cycles = strongly_connected(GRAPH)
    assert not cycles, "modules that import each other in a circle:\n  " + "\n  ".join(
        " <-> ".join(c) for c in cycles)


@pytest.mark.parametrize("graph, cyclic", [
    ({"a": {"b"}, "b": {"c"}, "c": {"a"}}, True),
    ({"a": {"b"}, "b": {"c"}, "c": set()}, False),
])
def test_cycle_finder(graph, cyclic):
    assert bool(strongly_connected(graph)) is cyclic


def test_semantics_imports_only_numpy_and_the_standard_library():
    """semantics/ sits under both executors: raw bits in, raw bits out, no other dependency."""
    import sys
    wrong = []
    for module, path in MODULES.items():
        if unit_of(module) != "semantics":
            continue
        for node in ast.walk(ast.parse(path.read_text(), str(path))):
            names = ([alias.name for alias in node.names] if isinstance(node, ast.Import)
                     else [node.module or ""] if isinstance(node, ast.ImportFrom) and not node.level else [])
            for name in names:
                top = name.split(".")[0]
                if top not in ("numpy", "__future__") and top not in sys.stdlib_module_names:
                    wrong.append(f"{module} imports {name}")
    assert not wrong, "semantics/ may import only NumPy and the standard library:\n  " + "\n  ".join(wrong)
