#!/usr/bin/env python3
"""Make a development site of newspaper editions that share nothing but content (the PCB setting).

    python benchmarks/make_news_editions.py SRC DST [--langs en,de,es] [--seed 0]
        [--one-language-share 0.2] [--port-base 8210] [--overwrite]

SRC is the W3C i18n site folder (``../shared/data/w3c-i18n``: ``hosts.tsv``, ``pages.tsv``,
``gold.tsv``, the document root), read at run time: none of it belongs in this repository, so DST
must lie outside it. DST gets a multi-host site for ``../shared/bench/serve.py DST`` (and
``benchmarks/evaluate_site.py DST``):

  * one edition per language (two or three; by default en, de, es, which ``../shared/data/dics``
    pairs with English), each on its own port of 127.0.0.1 (``hosts.tsv``: ``edition-a<TAB>
    http://127.0.0.1:8210`` ...) with its own markup, class names, navigation text and masthead:
    A semantic HTML5, B a table layout of divs and spans with the sidebar before the content, C a
    div grid with the article in a section and an aside after it;
  * articles: the headings and paragraphs of the W3C pages' main content (site chrome, code
    examples, figures and tables left out); B merges some consecutive paragraphs, C splits long
    ones at a sentence boundary;
  * article URLs with no token in common across editions and no language code: A
    ``/news/2024/03/05/<slug>.html`` (the date in the URL), B ``/artikel/<6 digits>.htm`` (the date
    in ``<meta property="article:published_time">``), C ``/n/<12 hex>/`` (``<time datetime>``); no
    hreflang, no language switcher, no link between editions;
  * one publication date per article, the same in every edition or a day later, and an RSS 2.0
    feed per edition with ``pubDate`` (``/feed.xml``, ``/rss/top.rss``, ``/feeds/latest.xml``)
    linked from its home page; a home page and paginated listings per edition;
  * print versions (``/print/...``: a bare template with ``<link rel="canonical">`` to the
    article) of 10% of each edition's articles;
  * redirects: serve.py is static and its only redirect is the 301 for a directory URL without its
    final slash, which C's "most read" box uses; two old URLs per edition are meta-refresh pages;
  * ``--one-language-share`` of the articles in one edition only: W3C documents never translated
    into the other chosen languages, and translated ones whose translations are dropped (the kept
    language drawn at random, so every edition has some).

Also ``seeds.txt`` (the home pages on ONE line: one site on several hosts), ``pages.tsv`` (url,
lang of every article page), ``gold.tsv`` (lang1, url1, lang2, url2, lang1 < lang2: pages of the
same W3C document, a connected component of the W3C gold pairs), ``sentences.tsv`` (lang1, url1,
lang2, url2, text1, text2: gold 1-1 sentence pairs of gold page pairs from the W3C source blocks, in
document order; ``news_sentence_gold.py`` says exactly what they are and are not), ``articles.tsv``
(document, lang, url, date, print URL, W3C URL), ``print.tsv``, ``redirects.tsv`` and ``README.md``.
Everything is deterministic from ``--seed``.
"""

from __future__ import annotations

import argparse
import hashlib
import random
import re
import shutil
import sys
import unicodedata
from collections import Counter, defaultdict
from dataclasses import dataclass, field
from datetime import datetime, timedelta, timezone
from email.utils import format_datetime
from html import escape as e
from itertools import chain, count
from pathlib import Path
from urllib.parse import unquote, urlsplit

import lxml.html

sys.path.insert(0, str(Path(__file__).resolve().parent))
from news_sentence_gold import Version, gold_rows, norm  # noqa: E402

ROOT = Path(__file__).resolve().parents[1]
STYLES = "ABC"
PRINT_SHARE = 0.10
PER_PAGE = 10
FEED_ITEMS = 20
FIRST_DAY = datetime(2024, 1, 8, tzinfo=timezone(timedelta(hours=1)))
DAYS = 150

SKIP_TAGS = {"script", "style", "noscript", "header", "nav", "footer", "aside", "figure", "table", "pre",
             "form", "object", "svg", "iframe", "img"}
SKIP_IDS = {"audience", "endlinks", "full-links", "survey", "thefooter", "mainNavigation", "updateInfo"}
SKIP_CLASSES = {"example", "browser_output", "browser_output_title", "figWrap", "sideinfonote"}

# Navigation text per language (a language without an entry gets the English one), in NAV_KEYS order.
NAV_KEYS = ("brand", "home", "archive", "page", "older", "newer", "print", "most_read", "moved", "rss", "footer",
            "by", "redirect")
NAV = {lang: dict(zip(NAV_KEYS, text.split("|"), strict=True)) for lang, text in {
    "en": "The Web Courier|Front page|Archive|Page|Older|Newer|Print this article|Most read|From the archive|"
          "RSS feed|All rights reserved.|Staff report|This page has moved.",
    "de": "Der Netzbote|Startseite|Übersicht|Seite|Ältere|Neuere|Drucken|Meistgelesen|Aus dem Archiv|RSS-Feed|"
          "Alle Rechte vorbehalten.|Redaktion|Diese Seite ist umgezogen.",
    "es": "El Correo Digital|Portada|Hemeroteca|Página|Anteriores|Siguientes|Imprimir|Lo más leído|Del archivo|"
          "Canal RSS|Todos los derechos reservados.|Redacción|Esta página se ha trasladado.",
    "fr": "Le Messager du Web|À la une|Archives|Page|Plus anciens|Plus récents|Imprimer|Les plus lus|"
          "Dans les archives|Flux RSS|Tous droits réservés.|La rédaction|Cette page a été déplacée.",
}.items()}


@dataclass
class Doc:
    """One W3C document: its page per chosen language (url, file)."""

    key: str
    pages: dict[str, tuple[str, Path]]


@dataclass
class Article:
    doc: str
    lang: str
    title: str
    blocks: list[tuple[str, str]]
    date: datetime
    source: str
    path: str = ""
    print_path: str = ""
    teaser: str = ""
    number: int = 0
    source_blocks: list[tuple[str, str]] = field(default_factory=list)


@dataclass
class Edition:
    style: str
    lang: str
    folder: str
    base: str
    nav: dict
    articles: list[Article] = field(default_factory=list)

    @property
    def feed(self) -> str:
        return {"A": "/feed.xml", "B": "/rss/top.rss", "C": "/feeds/latest.xml"}[self.style]

    def listing(self, n: int) -> str:
        return {"A": f"/archive/page-{n}.html", "B": f"/liste/{n}.htm", "C": f"/l/{n}/"}[self.style]


def read_tsv(path: Path) -> list[list[str]]:
    return [line.split("\t") for line in path.read_text("utf-8").splitlines() if line.strip()]


def load_docs(src: Path, langs: list[str]) -> list[Doc]:
    """W3C documents (connected components of the W3C gold pairs) with a page in a chosen language."""
    roots = {base.rstrip("/"): src / folder for folder, base in read_tsv(src / "hosts.tsv")}
    lang_of = {url: lang for url, lang in read_tsv(src / "pages.tsv")}
    parent = {url: url for url in lang_of}

    def find(u: str) -> str:
        while parent[u] != u:
            parent[u] = parent[parent[u]]
            u = parent[u]
        return u

    for _, u1, _, u2 in read_tsv(src / "gold.tsv"):
        parent.setdefault(u1, u1)
        parent.setdefault(u2, u2)
        parent[find(u1)] = find(u2)
    groups: dict[str, dict[str, tuple[str, Path]]] = defaultdict(dict)
    for url, lang in sorted(lang_of.items()):
        if lang not in langs:
            continue
        parts = urlsplit(url)
        file = roots[f"{parts.scheme}://{parts.netloc}"] / unquote(parts.path).lstrip("/")
        if lang in groups[find(url)]:
            raise SystemExit(f"two {lang} pages in one W3C document: {url}")
        groups[find(url)][lang] = (url, file)
    docs = []
    for pages in groups.values():
        first = min(url for url, _ in pages.values())
        key = re.sub(r"^/International/|\.[a-z-]+\.html$", "", urlsplit(first).path)
        docs.append(Doc(key, pages))
    return sorted(docs, key=lambda d: d.key)


def walk(el, out: list[tuple[str, str]]) -> None:
    for child in el:
        if not isinstance(child.tag, str):
            continue
        classes = set((child.get("class") or "").split())
        if child.tag in SKIP_TAGS or child.get("id") in SKIP_IDS or classes & SKIP_CLASSES:
            continue
        kind = "h" if child.tag in ("h2", "h3", "h4", "h5") else "p" if child.tag == "p" or (
            child.tag in ("li", "dd", "dt", "blockquote") and not child.xpath(".//p|.//ul|.//ol|.//div|.//dl")) else None
        if kind is None:
            walk(child, out)
        elif text := norm(child.text_content()):
            out.append((kind, text))


def extract(file: Path) -> tuple[str, list[tuple[str, str]]]:
    """Title and (kind, text) blocks of a W3C page's main content: 'h' headings, 'p' paragraphs."""
    root = lxml.html.parse(str(file)).getroot()
    h1 = root.xpath("//header//h1") or root.xpath("//h1")
    title = norm(h1[0].text_content()) if h1 else norm(root.findtext(".//title") or file.stem)
    blocks: list[tuple[str, str]] = []
    walk(root.find("body"), blocks)
    while blocks and blocks[-1][0] == "h":
        blocks.pop()
    return title, blocks


SENTENCE_END = re.compile(r"(?<=[.!?])\s+(?=[\"“«¿¡(]?[A-ZÀ-ÖØ-Þ])")


def reshape(style: str, blocks: list[tuple[str, str]], rng: random.Random) -> list[tuple[str, str]]:
    """Paragraphing of an edition: editors of B join short paragraphs, those of C cut long ones."""
    out: list[tuple[str, str]] = []
    for kind, text in blocks:
        if style == "B" and kind == "p" and out and out[-1][0] == "p" and rng.random() < 0.35:
            out[-1] = ("p", out[-1][1] + " " + text)
            continue
        if style == "C" and kind == "p" and len(text) > 320 and rng.random() < 0.8:
            cuts = [m.start() for m in SENTENCE_END.finditer(text)]
            if cuts:
                cut = min(cuts, key=lambda c: abs(c - len(text) / 2))
                out += [("p", text[:cut].strip()), ("p", text[cut:].strip())]
                continue
        out.append((kind, text))
    return out


def slug(title: str, banned: set[str]) -> str:
    ascii_title = unicodedata.normalize("NFKD", title).encode("ascii", "ignore").decode().lower()
    words = [w for w in re.split(r"[^a-z0-9]+", ascii_title) if w and w not in banned]
    return "-".join(words)[:60].strip("-") or "story"


def choose(docs: list[Doc], share: float, rng: random.Random) -> list[Doc]:
    """Documents to publish, with ``share`` of them in one edition only (see the module doc)."""
    multi = [d for d in docs if len(d.pages) > 1]
    mono = [d for d in docs if len(d.pages) == 1]
    kept_mono = sorted(rng.sample(mono, min(len(mono), round(share * len(multi) / 2))), key=lambda d: d.key)
    wanted = round(share * (len(multi) + len(kept_mono)))
    for doc in rng.sample(multi, min(len(multi), max(0, wanted - len(kept_mono)))):
        keep = rng.choice(sorted(doc.pages))
        doc.pages = {keep: doc.pages[keep]}
    return sorted(multi + kept_mono, key=lambda d: d.key)


def build_articles(docs: list[Doc], editions: dict[str, Edition], seed: int) -> None:
    banned = set(editions) | {lang.split("-")[0] for lang in editions}
    for doc in docs:
        rng = random.Random(f"{seed}:date:{doc.key}")
        day = FIRST_DAY + timedelta(days=rng.randrange(DAYS))
        first = rng.choice(sorted(doc.pages))
        for lang, (url, file) in sorted(doc.pages.items()):
            ed = editions[lang]
            late = lang != first and rng.random() < 0.3
            date = day + timedelta(days=int(late), hours=rng.randrange(6, 22), minutes=rng.randrange(60))
            title, source = extract(file)
            blocks = reshape(ed.style, source, random.Random(f"{seed}:shape:{doc.key}:{lang}"))
            first_p = next((t for k, t in blocks if k == "p"), "")
            teaser = SENTENCE_END.split(first_p)[0][:220]
            ed.articles.append(Article(doc.key, lang, title, blocks, date, url, teaser=teaser, source_blocks=source))
    for ed in editions.values():
        rng = random.Random(f"{seed}:urls:{ed.lang}")
        ed.articles.sort(key=lambda a: (a.date, a.doc))
        numbers = sorted(rng.sample(range(100000, 1000000), len(ed.articles)))
        used: set[str] = set()
        for art, number in zip(ed.articles, numbers, strict=True):
            if ed.style == "A":
                base = slug(art.title, banned)
                name = next(n for n in chain([base], (f"{base}-{i}" for i in count(2))) if n not in used)
                used.add(name)
                art.path = f"/news/{art.date:%Y/%m/%d}/{name}.html"
            elif ed.style == "B":
                art.number = number
                art.path = f"/artikel/{number}.htm"
            else:
                art.path = "/n/" + hashlib.sha1(f"{seed}:{ed.lang}:{art.doc}".encode()).hexdigest()[:12] + "/"
        for art in rng.sample(ed.articles, round(PRINT_SHARE * len(ed.articles))):
            art.print_path = "/print" + art.path
        ed.articles.reverse()  # newest first, as a newspaper lists them


def human_date(style: str, d: datetime) -> str:
    return {"A": f"{d:%Y-%m-%d}", "B": f"{d:%d.%m.%Y, %H:%M}", "C": f"{d.day}/{d.month}/{d.year}"}[style]


def body_html(ed: Edition, art: Article) -> str:
    if ed.style == "A":
        return "\n".join(f"<h2>{e(t)}</h2>" if k == "h" else f"<p>{e(t)}</p>" for k, t in art.blocks)
    if ed.style == "B":
        return "\n".join(f'<div class="zt"><b>{e(t)}</b></div>' if k == "h"
                         else f'<div class="txt"><span class="absatz">{e(t)}</span></div>' for k, t in art.blocks)
    lead = next((i for i, (k, _) in enumerate(art.blocks) if k == "p"), -1)
    return "\n".join(f'<h4 class="cross">{e(t)}</h4>' if k == "h" else f'<p class="lead">{e(t)}</p>' if i == lead
                     else f"<p>{e(t)}</p>" for i, (k, t) in enumerate(art.blocks))


def most_read(ed: Edition, seed: int) -> list[Article]:
    return random.Random(f"{seed}:popular:{ed.lang}").sample(ed.articles, min(5, len(ed.articles)))


def page(ed: Edition, title: str, main: str, seed: int, head: str = "", is_home: bool = False) -> str:
    """A whole page of the edition around ``main``."""
    nav = ed.nav
    if is_home:
        head += f'<link rel="alternate" type="application/rss+xml" title="{e(nav["rss"])}" href="{ed.feed}">'
    if ed.style == "A":
        return f"""<!DOCTYPE html>
<html lang="{ed.lang}">
<head><meta charset="utf-8"><title>{e(title)} | {e(nav["brand"])}</title>{head}
<style>body{{font-family:Georgia,serif;max-width:48em;margin:auto}}.masthead a{{text-decoration:none}}</style></head>
<body>
<header class="masthead"><p class="brand"><a href="/">{e(nav["brand"])}</a></p>
<nav class="primary"><ul><li><a href="/">{e(nav["home"])}</a></li><li><a href="{ed.listing(1)}">{e(nav["archive"])}</a></li><li><a href="{ed.feed}">{e(nav["rss"])}</a></li></ul></nav>
</header>
<main id="content">
{main}
</main>
<footer class="site-footer"><p>© 2024 {e(nav["brand"])}. {e(nav["footer"])}</p></footer>
</body>
</html>
"""
    if ed.style == "B":
        box = "".join(f'<div class="bl"><a href="{a.path}">{e(a.title)}</a></div>' for a in most_read(ed, seed))
        return f"""<html>
<head><meta http-equiv="Content-Type" content="text/html; charset=utf-8">
<title>{e(nav["brand"])} - {e(title)}</title>{head}</head>
<body bgcolor="#ffffff" topmargin="0">
<table class="rahmen" width="100%" cellpadding="0" cellspacing="0" border="0">
<tr><td class="kopf" colspan="2"><span class="signet"><a href="/">{e(nav["brand"])}</a></span></td></tr>
<tr><td class="leiste" valign="top" width="190">
<div class="menue"><div class="mp"><a href="/">{e(nav["home"])}</a></div><div class="mp"><a href="{ed.listing(1)}">{e(nav["archive"])}</a></div><div class="mp"><a href="{ed.feed}">{e(nav["rss"])}</a></div></div>
<div class="kasten"><span class="kastentitel">{e(nav["most_read"])}</span>{box}</div>
</td><td class="inhalt" valign="top">
{main}
</td></tr>
<tr><td class="fuss" colspan="2"><span class="klein">© {e(nav["brand"])} 2024 - {e(nav["footer"])}</span></td></tr>
</table>
</body>
</html>
"""
    # The slash is left off on purpose: serve.py answers these with a 301 to the article.
    box = "".join(f'<li><a href="{a.path.rstrip("/")}">{e(a.title)}</a></li>' for a in most_read(ed, seed))
    return f"""<!doctype html>
<html lang="{ed.lang}">
<head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1">
<title>{e(title)}</title>{head}</head>
<body><div id="wrap">
<div class="topbar"><div class="logo"><a href="/">{e(nav["brand"])}</a></div>
<ul class="menu"><li class="menu-item"><a href="/">{e(nav["home"])}</a></li><li class="menu-item"><a href="{ed.listing(1)}">{e(nav["archive"])}</a></li></ul></div>
<div class="grid"><div class="col-main">
{main}
</div>
<aside class="col-side"><h5 class="side-title">{e(nav["most_read"])}</h5><ol class="popular">{box}</ol>
<p class="feed"><a href="{ed.feed}">{e(nav["rss"])}</a></p></aside></div>
<div class="bottom"><small>© 2024 {e(nav["brand"])} · {e(nav["footer"])}</small></div>
</div></body>
</html>
"""


def article_page(ed: Edition, art: Article, seed: int) -> str:
    text, nav = body_html(ed, art), ed.nav
    tools = f'<a href="{art.print_path}">{e(nav["print"])}</a>' if art.print_path else ""
    if ed.style == "A":
        main = f"""<article class="story">
<h1 class="headline">{e(art.title)}</h1>
<p class="byline">{e(nav["by"])} · {human_date("A", art.date)}</p>
{text}
<p class="tools">{tools}</p>
</article>"""
        return page(ed, art.title, main, seed)
    if ed.style == "B":
        meta = f'<meta property="article:published_time" content="{art.date.isoformat()}">'
        main = f"""<div class="artikel">
<div class="titel"><span class="ueberschrift"><b>{e(art.title)}</b></span></div>
<div class="autor"><span>{e(nav["by"])}</span></div>
{text}
<div class="druck">{tools}</div>
</div>"""
        return page(ed, art.title, main, seed, head=meta)
    main = f"""<section class="nota">
<div class="nota-head"><h2 class="nota-title">{e(art.title)}</h2>
<time class="pub" datetime="{art.date.isoformat()}">{human_date("C", art.date)}</time></div>
<div class="nota-body">
{text}
</div>
<div class="nota-tools">{tools}</div>
</section>"""
    return page(ed, art.title, main, seed)


def print_page(ed: Edition, art: Article) -> str:
    blocks = "\n".join(f"<h2>{e(t)}</h2>" if k == "h" else f"<p>{e(t)}</p>" for k, t in art.blocks)
    return f"""<html>
<head><meta charset="utf-8"><title>{e(art.title)}</title>
<link rel="canonical" href="{ed.base}{art.path}"><meta name="robots" content="noindex"></head>
<body onload="window.print()">
<h1>{e(art.title)}</h1>
<p>{e(ed.nav["brand"])}, {human_date(ed.style, art.date)}</p>
{blocks}
</body>
</html>
"""


def listing_html(ed: Edition, arts: list[Article], teasers: bool) -> str:
    items = []
    for a in arts:
        more = f" {e(a.teaser)}" if teasers and a.teaser else ""
        when = human_date(ed.style, a.date)
        if ed.style == "A":
            items.append(f'<li class="teaser"><h3><a href="{a.path}">{e(a.title)}</a></h3><p>{when}.{more}</p></li>')
        elif ed.style == "B":
            items.append(f'<tr><td class="datum"><span>{when}</span></td>'
                         f'<td class="zeile"><a href="{a.path}"><b>{e(a.title)}</b></a><br><span>{more}</span></td></tr>')
        else:
            items.append(f'<div class="card"><a class="card-link" href="{a.path}">{e(a.title)}</a>'
                         f'<span class="card-date">{when}</span><div class="card-text">{more}</div></div>')
    start, end = {"A": ('<ul class="teasers">', "</ul>"), "B": ('<table class="liste" cellpadding="2">', "</table>"),
                  "C": ('<div class="cards">', "</div>")}[ed.style]
    return start + "\n".join(items) + end


def home_page(ed: Edition, redirects: list[tuple[str, Article]], seed: int) -> str:
    moved = "".join(f'<li><a href="{old}">{e(a.title)}</a></li>' for old, a in redirects)
    main = (f'<div class="home"><h1 class="section-title">{e(ed.nav["home"])}</h1>\n'
            f"{listing_html(ed, ed.articles[:8], teasers=True)}\n"
            f'<p class="more"><a href="{ed.listing(1)}">{e(ed.nav["archive"])}</a></p>\n'
            f'<div class="moved"><p>{e(ed.nav["moved"])}</p><ul>{moved}</ul></div></div>')
    return page(ed, ed.nav["brand"], main, seed, is_home=True)


def archive_pages(ed: Edition, seed: int) -> dict[str, str]:
    chunks = [ed.articles[i:i + PER_PAGE] for i in range(0, len(ed.articles), PER_PAGE)] or [[]]
    pages = {}
    for n, arts in enumerate(chunks, 1):
        links = [f'<a rel="prev" href="{ed.listing(n - 1)}">{e(ed.nav["newer"])}</a>'] if n > 1 else []
        links += [f'<a rel="next" href="{ed.listing(n + 1)}">{e(ed.nav["older"])}</a>'] if n < len(chunks) else []
        title = f'{ed.nav["archive"]} - {ed.nav["page"]} {n}'
        main = (f'<div class="archive"><h1 class="section-title">{e(title)}</h1>\n{listing_html(ed, arts, False)}\n'
                f'<p class="pager">{" | ".join(links)}</p></div>')
        pages[ed.listing(n)] = page(ed, title, main, seed)
    return pages


def feed_xml(ed: Edition) -> str:
    items = "".join(f"""
<item><title>{e(a.title)}</title><link>{ed.base}{a.path}</link><guid isPermaLink="true">{ed.base}{a.path}</guid>
<pubDate>{format_datetime(a.date)}</pubDate><description>{e(a.teaser)}</description></item>"""
                    for a in ed.articles[:FEED_ITEMS])
    return f"""<?xml version="1.0" encoding="utf-8"?>
<rss version="2.0"><channel><title>{e(ed.nav["brand"])}</title><link>{ed.base}/</link>
<description>{e(ed.nav["brand"])}</description>{items}
</channel></rss>
"""


def refresh_page(ed: Edition, target: str) -> str:
    return f"""<!DOCTYPE html>
<html><head><meta charset="utf-8"><meta http-equiv="refresh" content="0; url={ed.base}{target}">
<title>{e(ed.nav["redirect"])}</title></head>
<body><p><a href="{target}">{e(ed.nav["redirect"])}</a></p></body></html>
"""


def old_url(ed: Edition, art: Article, n: int) -> str:
    return {"A": f"/stories/{n}.html", "B": f"/alt/a{art.number}.htm",
            "C": f"/go/{hashlib.sha1(art.path.encode()).hexdigest()[:6]}/"}[ed.style]


def write(root: Path, path: str, text: str) -> None:
    file = root / (path.lstrip("/") + ("index.html" if path.endswith("/") else ""))
    file.parent.mkdir(parents=True, exist_ok=True)
    file.write_text(text, "utf-8")


def write_edition(dst: Path, ed: Edition, seed: int) -> list[tuple[str, str, str]]:
    root = dst / ed.folder
    rng = random.Random(f"{seed}:redirects:{ed.lang}")
    redirects = [(old_url(ed, a, 1000 + i), a) for i, a in enumerate(rng.sample(ed.articles, min(2, len(ed.articles))))]
    write(root, "/index.html", home_page(ed, redirects, seed))
    for path, text in archive_pages(ed, seed).items():
        write(root, path, text)
    for art in ed.articles:
        write(root, art.path, article_page(ed, art, seed))
        if art.print_path:
            write(root, art.print_path, print_page(ed, art))
    write(root, ed.feed, feed_xml(ed))
    for old, art in redirects:
        write(root, old, refresh_page(ed, art.path))
    rows = [(ed.base + old, ed.base + a.path, "meta-refresh") for old, a in redirects]
    if ed.style == "C":
        rows += [(ed.base + a.path.rstrip("/"), ed.base + a.path, "301 (serve.py, directory without slash)")
                 for a in most_read(ed, seed)]
    return rows


def write_tsv(path: Path, rows) -> None:
    path.write_text("".join("\t".join(map(str, r)) + "\n" for r in rows), "utf-8")


def readme(src: Path, options: str, eds: list[Edition], gold, one_language: int, n_docs: int, notice: str) -> str:
    by_pair = Counter((l1, l2) for l1, _, l2, _ in gold)
    table = "".join(f"| {ed.style} | {ed.folder} | {ed.lang} | {ed.base} | {len(ed.articles)} | "
                    f"{sum(bool(a.print_path) for a in ed.articles)} | {ed.feed} |\n" for ed in eds)
    return f"""# Newspaper editions that share nothing but content ({len(eds)} editions)

Built by `benchmarks/make_news_editions.py` (bitext-spider) from `{src}`, the W3C Internationalization
articles, with `{options}`; its docstring says what each edition looks like. Serve with `python
../shared/bench/serve.py THIS_FOLDER`, crawl `seeds.txt`, score with `gold.tsv` (page pairs) and
`sentences.tsv` (sentence pairs, `benchmarks/compare_sentence_alignment.py`).

| edition | folder | language | base URL | articles | print pages | feed |
|---|---|---|---|---|---|---|
{table}
{n_docs} articles (W3C documents), {one_language} of them in one edition only; {len(gold)} gold pairs:
{", ".join(f"{a}-{b} {n}" for (a, b), n in sorted(by_pair.items()))}.

Gold comes from article identity (the same W3C document: a connected component of the W3C gold
pairs), never from a crawler's output. Print pages and redirects are in neither `pages.tsv` nor
`gold.tsv`; `print.tsv` and `redirects.tsv` list them. `serve.py` is static, so old URLs are
`<meta http-equiv="refresh">` pages; its only 301s answer edition C's article URLs written
without their final slash (its "most read" box).

## Source notice

{notice.strip()}
"""


def build(src: Path, dst: Path, langs: list[str], seed: int = 0, share: float = 0.2, port_base: int = 8210) -> dict:
    """Write the site into ``dst`` (which must not exist or be empty); returns a summary."""
    editions = {lang: Edition(style, lang, f"edition-{style.lower()}", f"http://127.0.0.1:{port_base + i}",
                              NAV.get(lang, NAV["en"]))
                for i, (style, lang) in enumerate(zip(STYLES, langs, strict=False))}
    rng = random.Random(f"{seed}:choose")
    docs = choose(load_docs(src, langs), share, rng)
    build_articles(docs, editions, seed)
    dst.mkdir(parents=True, exist_ok=True)
    redirects = []
    for ed in editions.values():
        redirects += write_edition(dst, ed, seed)
    by_doc: dict[str, list[Version]] = defaultdict(list)
    for ed in editions.values():
        for a in ed.articles:
            by_doc[a.doc].append((a.lang, ed.base + a.path, a.title, a.source_blocks, a.blocks))
    gold = sorted((*p[:2], *q[:2]) for pages in by_doc.values() for p in pages for q in pages if p[0] < q[0])
    sentences = sorted((r for pages in by_doc.values() for r in gold_rows(pages)), key=lambda r: r[:4])
    one_language = sum(len(pages) == 1 for pages in by_doc.values())
    eds = list(editions.values())
    write_tsv(dst / "hosts.tsv", [(ed.folder, ed.base) for ed in eds])
    (dst / "seeds.txt").write_text(" ".join(ed.base + "/" for ed in eds) + "\n", "utf-8")
    write_tsv(dst / "pages.tsv", sorted((ed.base + a.path, a.lang) for ed in eds for a in ed.articles))
    write_tsv(dst / "gold.tsv", gold)
    write_tsv(dst / "sentences.tsv", sentences)
    write_tsv(dst / "articles.tsv", sorted((a.doc, a.lang, ed.base + a.path, a.date.isoformat(),
                                            ed.base + a.print_path if a.print_path else "", a.source)
                                           for ed in eds for a in ed.articles))
    write_tsv(dst / "print.tsv", sorted((ed.base + a.print_path, ed.base + a.path)
                                        for ed in eds for a in ed.articles if a.print_path))
    write_tsv(dst / "redirects.tsv", redirects)
    notice = (src / "NOTICE").read_text("utf-8") if (src / "NOTICE").is_file() else "Pages © W3C."
    options = f"--langs {','.join(langs)} --seed {seed} --one-language-share {share} --port-base {port_base}"
    (dst / "README.md").write_text(readme(src, options, eds, gold, one_language, len(by_doc), notice), "utf-8")
    return {"articles": {ed.lang: len(ed.articles) for ed in eds}, "gold": len(gold), "documents": len(by_doc),
            "one_language": one_language, "print": sum(bool(a.print_path) for ed in eds for a in ed.articles),
            "redirects": len(redirects), "sentences": len(sentences), "sentence_pairs": len({r[:4] for r in sentences})}


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("src", type=Path, help="the W3C i18n site folder (hosts.tsv, pages.tsv, gold.tsv, www/)")
    ap.add_argument("dst", type=Path, help="output folder, outside this repository (empty unless --overwrite)")
    ap.add_argument("--langs", default="en,de,es", help="two or three languages of SRC, one edition each")
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--one-language-share", type=float, default=0.2)
    ap.add_argument("--port-base", type=int, default=8210, help="edition i is served on port-base + i")
    ap.add_argument("--overwrite", action="store_true", help="replace DST when it holds a site made before")
    a = ap.parse_args(argv)
    langs = [x.strip() for x in a.langs.split(",") if x.strip()]
    src, dst = a.src.resolve(), a.dst.resolve()
    if not 2 <= len(langs) <= len(STYLES) or len(set(langs)) != len(langs):
        ap.error(f"--langs needs two or three different languages, got {a.langs!r}")
    if not 0 <= a.one_language_share <= 1:
        ap.error("--one-language-share must be between 0 and 1")
    if not 1024 <= a.port_base <= 65535 - len(langs):
        ap.error("--port-base must leave room for one port per edition")
    if not all((src / name).is_file() for name in ("hosts.tsv", "pages.tsv", "gold.tsv")):
        ap.error(f"{src} lacks hosts.tsv, pages.tsv or gold.tsv")
    known = {lang for _, lang in read_tsv(src / "pages.tsv")}
    if missing := [x for x in langs if x not in known]:
        ap.error(f"no pages in {', '.join(missing)} in {src} (it has {', '.join(sorted(known))})")
    if dst == ROOT or ROOT in dst.parents:
        ap.error("DST must lie outside the repository: the W3C text may not be copied into it")
    if dst == src or src in dst.parents or dst in src.parents:
        ap.error("SRC and DST must not overlap")
    if dst.exists() and any(dst.iterdir()):
        if not a.overwrite:
            ap.error(f"{dst} is not empty (use --overwrite to replace a site made before)")
        if not (dst / "articles.tsv").is_file():
            ap.error(f"{dst} does not look like a site made by this script (no articles.tsv): not removing it")
        shutil.rmtree(dst)
    summary = build(src, dst, langs, a.seed, a.one_language_share, a.port_base)
    print(f"wrote {dst}: {summary}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
