"""benchmarks/make_opaque_site.py: the opaque-URL variant of a generated site (random paths, links
rewritten, no language markup), checked file by file and by a real crawl."""

from __future__ import annotations

import importlib.util
import re
import sys
from pathlib import Path
from urllib.parse import unquote, urljoin, urlsplit

import lxml.html
import pytest
from support import page_urls, pairs_of, scrapy_crawl

from bitext_spider.demo.loopback_server import free_port, serve_site
from bitext_spider.demo.site import CONTENT_TYPES_FILE, generate_site

ROOT = Path(__file__).resolve().parents[1]
_spec = importlib.util.spec_from_file_location("make_opaque_site", ROOT / "benchmarks" / "make_opaque_site.py")
mos = importlib.util.module_from_spec(_spec)
sys.modules[_spec.name] = mos
_spec.loader.exec_module(mos)

LANGS = ("en", "fr", "de", "ja")
CHARSETS = {"fr": "iso-8859-1", "ja": "shift_jis"}
LANG_ATTR = re.compile(rb"""(?i)[\s"'/](?:xml:)?(?:hreflang|lang)\s*=""")
TAG = re.compile(rb"<[^>]*>")


def tsv(path: Path) -> list[list[str]]:
    return [line.split("\t") for line in path.read_text("utf-8").splitlines() if line]


def has_lang_code(url: str) -> bool:
    """A language of the site as a path segment or a part of a file name (split at / . - _)."""
    tokens = re.split(r"[/._-]+", unquote(urlsplit(url).path).lower())
    return any(tok in LANGS for tok in tokens)


def file_of(www: Path, url: str) -> Path:
    return www / unquote(urlsplit(url).path).lstrip("/")


def parse(data: bytes, encoding: str) -> lxml.html.HtmlElement:
    return lxml.html.document_fromstring(data.decode(encoding))


def srcset_urls(value: str) -> list[str]:
    return [c.split()[0] for c in value.split(",") if c.split()]


@pytest.fixture(scope="module")
def sites(tmp_path_factory):
    tmp = tmp_path_factory.mktemp("opaque")
    port = free_port()
    info = generate_site(tmp / "src", base_url=f"http://127.0.0.1:{port}", n_docs=12, langs=LANGS, seed=4,
                         charsets=CHARSETS, extras=True)
    site = mos.make_opaque(tmp / "src", tmp / "dst", seed=1)
    return info, site


def old_pages(info) -> dict[str, str]:
    """Every HTML file of the source site (content pages, the root, the private page): path -> lang."""
    langs = {unquote(urlsplit(u).path): lang for u, lang in info.pages}
    return {"/" + p.relative_to(info.www).as_posix(): langs.get("/" + p.relative_to(info.www).as_posix(), "")
            for p in info.www.rglob("*.html")}


def encoding_of(lang: str) -> str:
    return CHARSETS.get(lang, "utf-8")


def test_new_urls_carry_no_language_codes(sites):
    info, site = sites
    dst = site.dst
    pages = tsv(dst / "pages.tsv")
    gold = tsv(dst / "gold.tsv")
    assert len(pages) == len(info.pages) and len(gold) == len(info.gold)
    for url, _ in pages:
        assert not has_lang_code(url), url
        assert re.fullmatch(r"/p/[0-9a-f]{12}\.html", urlsplit(url).path), url
    for _, u1, _, u2 in gold:
        assert not has_lang_code(u1) and not has_lang_code(u2)
    assert sorted(lang for _, lang in pages) == sorted(lang for _, lang in info.pages)
    for f in (dst / "www").rglob("*"):  # every file of the new site, assets and feeds included
        assert not has_lang_code("/" + f.relative_to(dst / "www").as_posix()), f
    assert (dst / "hosts.tsv").read_bytes() == info.hosts_path.read_bytes()
    assert (dst / "seeds.txt").read_text("utf-8").split() == [f"{info.base_url}/"]
    # clean asset paths are kept: image file names stay evidence
    assert (dst / "www" / "img" / "logo.png").read_bytes() == (info.www / "img" / "logo.png").read_bytes()


def test_no_language_attributes_remain(sites):
    _, site = sites
    files = list((site.dst / "www").rglob("*.html"))
    assert len(files) == site.html_pages
    for f in files:
        data = f.read_bytes()
        assert not LANG_ATTR.search(data), f
        doc = lxml.html.document_fromstring(data)
        for el in doc.iter():
            if isinstance(el.tag, str):
                assert not {"lang", "xml:lang", "hreflang"} & {k.lower() for k in el.attrib}, (f, el.tag)
    assert site.lang_attrs_removed > 0
    for name in ("sitemap.xml", "feed.xml"):
        assert b"hreflang" not in (site.dst / "www" / name).read_bytes()


def test_every_internal_link_resolves(sites):
    info, site = sites
    www = site.dst / "www"
    origin = urlsplit(info.base_url).netloc
    checked = 0
    for f in www.rglob("*.html"):
        page_url = info.base_url + "/" + f.relative_to(www).as_posix()
        doc = lxml.html.document_fromstring(f.read_bytes())
        raw = [link for _el, _attr, link, _pos in doc.iterlinks()]
        raw += [u for el in doc.iter("img", "source") for u in srcset_urls(el.get("srcset", ""))]
        for link in raw:
            if link.startswith("#"):
                continue
            absolute = urljoin(page_url, link)
            parts = urlsplit(absolute)
            if parts.netloc != origin:
                continue
            checked += 1
            assert link.startswith(("/", info.base_url)), (f.name, link)  # written absolute-path
            path = unquote(parts.path)
            assert not has_lang_code(absolute), (f.name, link)
            assert path == "/" or (www / path.lstrip("/")).is_file(), (f.name, link)
    assert checked > 100
    assert site.links_rewritten >= checked and site.links_dead == 0 and not site.dead_links


def test_gold_pairs_map_one_to_one(sites):
    info, site = sites
    mapping = dict(tsv(site.dst / "mapping.tsv"))
    old_urls = {u for u, _ in info.pages}
    new_urls = [mapping[u] for u in sorted(old_urls)]
    assert len(set(new_urls)) == len(new_urls)  # injective on the pages
    assert {tuple(r) for r in tsv(site.dst / "pages.tsv")} == {(mapping[u], lang) for u, lang in info.pages}
    expected = {(l1, mapping[u1], l2, mapping[u2]) for l1, u1, l2, u2 in info.gold}
    assert {tuple(r) for r in tsv(site.dst / "gold.tsv")} == expected
    assert len(expected) == len(info.gold)
    # directory URLs of index pages are the same opaque page as their index.html
    for lang in LANGS:
        assert mapping[f"{info.base_url}/{lang}/"] == mapping[f"{info.base_url}/{lang}/index.html"]
    assert mapping[f"{info.base_url}/"] == f"{info.base_url}/"
    for old, new in mapping.items():
        assert file_of(site.dst / "www", new).is_file() or urlsplit(new).path == "/", (old, new)


def test_page_text_and_bytes_are_unchanged(sites):
    info, site = sites
    www = site.dst / "www"
    pages = old_pages(info)
    assert set(pages) == set(site.page_files)
    for old, lang in pages.items():
        before = (info.www / old.lstrip("/")).read_bytes()
        after = (www / site.page_files[old].lstrip("/")).read_bytes()
        enc = encoding_of(lang)
        assert parse(before, enc).text_content() == parse(after, enc).text_content(), old
        # byte-identical outside the tags: only attributes changed
        assert TAG.sub(b"", before) == TAG.sub(b"", after), old
        assert len(TAG.findall(before)) == len(TAG.findall(after)), old


def test_non_utf8_pages_keep_their_charset(sites):
    info, site = sites
    www = site.dst / "www"
    seen = set()
    for old, lang in old_pages(info).items():
        if lang not in CHARSETS:
            continue
        data = (www / site.page_files[old].lstrip("/")).read_bytes()
        declared = re.search(rb'<meta charset="([^"]+)">', data).group(1).decode()
        assert declared == CHARSETS[lang]
        text = data.decode(declared)  # strict: still valid in the declared charset
        original = (info.www / old.lstrip("/")).read_bytes().decode(declared)
        assert re.sub("<[^>]*>", "", text) == re.sub("<[^>]*>", "", original)
        seen.add(lang)
        if lang == "ja":
            assert re.search("[\u3040-\u30ff\u4e00-\u9fff]", text)
    assert seen == set(CHARSETS)


def test_sitemap_feed_robots_and_sidecar_are_rewritten(sites):
    info, site = sites
    www = site.dst / "www"
    mapping = dict(tsv(site.dst / "mapping.tsv"))
    new_pages = set(mapping.values())
    for name in ("sitemap.xml", "feed.xml"):
        text = (www / name).read_text("utf-8")
        urls = re.findall(r"https?://[^<\s\"]+", text)
        internal = [u for u in urls if u.startswith(info.base_url)]
        assert internal, name
        assert all(u in new_pages for u in internal), name
        assert not any(has_lang_code(u) for u in internal)
    for url in info.sitemap_only + info.feed_only:
        assert mapping[url] in (www / "sitemap.xml").read_text("utf-8") + (www / "feed.xml").read_text("utf-8")
    robots = (www / "robots.txt").read_text("utf-8")
    private = urlsplit(mapping[info.private[0]]).path
    assert f"Disallow: {private}\n" in robots
    assert f"Sitemap: {info.base_url}/sitemap.xml" in robots
    sidecar = tsv(site.dst / CONTENT_TYPES_FILE)
    assert sidecar
    for path, _ctype in sidecar:
        assert (www / path.lstrip("/")).is_file(), path


def test_header_declared_charsets_follow_their_pages(tmp_path):
    info = generate_site(tmp_path / "src", base_url="http://127.0.0.1:8999", n_docs=5, langs=("en", "ja"),
                         seed=2, charsets={"ja": "euc-jp"}, charset_declaration="header", extras=False)
    site = mos.make_opaque(tmp_path / "src", tmp_path / "dst", seed=0)
    sidecar = dict(tsv(site.dst / CONTENT_TYPES_FILE))
    mapping = dict(tsv(site.dst / "mapping.tsv"))
    assert sidecar and not any(has_lang_code(p) for p in sidecar)
    for url, lang in info.pages:
        new_path = urlsplit(mapping[url]).path
        assert sidecar[new_path] == f"text/html; charset={'euc-jp' if lang == 'ja' else 'utf-8'}"
        data = (site.dst / "www" / new_path.lstrip("/")).read_bytes()
        original = file_of(info.www, url).read_bytes()
        assert TAG.sub(b"", data) == TAG.sub(b"", original)
        data.decode("euc-jp" if lang == "ja" else "utf-8")


def test_deterministic_for_a_seed(sites, tmp_path):
    info, site = sites
    again = mos.make_opaque(info.root, tmp_path / "again", seed=1)
    assert again.mapping == site.mapping
    for f in (site.dst / "www").rglob("*"):
        if f.is_file():
            twin = tmp_path / "again" / "www" / f.relative_to(site.dst / "www")
            assert twin.read_bytes() == f.read_bytes(), f
    other = mos.make_opaque(info.root, tmp_path / "other", seed=2)
    assert other.mapping != site.mapping
    with pytest.raises(FileExistsError):
        mos.make_opaque(info.root, tmp_path / "again", seed=1)


def test_language_named_assets_links_and_metas(tmp_path):
    """Hand-made page: a language-named image, srcset, CSS url(), meta refresh, language metas,
    a dead link, an external one, a relative link and a query string."""
    src = tmp_path / "src"
    (src / "www" / "fr" / "img").mkdir(parents=True)
    (src / "www" / "img").mkdir()
    (src / "www" / "fr" / "img" / "logo-fr.png").write_bytes(b"\x89PNG fr")
    (src / "www" / "fr" / "img" / "photo.jpg").write_bytes(b"jpg")
    (src / "www" / "img" / "map.png").write_bytes(b"png")
    (src / "www" / "fr" / "a.html").write_bytes(
        b'<!DOCTYPE html>\n<html lang="fr" xml:lang="fr">\n<head>\n<meta charset="utf-8">\n'
        b'<meta http-equiv="Content-Language" content="fr">\n<meta name="language" content="French">\n'
        b'<meta property="og:locale" content="fr_FR">\n<meta property="og:url" content="http://127.0.0.1:8999/fr/a.html">\n'
        b'<meta http-equiv="refresh" content="30; url=b.html">\n'
        b"<style>body{background:url('img/photo.jpg')}</style>\n</head>\n"
        b'<body><p style="background: url(&quot;/img/map.png&quot;)">Caf\xc3\xa9 <span lang="en">tea</span></p>\n'
        b'<img src="img/logo-fr.png" srcset="img/photo.jpg 1x, /img/map.png 2x" alt="Logo">\n'
        b'<a href="b.html?x=1&amp;y=2#top">B</a> <a href="missing-fr.html">gone</a> '
        b'<a href="https://example.org/fr/">ext</a> <a href="#here">here</a>\n'
        b"<script>var u = '<a href=\"/fr/b.html\">';</script>\n</body>\n</html>\n"
    )
    (src / "www" / "fr" / "b.html").write_bytes(b"<html><body><a href='a.html'>A</a></body></html>")
    (src / "hosts.tsv").write_text("www\thttp://127.0.0.1:8999\n")
    (src / "seeds.txt").write_text("http://127.0.0.1:8999/fr/a.html\n")
    (src / "pages.tsv").write_text("http://127.0.0.1:8999/fr/a.html\tfr\nhttp://127.0.0.1:8999/fr/b.html\tfr\n")
    (src / "gold.tsv").write_text("")
    site = mos.make_opaque(src, tmp_path / "dst", seed=0)
    www = site.dst / "www"
    m = {urlsplit(o).path: urlsplit(n).path for o, n in site.mapping.items()}
    a, b = m["/fr/a.html"], m["/fr/b.html"]
    html = (www / a.lstrip("/")).read_text("utf-8")
    assert not LANG_ATTR.search(html.encode())
    assert "Content-Language" not in html and "og:locale" not in html and 'name="language"' not in html
    assert f'content="http://127.0.0.1:8999{a}"' in html
    assert f'content="30; url={b}"' in html
    photo = m["/fr/img/photo.jpg"]
    assert photo.endswith("/photo.jpg") and not has_lang_code(photo)  # file name kept, folder hidden
    logo = m["/fr/img/logo-fr.png"]
    assert logo.endswith(".png") and "logo" not in logo and not has_lang_code(logo)
    assert m["/img/map.png"] == "/img/map.png"
    assert f"url('{photo}')" in html and "url(&quot;/img/map.png&quot;)" in html
    assert f'src="{logo}" srcset="{photo} 1x, /img/map.png 2x"' in html
    assert f'href="{b}?x=1&amp;y=2#top"' in html
    assert 'href="https://example.org/fr/"' in html and 'href="#here"' in html
    assert "'<a href=\"/fr/b.html\">'" in html  # scripts are text, untouched
    dead = site.dead_links["http://127.0.0.1:8999/fr/missing-fr.html"]
    assert urlsplit(dead).path.startswith("/x/") and not has_lang_code(dead)
    assert f'href="{urlsplit(dead).path}"' in html
    assert "Caf\u00e9 <span>tea</span>" in html
    assert (site.dst / "seeds.txt").read_text().strip() == f"http://127.0.0.1:8999{a}"
    assert (www / b.lstrip("/")).read_text() == f"<html><body><a href='{a}'>A</a></body></html>"


@pytest.mark.slow
def test_crawl_of_the_opaque_site_still_pairs_pages(sites, tmp_path):
    info, site = sites
    db = f"sqlite:///{tmp_path / 'opaque.db'}"
    with serve_site(site.dst):  # the port of hosts.tsv, unchanged
        proc = scrapy_crawl(site.dst / "seeds.txt", db)
    assert proc.returncode == 0, proc.stderr[-3000:]
    stored = set(page_urls(db))
    new_pages = {u for u, _ in site.pages}
    assert new_pages <= stored, sorted(new_pages - stored)[:5]  # sitemap/feed-only pages included
    mapping = site.mapping
    assert mapping[info.private[0]] not in stored  # robots.txt still protects the private page
    assert not any(has_lang_code(u) for u in stored)
    gold = {frozenset((u1, u2)) for _, u1, _, u2 in site.gold}
    found = pairs_of(db)
    assert found & gold, (len(found), len(gold))
