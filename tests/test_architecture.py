"""The house rules: no import circle between the project's modules (lazy imports count), no source
file over 600 lines, a small top level in bitext_spider/, and matchers/ free of Scrapy."""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
PACKAGES = ("bitext_spider", "pipelines", "matchers")
MAX_LINES = 600


def _modules() -> dict[str, Path]:
    found: dict[str, Path] = {}
    for package in PACKAGES:
        for path in sorted((ROOT / package).rglob("*.py")):
            parts = list(path.relative_to(ROOT).with_suffix("").parts)
            if parts[-1] == "__init__":
                parts.pop()
            found[".".join(parts)] = path
    return found


def _imports(name: str, path: Path, modules: dict[str, Path]) -> set[str]:
    """Project modules that ``name`` imports anywhere in its body (functions included)."""
    tree = ast.parse(path.read_text(encoding="utf-8"))
    package = name if path.name == "__init__.py" else name.rpartition(".")[0]
    targets: set[str] = set()
    for node in _runtime_nodes(tree):
        if isinstance(node, ast.Import):
            candidates = [alias.name for alias in node.names]
        elif isinstance(node, ast.ImportFrom):
            base = node.module or ""
            if node.level:
                anchor = package.split(".")
                anchor = anchor[: len(anchor) - (node.level - 1)]
                base = ".".join([*anchor, base] if base else anchor)
            candidates = [f"{base}.{alias.name}" for alias in node.names] + [base]
        else:
            continue
        for candidate in candidates:
            # The longest project module the dotted name starts with.
            parts = candidate.split(".")
            while parts and ".".join(parts) not in modules:
                parts.pop()
            if parts and ".".join(parts) != name:
                targets.add(".".join(parts))
    return targets


def _runtime_nodes(tree: ast.AST) -> list[ast.AST]:
    """Every node but those under ``if TYPE_CHECKING:`` (imports for type hints never run)."""
    out: list[ast.AST] = []
    stack = [tree]
    while stack:
        node = stack.pop()
        out.append(node)
        for child in ast.iter_child_nodes(node):
            if isinstance(child, ast.If) and "TYPE_CHECKING" in ast.unparse(child.test):
                stack.extend(child.orelse)
                continue
            stack.append(child)
    return out


def _graph() -> dict[str, set[str]]:
    modules = _modules()
    return {name: _imports(name, path, modules) for name, path in modules.items()}


def _cycles(graph: dict[str, set[str]]) -> list[list[str]]:
    """Strongly connected components with more than one module (Tarjan)."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    found: list[list[str]] = []
    counter = 0

    def visit(v: str) -> None:
        nonlocal counter
        index[v] = low[v] = counter
        counter += 1
        stack.append(v)
        on_stack.add(v)
        for w in graph.get(v, ()):
            if w not in index:
                visit(w)
                low[v] = min(low[v], low[w])
            elif w in on_stack:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            component = []
            while True:
                w = stack.pop()
                on_stack.discard(w)
                component.append(w)
                if w == v:
                    break
            if len(component) > 1:
                found.append(sorted(component))

    for v in sorted(graph):
        if v not in index:
            visit(v)
    return found


def _package_parents(graph: dict[str, set[str]]) -> dict[str, set[str]]:
    """Drop the edge from a package's ``__init__`` to its own submodules' parents (a package
    importing its children is not a circle the reader has to untangle)."""
    return {
        name: {t for t in targets if not name.startswith(t + ".")}
        for name, targets in graph.items()
    }


def test_no_import_circle() -> None:
    assert _cycles(_package_parents(_graph())) == []


def test_the_circle_finder_finds_a_circle() -> None:
    assert _cycles({"a": {"b"}, "b": {"c"}, "c": {"a"}, "d": {"a"}}) == [["a", "b", "c"]]


@pytest.mark.parametrize("folder", [*PACKAGES, "tests", "benchmarks"])
def test_no_source_file_over_600_lines(folder: str) -> None:
    long = {
        str(p.relative_to(ROOT)): n
        for p in sorted((ROOT / folder).rglob("*.py"))
        if (n := len(p.read_text(encoding="utf-8").splitlines())) > MAX_LINES
    }
    assert long == {}


def test_bitext_spider_top_level_is_small() -> None:
    top = [p.name for p in (ROOT / "bitext_spider").glob("*.py") if p.name != "__init__.py"]
    assert len(top) <= 12, sorted(top)


def test_matchers_do_not_import_scrapy_or_the_crawl_side() -> None:
    offenders = {}
    for path in sorted((ROOT / "matchers").rglob("*.py")):
        tree = ast.parse(path.read_text(encoding="utf-8"))
        names = {a.name.split(".")[0] for n in ast.walk(tree) if isinstance(n, ast.Import) for a in n.names}
        names |= {(n.module or "").split(".")[0] for n in ast.walk(tree) if isinstance(n, ast.ImportFrom) and not n.level}
        bad = names & {"scrapy", "twisted", "bitext_spider", "pipelines"}
        if bad:
            offenders[str(path.relative_to(ROOT))] = sorted(bad)
    assert offenders == {}


def test_test_modules_do_not_import_each_other() -> None:
    """Shared helpers live in tests/support.py and fixtures in tests/conftest.py."""
    offenders = {}
    for path in sorted((ROOT / "tests").glob("test_*.py")):
        tree = ast.parse(path.read_text(encoding="utf-8"))
        names = {a.name for n in ast.walk(tree) if isinstance(n, ast.Import) for a in n.names}
        names |= {n.module or "" for n in ast.walk(tree) if isinstance(n, ast.ImportFrom)}
        bad = sorted(n for n in names if n.split(".")[0].startswith("test_"))
        if bad:
            offenders[path.name] = bad
    assert offenders == {}


def test_nothing_imports_pipelines_commands_or_the_demo_from_below() -> None:
    """Pipelines are named by path (the add-on, the close-time sequence); the command line and the
    demo sit on top: only commands import them."""
    graph = _graph()
    offenders = sorted(
        (name, target)
        for name, targets in graph.items()
        for target in targets
        if (target.startswith("pipelines.") and not name.startswith("pipelines."))
        or (target.startswith(("bitext_spider.commands", "bitext_spider.demo"))
            and not name.startswith(("bitext_spider.commands", "bitext_spider.demo")))
    )
    assert offenders == []


def test_tests_that_need_servers_are_in_the_slow_tier() -> None:
    """A test that asks for a PostgreSQL server or the Scrapyd egg carries the ``slow`` marker
    (on itself or on its module), so the fast tier starts no server."""
    needs = {"pg_url", "pg_server", "egg"}
    unmarked = []
    for path in sorted((ROOT / "tests").glob("test_*.py")):
        source = path.read_text(encoding="utf-8")
        module_slow = "pytestmark = pytest.mark.slow" in source
        for node in ast.parse(source).body:
            if not isinstance(node, ast.FunctionDef) or not node.name.startswith("test_"):
                continue
            marked = any("mark.slow" in ast.unparse(d) for d in node.decorator_list)
            if needs & {a.arg for a in node.args.args} and not (marked or module_slow):
                unmarked.append(f"{path.name}::{node.name}")
    assert unmarked == []


def test_the_parse_worker_does_not_load_numba() -> None:
    # Each worker process pays for what it imports in memory for the whole crawl; numba and LLVM
    # are about 60 MB the page parse has no use for.
    import subprocess
    import sys

    code = "import sys, bitext_spider.workers.parse_worker; print('numba' in sys.modules)"
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True, cwd=ROOT)
    assert out.stdout.strip() == "False"
