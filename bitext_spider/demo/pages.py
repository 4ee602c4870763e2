"""The demo site's HTML pages (document, listing and home pages in their templates) and its
extras: robots.txt, sitemap, feed, and binary files."""

from __future__ import annotations

import html
import random
import struct
import zlib
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from datetime import date, datetime, timedelta, timezone
from email.utils import format_datetime
from urllib.parse import quote

import lxml.html

from bitext_spider.demo.composer import _choice, _derive
from bitext_spider.demo.lexicon import LISTING_PAGE_SIZE
from bitext_spider.demo.plan import _Doc
from bitext_spider.demo.render import _esc, _Renderer

# --------------------------------------------------------------------------------------------------
# HTML pages


@dataclass(frozen=True)
class _Template:
    """What every page of the site shares: header with language links, footer, head tags."""

    langs: tuple[str, ...]
    renderers: Mapping[str, _Renderer]
    extras: bool
    declaration: str
    charsets: Mapping[str, str]

    def page(self, lang: str, title: str, main: str, head: Sequence[str] = (), brochure: bool = False) -> str:
        r = self.renderers[lang]
        meta = f'<meta charset="{self.charsets.get(lang, "utf-8")}">\n' if self.declaration == "meta" else ""
        nav = "".join(
            f'<li{" class=current" if other == lang else ""}><a href="/{other}/index.html" hreflang="{other}">'
            f"{_esc(self.renderers[other].ui('English'))}</a></li>"
            for other in self.langs
        )
        logo = f'<a href="/"><img src="/img/logo.png" alt="{_esc(r.ui("City Guide"))}" width="96" height="32"></a>\n'
        link = (
            f'<p><a href="/files/brochure.pdf">{_esc(r.ui("Download the brochure (PDF)"))}</a></p>\n'
            if self.extras and brochure
            else ""
        )
        return (
            f'<!DOCTYPE html>\n<html lang="{lang}">\n<head>\n{meta}'
            f'<meta name="viewport" content="width=device-width, initial-scale=1">\n'
            f"<title>{_esc(title)}</title>\n"
            f'<link rel="stylesheet" href="/css/site.css">\n'
            + "".join(h + "\n" for h in head)
            + '</head>\n<body>\n<header class="site-header">\n'
            + (logo if self.extras else "")
            + f'<nav class="languages"><ul>{nav}</ul></nav>\n</header>\n'
            f"<main>\n{main}\n</main>\n"
            f'<footer class="site-footer">\n<p>© 2024 {_esc(r.ui("City Guide"))}. {_esc(r.ui("All rights reserved."))}</p>\n'
            f"{link}</footer>\n</body>\n</html>\n"
        )


def _legacy_page(tpl: _Template, lang: str, title: str, body: str, head: Sequence[str] = ()) -> str:
    """The same text in another site's template: a table layout with every block flattened into a
    ``<div>`` and inline markup dropped, as when one language's pages come from another CMS.

    Tag sequences then share almost nothing with the other languages' pages, so only the text
    can tell that they are translations.
    """
    r = tpl.renderers[lang]
    meta = f'<meta charset="{tpl.charsets.get(lang, "utf-8")}">\n' if tpl.declaration == "meta" else ""
    fragment = lxml.html.fragment_fromstring(body, create_parent="div")
    flat: list[str] = []
    for el in fragment.iter("h1", "h2", "h3", "p", "li", "tr"):
        if el.tag == "tr":
            text = " | ".join(" ".join(c.text_content().split()) for c in el if isinstance(c.tag, str))
        else:
            text = " ".join(el.text_content().split())
        if not text:
            continue
        if el.tag in ("h1", "h2", "h3"):
            flat.append(f'<div class="t"><b>{_esc(text)}</b></div>')
        else:
            flat.append(f'<div class="x">{_esc(text)}</div>')
    menu = "".join(
        f'<div class="m"><a href="/{other}/index.html">{_esc(tpl.renderers[other].ui("English"))}</a></div>'
        for other in tpl.langs
    )
    return (
        f'<!DOCTYPE html>\n<html lang="{lang}">\n<head>\n{meta}<title>{_esc(title)}</title>\n'
        + "".join(h + "\n" for h in head)
        + '</head>\n<body bgcolor="#ffffff">\n<table width="100%" cellpadding="4">\n'
        f'<tr><td class="menu" valign="top">{menu}</td>\n<td class="content">\n'
        + "\n".join(flat)
        + f'\n</td></tr>\n</table>\n<div class="foot">{_esc(r.ui("City Guide"))}</div>\n</body>\n</html>\n'
    )


def _hreflang_links(paths: Mapping[str, str]) -> list[str]:
    if len(paths) < 2:
        return []
    return [f'<link rel="alternate" hreflang="{lang}" href="{quote(path)}">' for lang, path in paths.items()]


def _link_list(entries: Sequence[tuple[str, str]], css: str) -> str:
    items = "".join(f'<li><a href="{quote(path)}">{_esc(text)}</a></li>' for path, text in entries)
    return f'<ul class="{css}">{items}</ul>'


def _related(doc: _Doc, lang: str, pool: Sequence[_Doc], seed: int) -> list[_Doc]:
    """Three other documents to link to: chosen per document, so translations mostly agree."""
    if len(pool) < 2:
        return []
    rng = random.Random(_derive(seed, "related", doc.id))
    wanted = [d for d in rng.sample(pool, min(len(pool), 5)) if d.id != doc.id]
    chosen = [d for d in wanted if lang in d.langs][:3]
    fallback = random.Random(_derive(seed, "related", doc.id, lang))
    for _ in range(6):
        if len(chosen) >= 3:
            break
        d = _choice(fallback, pool)
        if lang in d.langs and d.id != doc.id and d not in chosen:
            chosen.append(d)
    return chosen


def _doc_page(
    doc: _Doc, lang: str, tpl: _Template, pool: Sequence[_Doc], seed: int, legacy: bool = False
) -> str:
    r = tpl.renderers[lang]
    if legacy:
        return _legacy_page(tpl, lang, doc.titles[lang], doc.bodies[lang])
    main = f"<article>\n{doc.bodies[lang]}\n</article>"
    related = _related(doc, lang, pool, seed) if doc.role in ("regular", "hard_negative") else []
    if related:
        links = _link_list([(d.paths[lang], d.titles[lang]) for d in related], "related")
        main += f"\n<aside>\n<h2>{_esc(r.ui('See also'))}</h2>\n{links}\n</aside>"
    head = _hreflang_links(doc.paths) if tpl.extras else []
    brochure = doc.id % 7 == 0
    return tpl.page(lang, doc.titles[lang], main, head, brochure=brochure)


@dataclass(frozen=True)
class _HomeContext:
    intro: Mapping[str, str]  # lang -> introduction paragraph HTML
    primary: str
    home_paths: Mapping[str, str]
    private_path: str


def _listing_pages(lang: str, entries: Sequence[_Doc], tpl: _Template, ctx: _HomeContext) -> dict[str, str]:
    """The language's home page and its continuation pages, path -> HTML."""
    r = tpl.renderers[lang]
    chunks = [entries[i : i + LISTING_PAGE_SIZE] for i in range(0, len(entries), LISTING_PAGE_SIZE)] or [[]]
    paths = [f"/{lang}/index.html"] + [f"/{lang}/index-{k}.html" for k in range(2, len(chunks) + 1)]
    pages = {}
    for k, (path, chunk) in enumerate(zip(paths, chunks, strict=True)):
        title = r.ui("City Guide") if k == 0 else f"{r.ui('City Guide')} – {r.ui('Page')} {k + 1}"
        parts = [f"<h1>{_esc(title)}</h1>"]
        if k == 0:
            parts.append(ctx.intro[lang])
        parts.append(f"<h2>{_esc(r.ui('All pages'))}</h2>")
        parts.append(_link_list([(d.paths[lang], d.titles[lang]) for d in chunk], "pages"))
        if len(chunks) > 1:
            nums = "".join(f'<li><a href="{p}">{n}</a></li>' for n, p in enumerate(paths, 1))
            parts.append(f'<nav class="pagination"><ul>{nums}</ul></nav>')
        head: list[str] = []
        if tpl.extras and k == 0:
            head = _hreflang_links(ctx.home_paths)
            if lang == ctx.primary:
                head.append(
                    f'<link rel="alternate" type="application/rss+xml" title="{_esc(r.ui("News"))}" href="/feed.xml">'
                )
                parts.append(f'<p><a href="{ctx.private_path}">{_esc(r.ui("Staff area"))}</a></p>')
        pages[path] = tpl.page(lang, title, "\n".join(parts), head, brochure=k == 0)
    return pages


def _root_page(tpl: _Template) -> str:
    items = "".join(
        f'<li><a href="/{lang}/index.html" hreflang="{lang}" lang="{lang}">'
        f"{_esc(tpl.renderers[lang].ui('City Guide'))} ({_esc(tpl.renderers[lang].ui('English'))})</a></li>"
        for lang in tpl.langs
    )
    meta = '<meta charset="utf-8">\n' if tpl.declaration == "meta" else ""
    title = " · ".join(tpl.renderers[lang].ui("City Guide") for lang in tpl.langs)
    return (
        f"<!DOCTYPE html>\n<html>\n<head>\n{meta}<title>{_esc(title)}</title>\n"
        f'<link rel="stylesheet" href="/css/site.css">\n</head>\n<body>\n'
        f'<main>\n<h1>{_esc(title)}</h1>\n<ul class="languages">{items}</ul>\n</main>\n</body>\n</html>\n'
    )


# --------------------------------------------------------------------------------------------------
# Extras: robots.txt, sitemap, feed, binary files


def _robots(base_url: str) -> str:
    return f"User-agent: *\nDisallow: /private/\n\nSitemap: {base_url}/sitemap.xml\n"


def _sitemap(urls: Sequence[str]) -> str:
    body = "".join(
        f"<url><loc>{html.escape(u)}</loc><lastmod>{(date(2024, 1, 1) + timedelta(days=i % 300)).isoformat()}</lastmod></url>\n"
        for i, u in enumerate(urls)
    )
    return (
        '<?xml version="1.0" encoding="UTF-8"?>\n'
        '<urlset xmlns="http://www.sitemaps.org/schemas/sitemap/0.9">\n' + body + "</urlset>\n"
    )


def _feed(base_url: str, title: str, items: Sequence[tuple[str, str]]) -> str:
    day = datetime(2024, 6, 1, 9, 0, tzinfo=timezone.utc)
    entries = "".join(
        f"<item><title>{html.escape(t)}</title><link>{html.escape(u)}</link><guid>{html.escape(u)}</guid>"
        f"<pubDate>{format_datetime(day - timedelta(days=i))}</pubDate></item>\n"
        for i, (u, t) in enumerate(items)
    )
    return (
        '<?xml version="1.0" encoding="utf-8"?>\n<rss version="2.0">\n<channel>\n'
        f"<title>{html.escape(title)}</title>\n<link>{base_url}/</link>\n"
        f"<description>{html.escape(title)}</description>\n{entries}</channel>\n</rss>\n"
    )


def _png(width: int = 96, height: int = 32) -> bytes:
    """A small valid PNG: a two-colour banner."""

    def chunk(kind: bytes, data: bytes) -> bytes:
        return (
            struct.pack(">I", len(data))
            + kind
            + data
            + struct.pack(">I", zlib.crc32(kind + data) & 0xFFFFFFFF)
        )

    rows = b"".join(
        b"\x00"
        + b"".join(b"\x1f\x5f\x9f" if (x // 8 + y // 8) % 2 else b"\xf0\xf0\xe0" for x in range(width))
        for y in range(height)
    )
    header = struct.pack(">IIBBBBB", width, height, 8, 2, 0, 0, 0)
    return (
        b"\x89PNG\r\n\x1a\n"
        + chunk(b"IHDR", header)
        + chunk(b"IDAT", zlib.compress(rows, 9))
        + chunk(b"IEND", b"")
    )


def _pdf(seed: int) -> bytes:
    rng = random.Random(_derive(seed, "pdf"))
    return b"%PDF-1.4\n%\xe2\xe3\xcf\xd3\n" + rng.randbytes(16384) + b"\n%%EOF\n"


_CSS = "body{font-family:sans-serif;max-width:48em;margin:auto}nav ul{list-style:none;display:flex;gap:1em}\n"
