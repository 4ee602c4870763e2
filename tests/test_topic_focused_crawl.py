"""A focused crawl (``-a domain=FILE``) of a small mixed-domain site: W3C internationalization
articles next to a generated site on other subjects, at a page budget below the site's size."""

from __future__ import annotations

import importlib.util
import io
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
from sqlalchemy import select
from sqlalchemy.orm import Session
from support import FAST, ROOT, pairs_of, scrapy_crawl

from bitext_spider.commands.explain import explain
from bitext_spider.demo.loopback_server import free_port, serve_site
from bitext_spider.demo.site import generate_site
from bitext_spider.store.database import Store
from bitext_spider.store.models import PageRow

pytestmark = pytest.mark.slow

_spec = importlib.util.spec_from_file_location("make_mixed_domain_site", ROOT / "benchmarks" / "make_mixed_domain_site.py")
mixed = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(mixed)

DOMAIN = ROOT / "docs" / "examples" / "i18n-domain.txt"
LANGS = ("en", "de", "fr", "es")


def _rows(path: Path) -> list[list[str]]:
    return [line.split("\t") for line in path.read_text(encoding="utf-8").splitlines() if line.strip()]


def _small_i18n_site(w3c: Path, dst: Path, n_docs: int = 5) -> None:
    """``n_docs`` W3C articles in every language of LANGS, with a home page listing them."""
    base = (w3c / "hosts.tsv").read_text().split("\t")[1].strip()
    by_doc: dict[str, dict[str, str]] = {}
    for url, lang in _rows(w3c / "pages.tsv"):
        doc = url.rsplit(".", 2)[0]
        by_doc.setdefault(doc, {})[lang] = url
    docs = [d for d in sorted(by_doc) if all(lang in by_doc[d] for lang in LANGS)][:n_docs]
    urls = {by_doc[d][lang] for d in docs for lang in LANGS}
    for url in urls:
        path = url[len(base):].lstrip("/")
        (dst / "www" / path).parent.mkdir(parents=True, exist_ok=True)
        shutil.copyfile(w3c / "www" / path, dst / "www" / path)
    # Home -> one listing page per language -> the articles by title, as the W3C site's sitemaps.
    home = []
    for lang in LANGS:
        links = "".join(f'<li><a href="{by_doc[d][lang][len(base):]}">{_title(dst, by_doc[d][lang][len(base):])}</a></li>'
                        for d in docs)
        (dst / "www" / f"list.{lang}.html").write_text(f"<html><body><ul>{links}</ul></body></html>",
                                                      encoding="utf-8")
        home.append(f'<li><a href="/list.{lang}.html">{lang}</a></li>')
    (dst / "www" / "index.html").write_text(f"<html><body><ul>{''.join(home)}</ul></body></html>",
                                            encoding="utf-8")
    (dst / "hosts.tsv").write_text(f"www\t{base}\n")
    (dst / "seeds.txt").write_text(base + "/\n")
    (dst / "pages.tsv").write_text("".join(f"{u}\t{lang}\n" for u, lang in _rows(w3c / "pages.tsv") if u in urls))
    (dst / "gold.tsv").write_text("".join("\t".join(r) + "\n" for r in _rows(w3c / "gold.tsv")
                                          if r[1] in urls and r[3] in urls))


def _title(site: Path, path: str) -> str:
    html = (site / "www" / path.lstrip("/")).read_text(encoding="utf-8", errors="replace")
    m = re.search(r"<title>(.*?)</title>", html, re.S)
    return " ".join(m.group(1).split()) if m else path


def _pages(db: str) -> dict[str, dict | None]:
    store = Store(db, create=False)
    try:
        with Session(store.engine) as s:
            return {url: topic for url, topic in s.execute(select(PageRow.url, PageRow.topic))}
    finally:
        store.close()


def test_the_focused_crawl_spends_its_budget_on_the_domain(tmp_path, shared_data):
    w3c = shared_data("data/w3c-i18n")
    _small_i18n_site(w3c, tmp_path / "in")
    generate_site(tmp_path / "out", base_url="http://127.0.0.1:1", n_docs=20, langs=LANGS, seed=3, extras=False)
    port = free_port()
    counts = mixed.build(tmp_path / "in", tmp_path / "out", tmp_path / "site", port=port)
    assert counts["pages_in"] == 20 and counts["pages_out"] > 40
    site = tmp_path / "site"
    subjects = {url: subject for url, _lang, subject in _rows(site / "pages.tsv")}
    gold_in = {frozenset((r[1], r[3])) for r in _rows(site / "gold-in-domain.tsv")}
    budget = ["-s", "BITEXT_MAX_PAGES_PER_SITE=32"]
    focused_db, plain_db = f"sqlite:///{tmp_path / 'f.db'}", f"sqlite:///{tmp_path / 'p.db'}"
    with serve_site(site, port=port):
        focused = scrapy_crawl(site / "seeds.txt", focused_db, "-a", f"domain={DOMAIN}", *budget)
        plain = scrapy_crawl(site / "seeds.txt", plain_db, *budget)
    assert focused.returncode == 0, focused.stderr[-3000:]
    assert plain.returncode == 0, plain.stderr[-3000:]

    pages = _pages(focused_db)
    assert len(pages) <= 32
    on_subject = [u for u in pages if subjects.get(u) == "in"]
    plain_on_subject = [u for u in _pages(plain_db) if subjects.get(u) == "in"]
    # The plain crawl's share depends on the order its responses come back in (up to 15 of the 20
    # seen); the focused one takes the domain's pages first, so nearly all 20 fit in the budget.
    assert len(on_subject) >= 18 and len(on_subject) >= len(plain_on_subject) + 3
    # Every page is scored; the known subjects are told apart.
    judged = {u: t["relevant"] for u, t in pages.items() if u in subjects}
    assert all(t is not None for t in pages.values())
    assert sum(judged[u] == (subjects[u] == "in") for u in judged) >= 0.9 * len(judged)
    # Only relevant pages are paired, and more in-domain pairs are found than breadth first.
    pairs = pairs_of(focused_db)
    assert pairs and all(pages[u]["relevant"] for pair in pairs for u in pair)
    assert len(pairs & gold_in) > len(pairs_of(plain_db) & gold_in)
    assert "bitext/domain/relevant" in focused.stderr and "bitext/domain/links_ranked" in focused.stderr

    # bitext explain shows the relevance of both pages.
    a, b = sorted(next(iter(pairs & gold_in)))
    out = io.StringIO()
    store = Store(focused_db, create=False)
    try:
        assert explain(store, a, b, out) == 0
    finally:
        store.close()
    assert out.getvalue().count("domain i18n-domain: relevant, p ") == 2


def test_a_domain_file_without_a_valid_line_stops_the_crawl_with_one_line(tmp_path):
    bad = tmp_path / "bad.txt"
    bad.write_text("# terms\nUnicode\n", encoding="utf-8")
    seeds = tmp_path / "seeds.txt"
    seeds.write_text("http://127.0.0.1:9/\n")
    proc = subprocess.run([sys.executable, "-m", "scrapy", "crawl", "site", "-a", f"seeds={seeds}",
                           "-a", f"domain={bad}", "-s", f"BITEXT_DB_URL=sqlite:///{tmp_path / 'x.db'}", *FAST],
                          cwd=ROOT, capture_output=True, text=True, timeout=120)
    assert proc.returncode == 1
    last = proc.stderr.rstrip("\n").rsplit("\n", 1)[-1]
    assert last == (f"error: the domain file '{bad}' has no valid WEIGHT:TERM=SUBDOMAIN[>LANG] line (1 malformed "
                    "lines): give -a domain=FILE with WEIGHT:TERM=SUBDOMAIN[>LANG] lines (docs/focused_crawl.md)")
    assert "Traceback" not in proc.stderr
