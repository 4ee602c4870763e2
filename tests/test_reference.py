"""Settings and stats are declared once; docs/settings.md and docs/stats.md are generated from the
declarations, and the code and the docs may not drift from them."""

from __future__ import annotations

import ast
import re
from pathlib import Path

import pytest

from bitext_spider import reference, stat_keys
from bitext_spider.commands.cli import build_parser
from bitext_spider.config import PREFIX, BitextConfig, default
from bitext_spider.stat_keys import STATS, declared, key_pattern

ROOT = Path(__file__).resolve().parents[1]
PACKAGES = ("bitext_spider", "pipelines", "matchers")
REGISTRY = {"bitext_spider/stat_keys.py", "bitext_spider/reference.py"}
SETTING_NAME = re.compile(r"\bBITEXT_[A-Z0-9_]*[A-Z0-9]\b")


def package_sources() -> list[Path]:
    files = [p for pkg in PACKAGES for p in sorted((ROOT / pkg).rglob("*.py"))]
    assert len(files) > 50  # the scan sees the package, not an empty folder
    return files


def declared_names() -> set[str]:
    return {s.name for s in BitextConfig.settings()}


# -- generated reference pages ---------------------------------------------------------------------

def test_reference_pages_are_what_the_generator_writes_now():
    assert (ROOT / "docs" / "settings.md").read_text(encoding="utf-8") == reference.settings_markdown(), (
        "docs/settings.md is out of date: run python -m bitext_spider.reference")
    assert (ROOT / "docs" / "stats.md").read_text(encoding="utf-8") == reference.stats_markdown(), (
        "docs/stats.md is out of date: run python -m bitext_spider.reference")
    assert reference.main(["--check", "--docs", str(ROOT / "docs")]) == 0


def test_generator_writes_stale_pages_and_check_reports_them(tmp_path, capsys):
    (tmp_path / "settings.md").write_text("old\n", encoding="utf-8")
    assert reference.main(["--check", "--docs", str(tmp_path)]) == 1
    assert "settings.md" in capsys.readouterr().err
    assert (tmp_path / "settings.md").read_text(encoding="utf-8") == "old\n"  # --check writes nothing
    assert reference.main(["--docs", str(tmp_path)]) == 0
    assert (tmp_path / "settings.md").read_text(encoding="utf-8") == reference.settings_markdown()
    assert (tmp_path / "stats.md").read_text(encoding="utf-8") == reference.stats_markdown()
    assert reference.main(["--check", "--docs", str(tmp_path)]) == 0
    assert reference.main(["--docs", str(tmp_path / "missing")]) == 2


def test_settings_page_lists_every_setting_with_type_default_and_meaning():
    rows = {}
    for line in reference.settings_markdown().splitlines():
        m = re.match(r"\| `(BITEXT_\w+)` \| (.+?) \| `?(.*?)`? \| (.+) \|$", line)
        if m:
            rows[m.group(1)] = m.groups()[1:]
    assert set(rows) == declared_names()
    assert rows["BITEXT_DB_URL"][1] == "sqlite:///bitext.db"
    assert rows["BITEXT_SIZE_TAGS_TOLERANCE"][:2] == ("float, between 0 and 1", "0.2")
    assert rows["BITEXT_STRUCTURE_MAX_RATIO"][0] == "float, in (0, 1]"
    assert rows["BITEXT_LANG_MAX_CHARS"][1] == str(BitextConfig().lang_max_chars)
    assert rows["BITEXT_LANGS"][:2] == ("languages", "unset (every language)")
    assert all(meaning.strip() for _, _, meaning in rows.values())


def test_stats_page_lists_every_declared_stat_and_placeholder():
    text = reference.stats_markdown()
    keys = re.findall(r"^\| `(bitext/[^`]+)` \| .+ \|$", text, flags=re.M)
    assert keys == [s.key for g in stat_keys.GROUPS for s in STATS if s.group == g]
    assert sorted(keys) == sorted(s.key for s in STATS)
    assert "bitext/pairs/provisional" in keys
    for p in stat_keys.PLACEHOLDERS:
        assert f"- `<{p.name}>`: " in text


def test_readme_links_the_reference_pages_instead_of_copying_them():
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    assert "docs/settings.md" in readme and "docs/stats.md" in readme
    assert not re.search(r"^\| `BITEXT_", readme, flags=re.M)  # no settings table of its own
    assert "bitext/candidates/compared" not in readme  # no stats list of its own


# -- settings ----------------------------------------------------------------------------------------

def test_setting_names_follow_the_fields():
    settings = BitextConfig.settings()
    assert [s.field for s in settings] == list(BitextConfig.__dataclass_fields__)
    assert all(s.name == PREFIX + s.field.upper() for s in settings)
    assert BitextConfig.setting_names()["db_url"] == "BITEXT_DB_URL"
    assert all(s.group in reference.GROUPS for s in settings)


def test_every_setting_parses_from_its_string_form():
    samples = {"bool": ("false", False), "int": ("7", 7), "float": ("0.25", 0.25), "str": ("x.dic", "x.dic")}
    for s in BitextConfig.settings():
        if s.parse is not None:
            continue
        raw, expected = samples[s.type]
        assert getattr(BitextConfig.from_settings({s.name: raw}), s.field) == expected, s.name
    assert BitextConfig.from_settings({"BITEXT_LANGS": "de,EN"}).langs == {"de", "en"}
    assert BitextConfig.from_settings({"BITEXT_LANGS": None}).langs is None


def test_declared_ranges_are_enforced_with_the_setting_name():
    bounded = [s for s in BitextConfig.settings() if s.low is not None or s.high is not None]
    assert len(bounded) >= 10
    for s in bounded:
        if s.low is not None:
            bad = s.low if s.low_open else s.low - 1
            with pytest.raises(ValueError, match=s.name):
                BitextConfig.from_settings({s.name: str(bad)})
            assert BitextConfig.from_settings({s.name: str(s.low + (0.5 if s.low_open else 0))})
        if s.high is not None:
            with pytest.raises(ValueError, match=s.name):
                BitextConfig.from_settings({s.name: str(s.high + 1)})
            assert getattr(BitextConfig.from_settings({s.name: str(s.high)}), s.field) == s.high


def test_defaults_elsewhere_come_from_the_declarations():
    assert default("BITEXT_DB_URL") == BitextConfig().db_url == "sqlite:///bitext.db"
    parser = build_parser()
    for argv in (["export", "pairs"], ["explain", "a", "b"], ["eval", "--gold", "g.tsv"], ["db", "upgrade"]):
        assert parser.parse_args(argv).db == default("BITEXT_DB_URL"), argv
    with pytest.raises(KeyError):
        default("BITEXT_NO_SUCH_SETTING")
    # The literal default is written once in the package: in its declaration.
    holders = [p.relative_to(ROOT).as_posix() for p in package_sources()
               if "sqlite:///bitext.db" in p.read_text(encoding="utf-8")]
    assert holders == ["bitext_spider/config.py"]


def test_every_bitext_setting_named_in_code_and_docs_is_declared():
    known = declared_names()
    seen: dict[str, set[str]] = {}
    docs = [ROOT / "README.md", *sorted((ROOT / "docs").rglob("*.md"))]
    for path in [*package_sources(), *docs]:
        for name in SETTING_NAME.findall(path.read_text(encoding="utf-8")):
            seen.setdefault(name, set()).add(path.relative_to(ROOT).as_posix())
    assert {"BITEXT_DB_URL", "BITEXT_PARSE_TIMEOUT", "BITEXT_MAX_TAG_TOKENS"} <= set(seen)
    unknown = {name: sorted(where) for name, where in seen.items() if name not in known}
    assert not unknown, f"BITEXT_* names that are not declared in bitext_spider/config.py: {unknown}"


# -- stats -------------------------------------------------------------------------------------------

def _template(node: ast.JoinedStr) -> str | None:
    """``f"bitext/pages/lang/{item.lang}"`` -> ``"bitext/pages/lang/\\x00"`` (None: not a stat key)."""
    parts = []
    for v in node.values:
        if isinstance(v, ast.Constant):
            parts.append(str(v.value))
        else:
            parts.append("\x00")
    text = "".join(parts)
    return text if text.startswith("bitext/") else None


def stat_strings() -> tuple[list[tuple[str, str]], list[tuple[str, str]]]:
    """(literal keys, f-string templates) starting with ``bitext/`` in the package, with their file."""
    literals, templates = [], []
    for path in package_sources():
        where = path.relative_to(ROOT).as_posix()
        if where in REGISTRY:
            continue  # the declarations themselves: every key is there
        tree = ast.parse(path.read_text(encoding="utf-8"))
        in_fstring = {id(v) for node in ast.walk(tree) if isinstance(node, ast.JoinedStr) for v in node.values}
        for node in ast.walk(tree):
            if isinstance(node, ast.JoinedStr):
                t = _template(node)
                if t is not None:
                    templates.append((t, where))
            elif (isinstance(node, ast.Constant) and isinstance(node.value, str) and id(node) not in in_fstring
                  and node.value.startswith("bitext/")):
                literals.append((node.value, where))
    return literals, templates


def _declared_template(key: str) -> str:
    return re.sub(r"<[a-z_]+>", "\x00", key)


def _template_matches(template: str) -> list[str]:
    """Declared keys a code template covers: the same pattern, or literal keys of its family."""
    same = [s.key for s in STATS if _declared_template(s.key) == template]
    if same:
        return same
    family = re.compile("".join("[^/]+" if part == "\x00" else re.escape(part)
                                for part in re.split("(\x00)", template) if part))
    return [s.key for s in STATS if "<" not in s.key and family.fullmatch(s.key)]


def _counted_keys(path: Path) -> set[str]:
    """Keys a stage counts before publishing them as ``bitext/<stage>/<key>``: the arguments of
    ``<filter>.count("...")`` and the keys of a ``counts = {...}`` literal."""
    keys = set()
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if (isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) and node.func.attr == "count"
                and node.args and isinstance(node.args[0], ast.Constant)):
            keys.add(node.args[0].value)
        if (isinstance(node, ast.Assign) and isinstance(node.value, ast.Dict)
                and any(isinstance(t, ast.Name) and t.id == "counts" for t in node.targets)):
            keys.update(k.value for k in node.value.keys if isinstance(k, ast.Constant))
    return keys


def test_every_stat_key_in_the_code_is_declared():
    literals, templates = stat_strings()
    assert len(literals) > 40 and len(templates) >= 5  # the scan finds the stats
    unknown = []
    for key, where in literals:
        ok = any(s.key.startswith(key) for s in STATS) if key.endswith("/") else declared(key) is not None
        if not ok:
            unknown.append((key, where))
    for template, where in templates:
        if not _template_matches(template):
            unknown.append((template.replace("\x00", "{...}"), where))
    assert not unknown, f"stat keys not declared in bitext_spider/stat_keys.py: {unknown}"


def _content_counts() -> set[str]:
    """What the content filter counts (published as ``bitext/content/<key>``), itself or, for
    what the store says, in the close-time steps."""
    return (_counted_keys(ROOT / "matchers" / "content" / "content_filter.py")
            | _counted_keys(ROOT / "bitext_spider" / "resolution.py"))


def test_counted_stat_families_are_declared():
    content = _content_counts()
    decision = _counted_keys(ROOT / "matchers" / "site" / "site_decision.py")
    assert {"checked", "rescued_at_close", "sentences_aligned_at_close"} <= content
    assert decision == {"accepted", "rejected", "proposed", "proposed_accepted", "pivot_proposed", "pivot_accepted"}
    missing = [f"bitext/content/{k}" for k in content if declared(f"bitext/content/{k}") is None]
    missing += [f"bitext/decision/{k}" for k in decision if declared(f"bitext/decision/{k}") is None]
    assert not missing


def test_every_declared_stat_is_used_by_the_code():
    literals, templates = stat_strings()
    used = {key for key, _ in literals}
    for template, _ in templates:
        used.update(_template_matches(template))
    used.update(f"bitext/content/{k}" for k in _content_counts())
    used.update(f"bitext/decision/{k}" for k in _counted_keys(ROOT / "matchers" / "site" / "site_decision.py"))
    stale = [s.key for s in STATS if s.key not in used]
    assert not stale, f"declared stats nothing in the code sets or reads: {stale}"


def test_declared_keys_and_patterns_match_what_they_should():
    assert declared("bitext/pages/lang/en").key == "bitext/pages/lang/<lang>"
    assert declared("bitext/pages/lang/und") is not None
    assert declared("bitext/pairs/en-fr").key == "bitext/pairs/<langs>"
    assert declared("bitext/pairs/provisional").key == "bitext/pairs/provisional"
    assert declared("bitext/pages/charset/meta+utf8") is not None
    assert declared("bitext/errors/DNSLookupError").key == "bitext/errors/<exception>"
    assert declared("bitext/errors/parse_worker").key == "bitext/errors/parse_worker"  # literal first
    assert declared("bitext/pages/charset/guess") is None
    assert declared("bitext/pages/lang/") is None
    assert declared("bitext/pairs/en-fr/x") is None
    assert declared("bitext/nothing") is None
    assert key_pattern("bitext/pages/lang/<lang>").fullmatch("bitext/pages/lang/de")
    assert len({s.key for s in STATS}) == len(STATS)
    assert all(s.group in stat_keys.GROUPS and s.meaning for s in STATS)
