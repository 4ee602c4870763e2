"""Candidate score names are declared once (matchers/score_names.py): the code writes and reads
no other, and every declared one is used."""

from __future__ import annotations

import ast
from pathlib import Path

from matchers.score_names import CANDIDATE_COLUMNS, SCORES, declared

ROOT = Path(__file__).resolve().parents[1]


def _score_names_in_code() -> dict[str, set[str]]:
    """Names passed to ``add_scores(name=...)``, and the constant keys of ``scores[...]`` and
    ``scores.get(...)``, across the package code; f-string families as their constant head."""
    found: dict[str, set[str]] = {}
    for folder in ("bitext_spider", "pipelines", "matchers"):
        for path in (ROOT / folder).rglob("*.py"):
            where = str(path.relative_to(ROOT))
            for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
                names: list[str] = []
                if isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute):
                    if node.func.attr == "add_scores":
                        names += [k.arg for k in node.keywords if k.arg]
                        for k in node.keywords:  # add_scores(**{f"dictionary_{lang}": ...})
                            if k.arg is None and isinstance(k.value, ast.Dict):
                                for key in k.value.keys:
                                    if isinstance(key, ast.JoinedStr) and isinstance(key.values[0], ast.Constant):
                                        names.append(str(key.values[0].value) + "<x>")
                    target = node.func.value
                    if (node.func.attr == "get" and isinstance(target, ast.Name) and target.id == "scores"
                            and node.args and isinstance(node.args[0], ast.Constant)):
                        names.append(node.args[0].value)
                if isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and node.func.id == "dictionary_score":
                    names.append("dictionary_<x>")  # the family's name, made by score_names
                if (isinstance(node, ast.Subscript) and isinstance(node.value, ast.Name) and node.value.id == "scores"
                        and isinstance(node.slice, ast.Constant) and isinstance(node.slice.value, str)):
                    names.append(node.slice.value)
                for name in names:
                    found.setdefault(name.replace("<x>", "xx"), set()).add(where)
    return found


def test_every_score_the_code_writes_or_reads_is_declared():
    found = _score_names_in_code()
    assert len(found) > 15  # the scan finds them
    assert {name: sorted(w) for name, w in found.items() if declared(name) is None} == {}


def test_every_declared_score_is_written_somewhere():
    found = _score_names_in_code()
    sources = "".join(p.read_text(encoding="utf-8") for f in ("bitext_spider", "pipelines", "matchers")
                      for p in (ROOT / f).rglob("*.py") if p.name != "score_names.py")
    for score in SCORES:
        head = score.name.split("<")[0]
        assert any(n.startswith(head) for n in found) or f'"{head}' in sources or f"{head}=" in sources, score.name


def test_families_and_columns():
    assert declared("dictionary_fr").name == "dictionary_<lang>" and declared("x_topic").name == "x_<name>"
    assert declared("dictionary_") is None and declared("unknown") is None
    assert all(declared(c) is not None for c in CANDIDATE_COLUMNS)
