"""URL development sets for the URL pairing keys: real URL lists and messy variants of a real site.

Each set is a list of `Entry(url, lang, doc, translation)`.  The gold standard is read from the
sources, never from the project's output: two entries are a translation pair when they have the
same document and different languages and both are translations (`translation=False` marks a
page a site serves in another language's place, e.g. an untranslated copy under /fi/).  Several
URLs of one (document, language) are aliases of one page; the gold names the first.

Sets:
  nodejs-org, nodejs-org-en-fr   nodejs.org's published pages (benchmarks/devsets/nodejs-org.tsv,
                                  from the site's repository): English 1,063 pages, every other
                                  language 8-17; the second set is English and French alone.
  digital-canada                  digital.canada.ca (benchmarks/devsets/digital-canada.tsv): English and
                                  French, translated slugs (/en/2017/07/25/its-about-people/ :
                                  /fr/2017/07/25/ce-sont-les-gens-qui-comptent/)
  fastapi                         fastapi.tiangolo.com (benchmarks/devsets/fastapi.tsv): English
                                  without a language segment, 12 languages with one.
  w3c-*                           ../shared/data/w3c-i18n's pages and gold (documents = connected
                                  components of the gold pairs) under other URL schemes:
    w3c-query       /index.php?page=STEM&lang=CODE, parameters in either order
    w3c-numeric     /content.asp?id=N&clang=M, languages as numbers, parameters in either order
    w3c-multislot   /LANGUAGE-NAME/DIR/FILE_CODE.html: two fields differ at once
    w3c-noisy       the site's own URLs, plus aliases of a quarter of the pages (a trailing "?",
                    a session parameter, https, a www. host) and, for a fifth of the documents,
                    an untranslated copy in a language the document lacks (labelled with the
                    language of its text)
"""

from __future__ import annotations

import random
import re
from collections import Counter, defaultdict
from pathlib import Path
from typing import NamedTuple

from opaque_markup import LANGUAGE_NAMES as NAMES

ROOT = Path(__file__).resolve().parents[1]
DEVSETS = ROOT / "benchmarks" / "devsets"
W3C = ROOT.parent / "shared" / "data" / "w3c-i18n"



class Entry(NamedTuple):
    url: str
    lang: str
    doc: str
    translation: bool = True


def read_listing(name: str, langs: set[str] | None = None) -> list[Entry]:
    """A listing's entries.  Of two regional variants of one language (pt and pt-br, zh-cn and
    zh-tw) only the larger is kept: score.py counts one pair per URL and base language, so the
    other's gold pairs could never be scored as found."""
    rows = []
    for line in (DEVSETS / f"{name}.tsv").read_text(encoding="utf-8").splitlines():
        if line.startswith("#") or not line.strip():
            continue
        url, lang, doc = line.split("\t")
        if langs is None or lang in langs:
            rows.append(Entry(url, lang, doc))
    sizes = Counter(e.lang for e in rows)
    keep = {}
    for lang, _n in sorted(sizes.items(), key=lambda x: (-x[1], x[0])):
        keep.setdefault(lang.split("-")[0], lang)
    return [e for e in rows if keep[e.lang.split("-")[0]] == e.lang]


def w3c_documents(source: Path = W3C) -> list[tuple[str, str, str]]:
    """(url, lang, document) of the W3C site; a document is a connected component of gold pairs."""
    pages = [line.split("\t")[:2] for line in (source / "pages.tsv").read_text(encoding="utf-8").splitlines()
             if line.strip() and not line.lower().startswith("url")]
    parent = {url: url for url, _ in pages}

    def find(u: str) -> str:
        while parent[u] != u:
            parent[u] = parent[parent[u]]
            u = parent[u]
        return u

    for line in (source / "gold.tsv").read_text(encoding="utf-8").splitlines():
        parts = line.split("\t")
        if len(parts) >= 4 and parts[1] in parent and parts[3] in parent:
            parent[find(parts[1])] = find(parts[3])
    return [(url, lang, find(url)) for url, lang in pages]


def _stem(url: str, lang: str) -> tuple[str, str]:
    """(directory, file stem) of a W3C URL without its .LANG.html ending."""
    path = re.sub(r"^https?://[^/]+", "", url)
    path = re.sub(rf"\.{re.escape(lang)}\.html?$", "", path, flags=re.I)
    d, _, f = path.rpartition("/")
    return d, f


def w3c_variant(kind: str, seed: int = 0, source: Path = W3C) -> list[Entry]:
    rnd = random.Random(seed)
    docs = w3c_documents(source)
    host = "http://www.example.org"
    doc_ids = {d: i for i, d in enumerate(sorted({d for _, _, d in docs}))}
    lang_ids = {lang: i + 1 for i, lang in enumerate(sorted({lang for _, lang, _ in docs}))}
    out: list[Entry] = []
    for url, lang, doc in docs:
        d, f = _stem(url, lang)
        if kind == "query":
            params = [f"page={d.strip('/').replace('/', '.')}.{f}", f"lang={lang}"]
            rnd.shuffle(params)
            out.append(Entry(f"{host}/index.php?{'&'.join(params)}", lang, doc))
        elif kind == "numeric":
            params = [f"id={doc_ids[doc]}", f"clang={lang_ids[lang]}"]
            rnd.shuffle(params)
            out.append(Entry(f"{host}/content.asp?{'&'.join(params)}", lang, doc))
        elif kind == "multislot":
            out.append(Entry(f"{host}/{NAMES[lang]}{d}/{f}_{lang}.html", lang, doc))
        elif kind == "noisy":
            out.append(Entry(url, lang, doc))
        else:
            raise ValueError(kind)
    if kind == "noisy":
        aliases = []
        for e in out:
            if rnd.random() < 0.25:
                form = rnd.randrange(4)
                alias = (e.url + "?" if form == 0 else
                         e.url + f"?PHPSESSID={rnd.getrandbits(64):016x}" if form == 1 else
                         e.url.replace("http://", "https://") if form == 2 else
                         e.url.replace("://", "://www.", 1))
                aliases.append(Entry(alias, e.lang, e.doc))
        by_doc: dict[str, list[Entry]] = defaultdict(list)
        for e in out:
            by_doc[e.doc].append(e)
        all_langs = sorted({e.lang for e in out})
        fallbacks = []
        for doc in sorted(by_doc):
            if rnd.random() >= 0.2:
                continue
            have = {e.lang for e in by_doc[doc]}
            missing = [lang for lang in all_langs if lang not in have]
            if not missing:
                continue
            src = next((e for e in by_doc[doc] if e.lang == "en"), by_doc[doc][0])
            target = rnd.choice(missing)
            url = re.sub(rf"\.{re.escape(src.lang)}\.html$", f".{target}.html", src.url)
            fallbacks.append(Entry(url, src.lang, doc, translation=False))
        out += aliases + fallbacks
    return out


SETS = ("nodejs-org", "nodejs-org-en-fr", "fastapi", "digital-canada", "w3c-query", "w3c-numeric", "w3c-multislot", "w3c-noisy")


def load(name: str) -> list[Entry]:
    if name == "nodejs-org":
        return read_listing("nodejs-org")
    if name == "nodejs-org-en-fr":
        return read_listing("nodejs-org", {"en", "fr"})
    if name in ("fastapi", "digital-canada"):
        return read_listing(name)
    if name.startswith("w3c-"):
        return w3c_variant(name[4:])
    raise ValueError(f"unknown development set {name!r}; known: {', '.join(SETS)}")


def gold_pairs(entries: list[Entry]) -> tuple[dict[str, str], list[tuple[str, str, str, str]]]:
    """(URL -> its page's gold URL, gold pairs as (lang1, url1, lang2, url2))."""
    primary: dict[tuple[str, str], str] = {}
    canon: dict[str, str] = {}
    for e in entries:
        if not e.translation:
            continue
        canon[e.url] = primary.setdefault((e.doc, e.lang), e.url)
    by_doc: dict[str, list[tuple[str, str]]] = defaultdict(list)
    for (doc, lang), url in sorted(primary.items()):
        by_doc[doc].append((lang, url))
    gold = []
    for members in by_doc.values():
        for i, (la, ua) in enumerate(members):
            for lb, ub in members[i + 1:]:
                gold.append((la, ua, lb, ub) if la < lb else (lb, ub, la, ua))
    return canon, gold
