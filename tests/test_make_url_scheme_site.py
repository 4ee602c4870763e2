"""benchmarks/make_url_scheme_site.py and serve_site.py: a tiny W3C-like site under the query,
numeric and multislot URL schemes, served on loopback and checked page by page."""

from __future__ import annotations

import importlib.util
import re
import sys
import urllib.error
import urllib.request
from pathlib import Path
from urllib.parse import urljoin

import lxml.html
import pytest

from bitext_spider.demo.loopback_server import free_port

ROOT = Path(__file__).resolve().parents[1]


def _load(name: str):
    spec = importlib.util.spec_from_file_location(name, ROOT / "benchmarks" / f"{name}.py")
    module = importlib.util.module_from_spec(spec)
    sys.modules[name] = module
    spec.loader.exec_module(module)
    return module


mus = _load("make_url_scheme_site")
serve_site = _load("serve_site")
url_devsets = _load("url_devsets")
mos = _load("make_opaque_site")

# document -> languages; each page says which document and language it is in its text
DOCS = {"articles/alpha": ("en", "fr", "de"), "articles/beta": ("en", "fr"), "questions/gamma": ("en", "de")}
LANG_ATTR = re.compile(r"""(?i)\s(?:xml:)?(?:hreflang|lang)\s*=""")


def _page(doc: str, lang: str) -> str:
    name = doc.rsplit("/", 1)[1]
    switcher = "".join(f'<a href="{name}.{other}.html" hreflang="{other}">{other}</a> '
                       for other in DOCS[doc] if other != lang)
    alternates = "".join(f'<link rel="alternate" hreflang="{other}" href="{name}.{other}.html">'
                         for other in DOCS[doc])
    return (f'<!DOCTYPE html>\n<html lang="{lang}"><head><meta charset="utf-8">'
            f'<meta http-equiv="Content-Language" content="{lang}">\n{alternates}<title>{name}</title></head>\n'
            f'<body><p lang="{lang}">Text of {doc} in {lang}.</p>\n<nav>{switcher}</nav>\n'
            f'<a href="#top">top</a> <a href="../index.html">home</a> '
            f'<a href="/Site/{doc}.{lang}.html?print=1">print</a> <a href="missing.html">gone</a>\n'
            f'</body></html>\n')


def make_source(root: Path, base: str) -> Path:
    www = root / "www"
    pages, gold = [], []
    links = []
    for doc, langs in DOCS.items():
        for lang in langs:
            f = www / "Site" / f"{doc}.{lang}.html"
            f.parent.mkdir(parents=True, exist_ok=True)
            f.write_text(_page(doc, lang), "utf-8")
            pages.append(f"{base}/Site/{doc}.{lang}.html\t{lang}\n")
            links.append(f'<a href="Site/{doc}.{lang}.html">{doc} {lang}</a>')
        for i, a in enumerate(langs):
            for b in langs[i + 1:]:
                x, y = sorted((a, b))
                gold.append(f"{x}\t{base}/Site/{doc}.{x}.html\t{y}\t{base}/Site/{doc}.{y}.html\n")
    (www / "index.html").write_text(f"<!DOCTYPE html><html><body>{' '.join(links)}</body></html>\n", "utf-8")
    (www / "Site" / "index.html").write_text('<html><body><a href="articles/alpha.en.html">a</a></body></html>\n')
    (root / "hosts.tsv").write_text(f"www\t{base}\n", "utf-8")
    (root / "pages.tsv").write_text("".join(pages), "utf-8")
    (root / "gold.tsv").write_text("".join(gold), "utf-8")
    (root / "seeds.txt").write_text(f"{base}/\n", "utf-8")
    return root


@pytest.fixture(scope="module")
def built(tmp_path_factory):
    """(source, base URL, {scheme: OpaqueSite}), every scheme built from one source."""
    tmp = tmp_path_factory.mktemp("schemes")
    base = f"http://127.0.0.1:{free_port()}"
    src = make_source(tmp / "src", base)
    return src, base, {s: mus.make_url_scheme_site(src, tmp / s, s, seed=3) for s in mus.SCHEMES}


def tsv(path: Path) -> list[list[str]]:
    return [line.split("\t") for line in path.read_text("utf-8").splitlines() if line]


def fetch(url: str) -> tuple[int, bytes, str]:
    try:
        with urllib.request.urlopen(url, timeout=10) as r:
            return r.status, r.read(), r.headers.get("Content-Type", "")
    except urllib.error.HTTPError as e:
        return e.code, b"", ""


@pytest.fixture
def served(built):
    """A function serving one scheme's site with serve_site.py for the test."""
    started = []

    def start(scheme: str) -> Path:
        site = built[2][scheme].dst
        started.extend(serve_site.serve(site))
        return site

    yield start
    for srv in started:
        srv.shutdown()
        srv.server_close()


def test_pages_get_the_devset_urls(built):
    src, base, sites = built
    for scheme, site in sites.items():
        want = {e.url.replace("http://www.example.org", base): e.lang
                for e in url_devsets.w3c_variant(scheme, 3, source=src)}
        assert dict(tsv(site.dst / "pages.tsv")) == want
    assert any("?page=" in u for u in dict(tsv(sites["query"].dst / "pages.tsv")))
    assert all(re.search(r"/content\.asp\?(id=\d+&clang=\d+|clang=\d+&id=\d+)$", u)
               for u in dict(tsv(sites["numeric"].dst / "pages.tsv")))
    assert f"{base}/french/Site/articles/alpha_fr.html" in dict(tsv(sites["multislot"].dst / "pages.tsv"))


@pytest.mark.parametrize("scheme", mus.SCHEMES)
def test_every_gold_url_is_served_with_its_page(built, served, scheme):
    src, base, sites = built
    site = served(scheme)
    old_gold, new_gold = tsv(src / "gold.tsv"), tsv(site / "gold.tsv")
    assert len(new_gold) == len(old_gold) == 5
    assert sorted((r[0], r[2]) for r in new_gold) == sorted((r[0], r[2]) for r in old_gold)
    pages = dict(tsv(site / "pages.tsv"))
    for lang1, url1, lang2, url2 in new_gold:
        assert pages[url1] == lang1 and pages[url2] == lang2
        docs = set()
        for url, lang in ((url1, lang1), (url2, lang2)):
            status, body, ctype = fetch(url)
            assert status == 200 and ctype.startswith("text/html")
            text = re.search(rb"Text of (\S+) in (\S+)\.", body)
            assert text and text.group(2).decode() == lang
            docs.add(text.group(1))
        assert len(docs) == 1  # a gold pair still joins two languages of one document
    assert mus.audit(sites[scheme])["gold_urls_unserved"] == []


@pytest.mark.parametrize("scheme", mus.SCHEMES)
def test_links_point_to_the_new_urls_and_markup_has_no_language(built, served, scheme):
    src, base, sites = built
    site = served(scheme)
    new_of = dict(tsv(site / "mapping.tsv"))
    www = site / "www"
    checked = 0
    for old_url, new_url in new_of.items():
        if not old_url.endswith(".en.html") or "alpha" not in old_url:
            continue
        status, body, _ = fetch(new_url)
        assert status == 200
        text = body.decode("utf-8")
        assert not LANG_ATTR.search(text) and "Content-Language" not in text
        doc = lxml.html.document_fromstring(body)
        hrefs = [urljoin(new_url, h) for h in doc.xpath("//nav/a/@href")]
        assert hrefs == [new_of[old_url.replace(".en.", f".{x}.")] for x in ("fr", "de")]
        alternates = [urljoin(new_url, h) for h in doc.xpath("//link[@rel='alternate']/@href")]
        assert alternates == [new_of[old_url.replace(".en.", f".{x}.")] for x in ("en", "fr", "de")]
        home = urljoin(new_url, doc.xpath("//a[text()='home']/@href")[0])
        assert fetch(home)[0] == 200 and home == new_of[f"{base}/Site/"]
        printed = urljoin(new_url, doc.xpath("//a[text()='print']/@href")[0])
        assert printed == new_url + ("&" if "?" in new_url else "?") + "print=1"  # the link's own query is kept
        assert fetch(printed)[1] == body  # and the page still served, its parameter ignored
        assert fetch(urljoin(new_url, doc.xpath("//a[text()='gone']/@href")[0]))[0] == 404
        checked += 1
    assert checked == 1
    report = mus.audit(sites[scheme])
    assert report["pages_with_lang_attributes"] == []
    # each page's "missing.html" link points nowhere, as in the source, and nothing else does
    assert report["dead_links"] == sum(len(langs) for langs in DOCS.values())
    assert not any(p.name.endswith(".en.html") for p in www.rglob("*"))


@pytest.mark.parametrize("scheme", ["query", "numeric"])
def test_query_pages_are_served_in_any_parameter_order(built, served, scheme):
    site = served(scheme)
    urls = [u for u, _ in tsv(site / "pages.tsv")]
    orders = set()
    for url in urls:
        head, query = url.split("?")
        params = query.split("&")
        orders.add(params[0].split("=")[0])
        body = fetch(url)[1]
        assert body and fetch(f"{head}?{'&'.join(reversed(params))}")[1] == body
        assert fetch(f"{head}?{params[0]}")[0] == 404  # half a query is no page
    assert len(orders) == 2  # the devset shuffles the parameters: both orders are linked
    assert (site / "query-files.tsv").is_file()
    files = [f for _, f in tsv(site / "query-files.tsv")]
    assert len(files) == len(urls) and all((site / "www" / f.lstrip("/")).is_file() for f in files)


def test_multislot_is_the_lang_slot_opaque_site(built, tmp_path):
    src, _base, sites = built
    opaque = mos.make_opaque(src, tmp_path / "slots", seed=3, lang_slots=True)
    ours = sites["multislot"].dst
    assert not (ours / "query-files.tsv").exists()
    for name in ("pages.tsv", "gold.tsv", "mapping.tsv", "seeds.txt"):
        assert (ours / name).read_text("utf-8") == (opaque.dst / name).read_text("utf-8")
    files = {p.relative_to(ours / "www"): p.read_bytes() for p in (ours / "www").rglob("*") if p.is_file()}
    assert files == {p.relative_to(opaque.dst / "www"): p.read_bytes()
                     for p in (opaque.dst / "www").rglob("*") if p.is_file()}


def test_resolve_refuses_separators_and_keeps_serve_py_behaviour(tmp_path):
    www = tmp_path / "www"
    (www / "d").mkdir(parents=True)
    (www / "d" / "index.html").write_text("x")
    (www / "page.php?a=1&b=2").write_text("y")
    assert serve_site.resolve(www, "/page.php?b=2&a=1") == www / "page.php?a=1&b=2"
    assert serve_site.resolve(www, "/d/?anything=1") == www / "d" / "index.html"
    assert serve_site.resolve(www, "/page.php?a=1") is None
    assert serve_site.resolve(www, "/page.php?c=3&b=2&a=1") == www / "page.php?a=1&b=2"
    assert serve_site.resolve(www, "/../page.php?a=1&b=2") == www / "page.php?a=1&b=2"
    with pytest.raises(ValueError):
        serve_site.query_file_name("/x.php", "p=a/../b")


def test_unknown_scheme_and_existing_destination(built, tmp_path):
    src = built[0]
    with pytest.raises(ValueError, match="unknown scheme"):
        mus.make_url_scheme_site(src, tmp_path / "x", "noisy")
    with pytest.raises(FileExistsError):
        mus.make_url_scheme_site(src, built[2]["query"].dst, "query")
