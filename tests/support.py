"""Helpers shared by the test modules: crawling a generated site in a subprocess and reading the
result back, and hand-made pages for the pipeline tests.  (Fixtures are in conftest.py.)"""

from __future__ import annotations

import re
import subprocess
import sys
from pathlib import Path

from bitext_spider.crawl.seeds import Site
from bitext_spider.items import PageItem
from bitext_spider.store.database import Store

ROOT = Path(__file__).resolve().parents[1]
PROJECT = "bitext_spider"  # scrapy.cfg [deploy] project (the Scrapyd tests)
FAST = ["-s", "AUTOTHROTTLE_START_DELAY=0", "-s", "LOG_LEVEL=INFO", "-s", "BITEXT_LOGSTATS_INTERVAL=1"]


def scrapy_crawl(seeds: Path | str, db: str, *extra: str, timeout: float = 240) -> subprocess.CompletedProcess:
    cmd = [sys.executable, "-m", "scrapy", "crawl", "site", "-a", f"seeds={seeds}", "-s", f"BITEXT_DB_URL={db}",
           *FAST, *extra]
    return subprocess.run(cmd, cwd=ROOT, capture_output=True, text=True, timeout=timeout)


def stat(log: str, name: str) -> int | None:
    m = re.search(rf"'{re.escape(name)}': (\d+)", log)
    return int(m.group(1)) if m else None


def pairs_of(db: str) -> set[frozenset[str]]:
    store = Store(db, create=False)
    try:
        return {frozenset((r.url1, r.url2)) for r in store.pairs()}
    finally:
        store.close()


def page_urls(db: str) -> list[str]:
    store = Store(db, create=False)
    try:
        return [p.url for p in store.pages()]
    finally:
        store.close()


def gold_of(info) -> set[frozenset[str]]:
    return {frozenset((u1, u2)) for _, u1, _, u2 in info.gold}


# -- hand-made pages --------------------------------------------------------------------------------
SITE = Site("s.test", ("http://s.test/",), frozenset({"s.test"}))

EN_A = ["Opening hours of the city library", "The library is open every day from nine in the morning.",
        "Children can borrow books for three weeks without paying anything at all.",
        "Please bring your card when you visit us."]
FR_A = ["Horaires d'ouverture de la bibliothèque municipale",
        "La bibliothèque est ouverte tous les jours à partir de neuf heures du matin.",
        "Les enfants peuvent emprunter des livres pendant trois semaines sans rien payer du tout.",
        "Merci d'apporter votre carte lors de votre visite."]
EN_B = ["How to recycle your household waste", "Glass goes into the green container near the market.",
        "Paper and cardboard are collected on Tuesday mornings in every street of the old town, "
        "and the collection starts very early so put them out the evening before.",
        "Batteries must be returned to a shop.", "Thank you for keeping the city clean."]
EN_B_LIST = "<ul>" + "".join(f"<li><a href='/w/{i}'>Waste type {i}</a></li>" for i in range(8)) + "</ul>"


def page_html(lang, blocks):
    body = "".join(f"<p>{b}</p>" for b in blocks[1:])
    return (f'<html lang="{lang}"><head><title>{blocks[0]}</title></head><body><nav><a href="/">Home</a></nav>'
            f"<h1>{blocks[0]}</h1>{body}<footer><p>City of Example</p></footer></body></html>")


def item(url, html, encoding="utf-8", content_type=None):
    return PageItem(url=url, site=SITE.key, body=html.encode(encoding),
                    content_type=content_type or f"text/html; charset={encoding}")
