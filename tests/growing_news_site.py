"""A small two-edition news site that gains articles from one day to the next, for the repeated
crawl test (bitext_spider.crawl.recrawl).

English articles at ``/en/YYYY/MM/DD/<slug>.html`` in a semantic template and German ones at
``/de/artikel/<n>.htm`` in a table layout with the date in ``article:published_time``; each
edition has a listing page (newest first) and an RSS feed; the home page links both.  Article
texts are the headings and paragraphs of W3C i18n pages that exist in English and German
(``../shared/data/w3c-i18n``).  Article ``i`` is published on day ``i``; :func:`build` with
``articles=n`` writes the site as it is once the first ``n`` are out, so building again with a
larger ``n`` is the site a day later: new article files, a new listing and feed, the older
article files untouched.
"""

from __future__ import annotations

import csv
import html
import os
from datetime import date, datetime, timedelta, timezone
from email.utils import format_datetime
from pathlib import Path

import lxml.html

FIRST_DAY = date(2024, 3, 1)
_SKIP = {"script", "style", "nav", "header", "footer", "aside", "table", "pre", "figure", "form"}


def _blocks(file: Path) -> list[tuple[str, str]]:
    root = lxml.html.parse(str(file)).getroot()
    out: list[tuple[str, str]] = []
    for el in root.iter("h1", "h2", "h3", "p", "li"):
        if any(a.tag in _SKIP or a.get("id") in ("endlinks", "thefooter", "audience") for a in el.iterancestors()):
            continue
        text = " ".join(el.text_content().split())
        if len(text.split()) >= 3 and not (el.tag == "li" and el.find(".//a") is not None):
            out.append(("h" if el.tag.startswith("h") else "p", text))
    return out


def documents(w3c: Path, n: int) -> list[tuple[str, list[tuple[str, str]], list[tuple[str, str]]]]:
    """``n`` W3C documents with English and German versions: (slug, English blocks, German blocks)."""
    base = (w3c / "hosts.tsv").read_text(encoding="utf-8").split("\n", 1)[0].split("\t")[1]
    gold = (w3c / "gold.tsv").read_text(encoding="utf-8").splitlines()
    pairs = [(u2, u1) for l1, u1, l2, u2 in csv.reader(gold, delimiter="\t") if (l1, l2) == ("de", "en")]
    out = []
    for en_url, de_url in sorted(pairs):
        en = _blocks(w3c / "www" / en_url.removeprefix(base + "/"))
        de = _blocks(w3c / "www" / de_url.removeprefix(base + "/"))
        if len(en) >= 6 and len(de) >= 6 and abs(len(en) - len(de)) <= 2:
            slug = en_url.rstrip("/").rsplit("/", 1)[-1].split(".")[0]
            out.append((slug if slug != "index" else en_url.rstrip("/").rsplit("/", 2)[-2], en, de))
        if len(out) == n:
            break
    return out


def _en_page(title: str, blocks: list[tuple[str, str]], day: date) -> str:
    body = "".join(f"<h2>{html.escape(t)}</h2>" if k == "h" else f"<p>{html.escape(t)}</p>" for k, t in blocks)
    return (f'<!DOCTYPE html><html lang="en"><head><meta charset="utf-8"><title>{html.escape(title)}</title></head>'
            f'<body><header><a href="/en/index.html">The Courier</a></header><main><article>'
            f'<h1>{html.escape(title)}</h1><time datetime="{day.isoformat()}">{day:%d %B %Y}</time>{body}'
            f'</article></main><footer><p>All rights reserved.</p></footer></body></html>')


def _de_page(title: str, blocks: list[tuple[str, str]], day: date) -> str:
    rows = "".join(f'<tr><td class="{"zt" if k == "h" else "tx"}">{html.escape(t)}</td></tr>' for k, t in blocks)
    return (f'<!DOCTYPE html><html><head><meta charset="utf-8"><title>Der Bote - {html.escape(title)}</title>'
            f'<meta property="article:published_time" content="{day.isoformat()}T09:00:00+01:00"></head><body>'
            f'<table class="layout"><tr><td class="seite"><a href="/de/index.html">Startseite</a></td><td>'
            f'<div class="titel">{html.escape(title)}</div><table class="artikel">{rows}</table></td></tr>'
            f'</table><div class="fuss">Alle Rechte vorbehalten.</div></body></html>')


def _listing(lang: str, entries: list[tuple[str, str, date]], feed: str) -> str:
    items = "".join(f'<li><a href="{u}">{html.escape(t)}</a> {d.isoformat()}</li>' for u, t, d in entries)
    return (f'<!DOCTYPE html><html lang="{lang}"><head><meta charset="utf-8"><title>{lang} news</title>'
            f'<link rel="alternate" type="application/rss+xml" href="{feed}"></head><body><ul>{items}</ul>'
            f'</body></html>')


def _feed(base: str, entries: list[tuple[str, str, date]]) -> str:
    items = "".join(
        f"<item><title>{html.escape(t)}</title><link>{base}{u}</link>"
        f"<pubDate>{format_datetime(datetime(d.year, d.month, d.day, 9, tzinfo=timezone.utc))}</pubDate></item>"
        for u, t, d in entries)
    return f'<?xml version="1.0" encoding="utf-8"?><rss version="2.0"><channel><title>news</title>{items}</channel></rss>'


def build(docs, dst: Path, base: str, articles: int, mtime: float) -> list[tuple[str, str, str, str]]:
    """Write the site with the first ``articles`` of ``docs`` out; files written now get
    ``mtime``, files already there are left as they are.  Returns the gold pairs of those articles
    (``de``, German URL, ``en``, English URL)."""
    www = dst / "www"
    dst.mkdir(parents=True, exist_ok=True)
    (dst / "hosts.tsv").write_text(f"www\t{base}\n", encoding="utf-8")
    (dst / "seeds.txt").write_text(f"{base}/index.html\n", encoding="utf-8")
    gold, en_entries, de_entries = [], [], []
    for i, (slug, en, de) in enumerate(docs[:articles]):
        day = FIRST_DAY + timedelta(days=i)
        en_url = f"/en/{day:%Y/%m/%d}/{slug}.html"
        de_url = f"/de/artikel/{1000 + 7 * i}.htm"
        for url, text in ((en_url, _en_page(en[0][1], en[1:], day)), (de_url, _de_page(de[0][1], de[1:], day))):
            path = www / url.lstrip("/")
            if not path.exists():
                _write(path, text, mtime)
        gold.append(("de", base + de_url, "en", base + en_url))
        en_entries.append((en_url, en[0][1], day))
        de_entries.append((de_url, de[0][1], day))
    for lang, entries in (("en", en_entries), ("de", de_entries)):
        entries = entries[::-1]
        _write(www / lang / "index.html", _listing(lang, entries, f"/{lang}/feed.xml"), mtime)
        _write(www / lang / "feed.xml", _feed(base, entries), mtime)
    _write(www / "index.html", '<!DOCTYPE html><html><head><meta charset="utf-8"><title>Courier</title></head>'
           '<body><a href="/en/index.html">English</a> <a href="/de/index.html">Deutsch</a></body></html>', mtime)
    return gold


def _write(path: Path, text: str, mtime: float) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    old = path.read_text(encoding="utf-8") if path.exists() else None
    if old == text:
        return  # unchanged: keeps its Last-Modified
    path.write_text(text, encoding="utf-8")
    os.utime(path, (mtime, mtime))
