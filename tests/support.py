"""Helpers shared by the test modules: crawling a generated site in a subprocess and reading the
result back, and hand-made pages for the pipeline tests.  (Fixtures are in conftest.py.)"""

from __future__ import annotations

import os
import re
import signal
import subprocess
import sys
import time
from datetime import date
from pathlib import Path

import numpy as np
from sqlalchemy import insert

from bitext_spider.crawl.seeds import Site
from bitext_spider.items import PageItem
from bitext_spider.store.database import Store
from bitext_spider.store.models import CandidateRow, PageRow, PairRow, SentenceRow, SiteRow, make_engine
from matchers.content.dictionary_filter import BilingualDictionary
from matchers.page.page_content import page_content
from matchers.site.page_index import PageFeatures, SiteIndex

ROOT = Path(__file__).resolve().parents[1]
PROJECT = "bitext_spider"  # scrapy.cfg [deploy] project (the Scrapyd tests)
FAST = ["-s", "AUTOTHROTTLE_START_DELAY=0", "-s", "LOG_LEVEL=INFO", "-s", "BITEXT_LOGSTATS_INTERVAL=1"]


def scrapy_crawl(seeds: Path | str, db: str, *extra: str, timeout: float = 240) -> subprocess.CompletedProcess:
    cmd = [sys.executable, "-m", "scrapy", "crawl", "site", "-a", f"seeds={seeds}", "-s", f"BITEXT_DB_URL={db}",
           *FAST, *extra]
    return subprocess.run(cmd, cwd=ROOT, capture_output=True, text=True, timeout=timeout)


def kill_once_stored(cmd: list[str], db: str, pages: int, timeout: float = 120) -> None:
    """Run the crawl ``cmd`` and SIGKILL it once ``pages`` pages are stored in ``db`` (or at
    ``timeout``), as a crash would."""
    proc = subprocess.Popen(cmd, cwd=ROOT, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    deadline = time.time() + timeout
    db_file = Path(db.removeprefix("sqlite:///"))
    while time.time() < deadline:
        if db_file.exists():
            try:
                if len(page_urls(db)) >= pages:
                    break
            except Exception:  # the schema may not exist yet
                pass
        time.sleep(0.1)
    os.kill(proc.pid, signal.SIGKILL)
    proc.wait()


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


# -- a small corpus database (the export tests) --------------------------------------------------------
XML_LANG = "{http://www.w3.org/XML/1998/namespace}lang"

PAGES = {
    1: ("http://a/en1", "en"), 2: ("http://a/fr1", "fr"), 3: ("http://a/en2", "en"),
    4: ("http://a/fr2", "fr"), 5: ("http://a/en3", "en"), 6: ("http://a/fr3", "fr"),
    7: ("http://a/de1", "de"), 8: ("http://a/fr4", "fr"), 9: ("http://a/en4", "en"),
}
# (page1, page2, score); (5, 6) is only a candidate
PAIRS = [(1, 2, 0.9), (3, 4, 0.8), (1, 7, 0.7), (8, 9, 0.6)]
SENTENCES = {
    (1, 2): [("Hello world.", "Bonjour le monde.", 0.5), ("Good  bye\n", "Au\trevoir", 0.6),
             ("Ctrl\x01 char\x0bhere", "Contr\u00f4le\x1f ici\x00", 0.3), ("   ", "vide", 0.9)],
    (3, 4): [("Only here", "Seulement ici", 0.4)],
    (1, 7): [("Hello world.", "Hallo Welt.", 0.8)],
    # page 8 is French, so text1 is French: the same pair as (1, 2)'s first, seen from the other side
    (8, 9): [("Bonjour  le monde.", " Hello world.", 0.7)],
    (5, 6): [("Not final", "Pas final", 0.99)],
}


def build_db(path, pages=PAGES, pairs=PAIRS, sentences=SENTENCES):
    """A database with these pages, final pairs (candidates too) and sentences (candidates if not pairs)."""
    engine = make_engine(f"sqlite:///{path}")
    langs = {pid: lang for pid, (_url, lang) in pages.items()}

    def pair(a, b, score):
        return dict(site_id=1, page1_id=a, page2_id=b, lang1=langs[a], lang2=langs[b], score=score)

    final = [pair(a, b, s) for a, b, s in pairs]
    others = [pair(a, b, 0.5) for a, b in sentences if (a, b) not in {(x, y) for x, y, _ in pairs}]
    with engine.begin() as conn:
        conn.execute(insert(SiteRow.__table__), [dict(id=1, key="a", start_urls=[])])
        conn.execute(insert(PageRow.__table__),
                     [dict(id=pid, site_id=1, url=url, lang=lang) for pid, (url, lang) in pages.items()])
        if final or others:
            conn.execute(insert(CandidateRow.__table__), [dict(c, scores={}) for c in final + others])
        if final:
            conn.execute(insert(PairRow.__table__), final)
        rows = [
            dict(pair(a, b, s), position=i, text1=t1, text2=t2)
            for (a, b), sents in sentences.items() for i, (t1, t2, s) in enumerate(sents)
        ]
        if rows:
            conn.execute(insert(SentenceRow.__table__), rows)
    engine.dispose()
    return f"sqlite:///{path}"


# -- short news articles in English and German, for the content-only search -------------------

D = date(2024, 3, 5).toordinal()


def article_content(lang: str, *sentences: str):
    return page_content([("p", lang, s) for s in sentences], lang)


ARTICLES = {
    "budget": ("The parliament approved the budget of 2024 with 312 votes.",
               "The minister said the budget protects schools and hospitals.",
               "Opposition parties criticised the tax increase."),
    "flood": ("Heavy rain flooded the river valley on Tuesday.",
              "Rescue teams evacuated 1,200 residents from their homes.",
              "The weather service expects more rain this week."),
    "match": ("The national team won the final 3-1 in Madrid.",
              "The captain scored twice in the second half.",
              "Fans celebrated in the streets until morning."),
}
GERMAN = {
    "budget": ("Das Parlament billigte den Haushalt 2024 mit 312 Stimmen.",
               "Der Minister sagte, der Haushalt schütze Schulen und Krankenhäuser.",
               "Oppositionsparteien kritisierten die Steuererhöhung."),
    "flood": ("Starker Regen überflutete am Dienstag das Flusstal.",
              "Rettungsteams evakuierten 1,200 Bewohner aus ihren Häusern.",
              "Der Wetterdienst erwartet diese Woche mehr Regen."),
    "match": ("Die Nationalmannschaft gewann das Finale 3-1 in Madrid.",
              "Der Kapitän traf zweimal in der zweiten Halbzeit.",
              "Fans feierten bis zum Morgen auf den Straßen."),
}
WORDS = [("parliament", "parlament"), ("budget", "haushalt"), ("votes", "stimmen"), ("minister", "minister"),
         ("schools", "schulen"), ("hospitals", "krankenhäuser"), ("rain", "regen"), ("river", "fluss"),
         ("residents", "bewohner"), ("weather", "wetter"), ("team", "mannschaft"), ("final", "finale"),
         ("captain", "kapitän"), ("fans", "fans"), ("streets", "straßen"), ("tuesday", "dienstag")]


def article_dictionary() -> BilingualDictionary:
    fwd: dict[str, set[str]] = {}
    back: dict[str, set[str]] = {}
    for en, de in WORDS:
        fwd.setdefault(en, set()).add(de)
        back.setdefault(de, set()).add(en)
    return BilingualDictionary("en", "de", {k: frozenset(v) for k, v in fwd.items()},
                               {k: frozenset(v) for k, v in back.items()})


def article_site(pages: list[tuple[str, str, object, int | None, str | None]]) -> SiteIndex:
    index = SiteIndex("site")
    for url, lang, content, day, copy_of in pages:
        index.admit(PageFeatures(url, lang, 100, 100, 30, 3, np.arange(25, dtype=np.int32) + len(index) * 100,
                                 content, day, copy_of))
    return index
