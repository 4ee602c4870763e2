"""benchmarks/make_mixed_domain_site.py: two sites on two subjects served as one, with each page's
subject and both gold standards from the sources."""

from __future__ import annotations

import importlib.util
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
_spec = importlib.util.spec_from_file_location("make_mixed_domain_site", ROOT / "benchmarks" / "make_mixed_domain_site.py")
mixed = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(mixed)


def _site(root: Path, base: str, pages: dict[str, tuple[str, str]], gold: list[tuple[str, str, str, str]],
          home: str) -> None:
    for path, (_lang, html) in pages.items():
        target = root / "www" / path.lstrip("/")
        if path.endswith("/"):
            target = target / "index.html"
        target.parent.mkdir(parents=True, exist_ok=True)
        target.write_text(html, encoding="utf-8")
    (root / "www" / "index.html").write_text(home, encoding="utf-8")
    (root / "hosts.tsv").write_text(f"www\t{base}\n")
    (root / "seeds.txt").write_text(f"{base}/\n")
    (root / "pages.tsv").write_text("".join(f"{base}{p}\t{lang}\n" for p, (lang, _html) in pages.items()))
    (root / "gold.tsv").write_text("".join(f"{a}\t{base}{u}\t{b}\t{base}{v}\n" for a, u, b, v in gold))


def test_build_serves_both_sites_under_one_home_with_subjects_and_gold(tmp_path):
    _site(tmp_path / "in", "http://127.0.0.1:8103",
          {"/a/x.en.html": ("en", '<a href="/a/x.de.html">de</a>'), "/a/x.de.html": ("de", "<p>x</p>")},
          [("de", "/a/x.de.html", "en", "/a/x.en.html")], '<ul><li><a href="/a/x.en.html">en</a></li></ul>')
    _site(tmp_path / "out", "http://127.0.0.1:8200",
          {"/de/": ("de", '<a href="/de/guide/">Guide</a><link href="/assets/s.css">'),
           "/de/guide/": ("de", "<p>Anleitung</p>"),
           "/guide/": ("en", '<img src="/img/a.png"><a href="//cdn.example/x">cdn</a>')},
          [("de", "/de/guide/", "en", "/guide/")], "<p>home</p>")
    counts = mixed.build(tmp_path / "in", tmp_path / "out", tmp_path / "site", prefix="docs", port=8131)
    assert counts == {"pages_in": 2, "pages_out": 3, "gold_in": 1, "gold_out": 1}
    site = tmp_path / "site"
    www = site / "www"
    home = (www / "index.html").read_text()
    # Both subjects' start pages, alternately: the in-domain home's links, OTHER's seed and language homes.
    assert home.index('href="/a/x.en.html"') < home.index('href="/docs/"') < home.index('href="/docs/de/"')
    assert (www / "docs" / "de" / "index.html").read_text() == ('<a href="/docs/de/guide/">Guide</a>'
                                                               '<link href="/docs/assets/s.css">')
    assert (www / "docs" / "guide" / "index.html").read_text() == ('<img src="/docs/img/a.png">'
                                                                  '<a href="//cdn.example/x">cdn</a>')
    assert (www / "a" / "x.en.html").read_text() == '<a href="/a/x.de.html">de</a>'
    assert (site / "pages.tsv").read_text().splitlines() == [
        "http://127.0.0.1:8131/a/x.en.html\ten\tin", "http://127.0.0.1:8131/a/x.de.html\tde\tin",
        "http://127.0.0.1:8131/docs/de/\tde\tout", "http://127.0.0.1:8131/docs/de/guide/\tde\tout",
        "http://127.0.0.1:8131/docs/guide/\ten\tout"]
    assert (site / "gold-in-domain.tsv").read_text() == (
        "de\thttp://127.0.0.1:8131/a/x.de.html\ten\thttp://127.0.0.1:8131/a/x.en.html\n")
    assert (site / "gold.tsv").read_text().splitlines()[1] == (
        "de\thttp://127.0.0.1:8131/docs/de/guide/\ten\thttp://127.0.0.1:8131/docs/guide/")
    assert (site / "hosts.tsv").read_text() == "www\thttp://127.0.0.1:8131\n"
    assert (site / "seeds.txt").read_text() == "http://127.0.0.1:8131/\n"
