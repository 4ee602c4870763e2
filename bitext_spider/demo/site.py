"""Generator of realistic multilingual test websites with a known gold standard of translations.

The sites feed the README demo, the end-to-end tests and the large benchmark. A generated site is a
folder in the layout the benchmark scripts (``serve.py``, ``score.py``) read::

    hosts.tsv           folder TAB base URL (one line: ``www``)
    seeds.txt           one start URL a line
    pages.tsv           url TAB lang, every content page
    gold.tsv            lang1 TAB url1 TAB lang2 TAB url2 (lang1 < lang2), absolute URLs
    content-types.tsv   sidecar: url path TAB Content-Type, read by ``loopback_server``
    www/                the document root

Text comes from ``data/demo_lexicon.tsv``, a parallel lexicon of real words. A document is first
composed as language-independent *concepts* (noun phrases, clauses, sentences, blocks); each language
then renders the same concepts with its own grammar (articles, gender agreement, case, contractions,
SOV order with particles for ja/ko) and its own small random omissions and additions, the way
translators drop or add a word. So translations share their block structure but differ in length,
while unrelated documents differ in both.

Two random streams drive the composition: a *structural* one (how many blocks, of which kind, which
word categories) and a *lexical* one (which words). Hard negatives replay the structural stream of
another document with a fresh lexical one: same shape, different content, no translation.
"""

from __future__ import annotations

import argparse
import codecs
import dataclasses
import itertools
import random
import shutil
from collections.abc import Callable, Iterator, Mapping, Sequence
from pathlib import Path
from types import MappingProxyType
from urllib.parse import quote, unquote, urlsplit

from bitext_spider.demo.composer import _Composer, _derive
from bitext_spider.demo.lexicon import CHARSET_DECLARATIONS, Lexicon, load_lexicon
from bitext_spider.demo.loopback_server import CONTENT_TYPES_FILE
from bitext_spider.demo.pages import (
    _CSS,
    _doc_page,
    _feed,
    _HomeContext,
    _listing_pages,
    _pdf,
    _png,
    _robots,
    _root_page,
    _sitemap,
    _Template,
)
from bitext_spider.demo.plan import SiteInfo, _assign_paths, _compose_doc, _Doc, _plan_docs
from bitext_spider.demo.render import _render_blocks, _Renderer

# --------------------------------------------------------------------------------------------------
# Writing the site


class _Writer:
    """Writes files under www/ in the right encoding and records their Content-Type."""

    def __init__(self, www: Path, declaration: str, charsets: Mapping[str, str]) -> None:
        self.www = www
        self.declaration = declaration
        self.charsets = charsets
        self.content_types: dict[str, str] = {}
        self.made: set[Path] = set()

    def write(self, path: str, data: bytes, content_type: str | None = None) -> None:
        target = self.www / path.lstrip("/")
        if target.parent not in self.made:
            target.parent.mkdir(parents=True, exist_ok=True)
            self.made.add(target.parent)
        target.write_bytes(data)
        if content_type:
            self.content_types[path] = content_type

    def html(self, path: str, text: str, lang: str | None) -> None:
        encoding = self.charsets.get(lang, "utf-8") if lang else "utf-8"
        data = text.encode(encoding, errors="xmlcharrefreplace")
        ctype = f"text/html; charset={encoding}" if self.declaration == "header" else None
        self.write(path, data, ctype)


def _check_args(
    langs: Sequence[str], lex: Lexicon, charsets: Mapping[str, str], declaration: str, coverage: float
) -> None:
    if not langs or len(set(langs)) != len(langs):
        raise ValueError(f"langs must be distinct and non-empty: {langs!r}")
    unknown = [lang for lang in langs if lang not in lex.langs]
    if unknown:
        raise ValueError(f"no lexicon column for {unknown}; available: {', '.join(lex.langs)}")
    if declaration not in CHARSET_DECLARATIONS:
        raise ValueError(f"charset_declaration must be one of {CHARSET_DECLARATIONS}")
    if not 0.0 <= coverage <= 1.0:
        raise ValueError("coverage must be within [0, 1]")
    for encoding in charsets.values():
        codecs.lookup(encoding)


def _prepare_root(root: Path, overwrite: bool) -> Path:
    www = root / "www"
    if www.exists() and any(www.iterdir()):
        if not overwrite:
            raise FileExistsError(f"{www} is not empty (pass overwrite=True to replace it)")
        shutil.rmtree(www)
    www.mkdir(parents=True, exist_ok=True)
    return www


def generate_site(
    root: Path,
    *,
    base_url: str,
    n_docs: int = 40,
    langs: Sequence[str] = ("en", "fr", "de", "es"),
    seed: int = 0,
    coverage: float = 0.8,
    hard_negatives: int | None = None,
    charsets: Mapping[str, str] | None = None,
    charset_declaration: str = "meta",
    extras: bool = True,
    overwrite: bool = False,
    retemplated: float = 0.0,
) -> SiteInfo:
    """Generate a multilingual site under ``root`` (``www/`` plus the gold-standard files).

    ``n_docs`` documents exist in ``langs[0]``; each other language has each document with
    probability ``coverage``. ``hard_negatives`` (default: a tenth of ``n_docs``) single-language
    documents copy the structure of another document. ``charsets`` maps a language to the encoding
    its pages are written in; ``charset_declaration`` says where that is declared: ``"meta"``
    (``<meta charset>``), ``"header"`` (only the HTTP header, via the content-types sidecar) or
    ``"none"``. ``retemplated`` is the share of documents whose pages in the languages after
    the first use another template (:func:`_legacy_page`). ``extras`` adds robots.txt, a private page, sitemap.xml with orphan pages, an RSS
    feed with a feed-only document, hreflang links and binary files (orphans and the feed-only
    document need ``n_docs >= 4``). An existing non-empty ``root/www`` is an error unless
    ``overwrite``. Output is a function of the arguments only.
    """
    root = Path(root)
    base_url = base_url.rstrip("/")
    if urlsplit(base_url).scheme not in ("http", "https"):
        raise ValueError(f"base_url must be an http(s) URL: {base_url!r}")
    langs = tuple(langs)
    charsets = dict(charsets or {})
    lex = load_lexicon()
    _check_args(langs, lex, charsets, charset_declaration, coverage)
    if hard_negatives is None:
        hard_negatives = max(1, n_docs // 10) if len(langs) > 1 else 0
    www = _prepare_root(root, overwrite)

    renderers = {lang: _Renderer(lex, lang) for lang in langs}
    docs = _plan_docs(n_docs, langs, seed, coverage, hard_negatives, extras)
    for doc in docs:
        _compose_doc(doc, lex, renderers, seed)
    _assign_paths(docs)

    writer = _Writer(www, charset_declaration, charsets)
    tpl = _Template(
        langs, MappingProxyType(renderers), extras, charset_declaration, MappingProxyType(charsets)
    )
    linked = [d for d in docs if d.role in ("regular", "hard_negative")]
    legacy: set[str] = set()
    for doc in docs:
        moved = doc.role == "regular" and random.Random(_derive(seed, "retemplate", doc.id)).random() < retemplated
        for lang in doc.langs:
            old = moved and lang != langs[0]
            writer.html(doc.paths[lang], _doc_page(doc, lang, tpl, linked, seed, legacy=old), lang)
            if old:
                legacy.add(doc.paths[lang])

    primary = "en" if "en" in langs else langs[0]
    home_paths = {lang: f"/{lang}/index.html" for lang in langs}
    ctx = _HomeContext(_home_intro(lex, renderers, seed), primary, home_paths, "/private/staff.html")
    listing_paths: dict[str, str] = {}
    for lang in langs:
        for path, text in _listing_pages(lang, [d for d in linked if lang in d.langs], tpl, ctx).items():
            writer.html(path, text, lang)
            listing_paths[path] = lang
    writer.html("/index.html", _root_page(tpl), None)
    writer.write("/css/site.css", _CSS.encode())

    url = _url_maker(base_url)
    special: dict[str, tuple[str, ...]] = {}
    if extras:
        special = _write_extras(writer, docs, tpl, ctx, base_url, seed, lex, renderers)
    info = _write_metadata(root, www, base_url, langs, docs, listing_paths, writer, special, url, charsets)
    return dataclasses.replace(info, retemplated=tuple(sorted(url(p) for p in legacy)))


def _url_maker(base_url: str) -> Callable[[str], str]:
    """Absolute, percent-encoded URL of a site path, as a crawler will report it."""

    def url(path: str) -> str:
        return base_url + quote(path)

    return url


def _home_intro(lex: Lexicon, renderers: Mapping[str, _Renderer], seed: int) -> dict[str, str]:
    """The home pages' introduction: the same concepts in every language, so homes are translations."""
    composer = _Composer(
        lex, random.Random(_derive(seed, "home", "s")), random.Random(_derive(seed, "home", "w"))
    )
    block = composer.paragraph(2, 3)
    out = {}
    for lang, r in renderers.items():
        r.start_page(_derive(seed, "home", lang))
        out[lang] = f"<p>{r.sentences(block.items)}</p>"
    return out


def _write_extras(
    writer: _Writer,
    docs: Sequence[_Doc],
    tpl: _Template,
    ctx: _HomeContext,
    base_url: str,
    seed: int,
    lex: Lexicon,
    renderers: Mapping[str, _Renderer],
) -> dict[str, tuple[str, ...]]:
    """robots.txt, the private page, sitemap.xml, feed.xml and binary files; returns special URLs."""
    url = _url_maker(base_url)
    writer.write("/robots.txt", _robots(base_url).encode(), "text/plain; charset=utf-8")

    primary = ctx.primary
    r = renderers[primary]
    composer = _Composer(
        lex, random.Random(_derive(seed, "private", "s")), random.Random(_derive(seed, "private", "w"))
    )
    r.start_page(_derive(seed, "private"))
    title, body = _render_blocks(composer.document(), r)
    writer.html(ctx.private_path, tpl.page(primary, title, f"<article>\n{body}\n</article>"), primary)

    orphans = [url(d.paths[lang]) for d in docs if d.role == "orphan" for lang in d.langs]
    regular = [url(d.paths[lang]) for d in docs if d.role == "regular" for lang in d.langs]
    homes = [url(p) for p in ctx.home_paths.values()]
    writer.write("/sitemap.xml", _sitemap(homes + regular[::3] + orphans).encode(), "application/xml")

    feed_docs = [d for d in docs if d.role == "feed"]
    feed_only = [(url(d.paths[lang]), d.titles[lang]) for d in feed_docs for lang in d.langs]
    recent = [d for d in docs if d.role == "regular" and primary in d.langs][-10:]
    items = feed_only + [(url(d.paths[primary]), d.titles[primary]) for d in reversed(recent)]
    writer.write(
        "/feed.xml", _feed(base_url, r.ui("News"), items).encode(), "application/rss+xml; charset=utf-8"
    )

    writer.write("/files/brochure.pdf", _pdf(seed), "application/pdf")
    writer.write("/img/logo.png", _png(), "image/png")
    return {
        "sitemap_only": tuple(orphans),
        "feed_only": tuple(u for u, _ in feed_only),
        "private": (url(ctx.private_path),),
        "assets": (url("/files/brochure.pdf"), url("/img/logo.png")),
    }


def _gold_pairs(
    docs: Sequence[_Doc], home_paths: Mapping[str, str], url: Callable[[str], str]
) -> list[tuple[str, str, str, str]]:
    """Every pair of languages of every translated document, and of the home pages."""
    groups = [d.paths for d in docs if d.role != "hard_negative"] + [home_paths]
    gold = []
    for paths in groups:
        present = sorted(paths)
        for a, b in itertools.combinations(present, 2):
            gold.append((a, url(paths[a]), b, url(paths[b])))
    return sorted(gold)


def _write_metadata(
    root: Path,
    www: Path,
    base_url: str,
    langs: tuple[str, ...],
    docs: Sequence[_Doc],
    listing_paths: Mapping[str, str],
    writer: _Writer,
    special: Mapping[str, tuple[str, ...]],
    url: Callable[[str], str],
    charsets: Mapping[str, str],
) -> SiteInfo:
    home_paths = {lang: f"/{lang}/index.html" for lang in langs}
    pages = sorted(
        [(url(d.paths[lang]), lang) for d in docs for lang in d.langs]
        + [(url(path), lang) for path, lang in listing_paths.items()]
    )
    gold = _gold_pairs(docs, home_paths, url)
    paths = {
        name: root / name for name in ("hosts.tsv", "seeds.txt", "pages.tsv", "gold.tsv", CONTENT_TYPES_FILE)
    }
    paths["hosts.tsv"].write_text(f"www\t{base_url}\n", "utf-8")
    paths["seeds.txt"].write_text(f"{base_url}/\n", "utf-8")
    paths["pages.tsv"].write_text("".join(f"{u}\t{lang}\n" for u, lang in pages), "utf-8")
    paths["gold.tsv"].write_text("".join("\t".join(row) + "\n" for row in gold), "utf-8")
    paths[CONTENT_TYPES_FILE].write_text(
        "".join(f"{p}\t{t}\n" for p, t in sorted(writer.content_types.items())), "utf-8"
    )
    return SiteInfo(
        root=root,
        www=www,
        base_url=base_url,
        langs=langs,
        hosts_path=paths["hosts.tsv"],
        seeds_path=paths["seeds.txt"],
        pages_path=paths["pages.tsv"],
        gold_path=paths["gold.tsv"],
        content_types_path=paths[CONTENT_TYPES_FILE],
        pages=tuple(pages),
        gold=tuple(gold),
        sitemap_only=special.get("sitemap_only", ()),
        feed_only=special.get("feed_only", ()),
        private=special.get("private", ()),
        hard_negatives=tuple(url(d.paths[d.langs[0]]) for d in docs if d.role == "hard_negative"),
        home_pages=MappingProxyType({lang: url(p) for lang, p in home_paths.items()}),
        assets=special.get("assets", ()),
        charsets=MappingProxyType(dict(charsets)),
    )


def iter_page_files(info: SiteInfo) -> Iterator[tuple[str, str, Path]]:
    """(url, lang, file on disk) for every content page of a generated site."""
    prefix = info.base_url
    for url, lang in info.pages:
        path = unquote(url[len(prefix) :])
        yield url, lang, info.www / path.lstrip("/")


# --------------------------------------------------------------------------------------------------
# Command line


def _parse_charsets(specs: Sequence[str]) -> dict[str, str]:
    out = {}
    for spec in specs:
        lang, sep, encoding = spec.partition("=")
        if not sep:
            raise SystemExit(f"--charset expects LANG=ENCODING, got {spec!r}")
        out[lang] = encoding
    return out


def main(argv: Sequence[str] | None = None) -> None:
    """``python -m bitext_spider.demo.site OUT_DIR [--base-url URL] ...``: generate a site."""
    ap = argparse.ArgumentParser(description=main.__doc__)
    ap.add_argument("out", type=Path)
    ap.add_argument("--base-url", help="default: http://127.0.0.1:<a free port>")
    ap.add_argument("--docs", type=int, default=40)
    ap.add_argument("--langs", default="en,fr,de,es")
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--coverage", type=float, default=0.8)
    ap.add_argument("--hard-negatives", type=int, default=None)
    ap.add_argument("--charset", action="append", default=[], metavar="LANG=ENCODING")
    ap.add_argument("--charset-declaration", choices=CHARSET_DECLARATIONS, default="meta")
    ap.add_argument("--no-extras", action="store_true")
    ap.add_argument("--overwrite", action="store_true")
    a = ap.parse_args(argv)
    base_url = a.base_url
    if base_url is None:
        from bitext_spider.demo.loopback_server import free_port

        base_url = f"http://127.0.0.1:{free_port()}"
    info = generate_site(
        a.out,
        base_url=base_url,
        n_docs=a.docs,
        langs=tuple(a.langs.split(",")),
        seed=a.seed,
        coverage=a.coverage,
        hard_negatives=a.hard_negatives,
        charsets=_parse_charsets(a.charset),
        charset_declaration=a.charset_declaration,
        extras=not a.no_extras,
        overwrite=a.overwrite,
    )
    print(f"{info.page_count} pages, {len(info.gold)} gold pairs, base URL {info.base_url}, in {info.root}")


if __name__ == "__main__":
    main()
