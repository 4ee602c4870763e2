"""The demo generator's languages beyond the first six: Italian, Portuguese, Dutch and Polish.

Their lexicon columns, their grammar (articles and contractions, Dutch adjective endings, Polish
cases), a ten-language site with its markup, fastText telling the new languages apart, and the
first six languages' output left byte for byte as it was before the new ones came."""

from __future__ import annotations

import hashlib
import re
from collections import Counter
from pathlib import Path
from urllib.parse import unquote

import lxml.html
import pytest

from bitext_spider.demo.composer import _NP, _PP, _Clause, _Heading, _Sentence
from bitext_spider.demo.grammar import (
    _PL_NA_PLACES,
    PL_CASES,
    PL_GENITIVE_VERBS,
    nl_adjective,
    pl_adjective,
    pl_noun_cases,
    pl_prep_case,
    pl_preposition,
)
from bitext_spider.demo.lexicon import _NOUN_CATEGORIES, Lexicon
from bitext_spider.demo.render import _Renderer
from bitext_spider.demo.site import SiteInfo, generate_site, iter_page_files, load_lexicon

OLD_LANGS = ("en", "fr", "de", "es", "ja", "ko")
NEW_LANGS = ("it", "pt", "nl", "pl")
TEN = OLD_LANGS + NEW_LANGS
BASE = "http://127.0.0.1:8999"


@pytest.fixture(scope="module")
def lex() -> Lexicon:
    return load_lexicon()


def _column(lex: Lexicon, lang: str, category: str) -> list[str]:
    return [lex.rows[c][lex.langs.index(lang)] for c in lex.ids(category)]


# --------------------------------------------------------------------------------------------------
# Lexicon columns


def test_new_columns_follow_the_conventions(lex: Lexicon):
    assert lex.langs == TEN
    for lang in NEW_LANGS:
        col = lex.langs.index(lang)
        assert all(row[col].strip() for row in lex.rows), lang
        assert lex.word(lex.key("English"), lang) != lex.word(lex.key("English"), "en")
    nouns = [c for cat in _NOUN_CATEGORIES for c in lex.ids(cat)]
    # it/pt/nl nouns start with an article of the "the" row
    for lang, articles in (
        ("it", ("il ", "lo ", "la ", "l'")),
        ("pt", ("o ", "a ")),
        ("nl", ("de ", "het ")),
    ):
        for c in nouns:
            assert lex.word(c, lang).startswith(articles), (lang, lex.word(c, lang))
    # pl nouns: five case forms and a gender
    pl_nominatives = set()
    for c in nouns:
        cell = lex.word(c, "pl")
        m = re.fullmatch(r"(.+)/([mfn])", cell)
        assert m, cell
        pl_nominatives.add(pl_noun_cases(m.group(1))[0])
    assert pl_nominatives >= _PL_NA_PLACES
    for cell in _column(lex, "pl", "adjective"):
        assert len(cell.split("/")) == 3, cell
    for lang in ("it", "pt", "nl"):
        assert all(len(cell.split("/")) <= 2 for cell in _column(lex, lang, "adjective")), lang
    for prep in _column(lex, "pl", "preposition"):
        assert pl_prep_case(prep) in PL_CASES
    assert set(PL_GENITIVE_VERBS) <= set(_column(lex, "pl", "verb"))
    assert "ł" in "".join(_column(lex, "pl", "adjective")) and "ã" in "".join(_column(lex, "pt", "thing"))


# --------------------------------------------------------------------------------------------------
# Grammar


def _renderer(lex: Lexicon, lang: str) -> _Renderer:
    """A renderer without the translators' random omissions and additions."""
    r = _Renderer(lex, lang)
    r.start_page(0)
    r.chance_add = lambda p: False  # type: ignore[method-assign]
    r.chance_drop = lambda p: False  # type: ignore[method-assign]
    return r


def _np(lex: Lexicon, noun: str, adj: str | None = None, definite: bool = True, of: str | None = None) -> _NP:
    return _NP(
        lex.key(noun),
        lex.key(adj) if adj else None,
        _NP(lex.key(of)) if of else None,
        definite,
    )


def _heading(r: _Renderer, lex: Lexicon, np: _NP, prep: str | None = None, target: str | None = None) -> str:
    pp = _PP(lex.key(prep), _NP(lex.key(target))) if prep and target else None
    return r.heading(_Heading(np, pp))


def test_italian_articles_and_contractions(lex: Lexicon):
    r = _renderer(lex, "it")
    assert r.np(_np(lex, "the stadium", definite=False)) == "uno stadio"
    assert r.np(_np(lex, "the island", "beautiful", definite=False)) == "un'isola bella"
    assert r.np(_np(lex, "the hotel", "new", definite=False)) == "un albergo nuovo"
    assert r.np(_np(lex, "the station", "new", definite=False)) == "una stazione nuova"
    assert r.np(_np(lex, "the station", "new")) == "la stazione nuova"
    assert _heading(r, lex, _np(lex, "the museum", of="the city"), "in", "the island") == (
        "Il museo della città nell'isola"
    )
    assert _heading(r, lex, _np(lex, "the bridge"), "near", "the park") == "Il ponte vicino al parco"
    assert _heading(r, lex, _np(lex, "the bridge"), "from", "the stadium") == "Il ponte dallo stadio"


def test_portuguese_articles_and_contractions(lex: Lexicon):
    r = _renderer(lex, "pt")
    assert r.np(_np(lex, "the bridge", "new", definite=False)) == "uma ponte nova"
    assert _heading(r, lex, _np(lex, "the museum", of="the city"), "in", "the park") == (
        "O museu da cidade no parque"
    )
    assert _heading(r, lex, _np(lex, "the bridge"), "to", "the beach") == "A ponte à praia"
    assert _heading(r, lex, _np(lex, "the bridge"), "next to", "the port") == "A ponte ao lado do porto"


def test_dutch_articles_adjectives_and_verb_second(lex: Lexicon):
    r = _renderer(lex, "nl")
    assert r.np(_np(lex, "the house", "big", definite=False)) == "een groot huis"
    assert r.np(_np(lex, "the house", "big")) == "het grote huis"
    assert r.np(_np(lex, "the bridge", "big", definite=False)) == "een grote brug"
    assert nl_adjective("gratis", "n", True, False) == "gratis"
    clause = _Clause(
        "svo", subj=_np(lex, "the museum"), verb=lex.key("offers"), obj=_np(lex, "the guided tour")
    )
    sentence = _Sentence((clause,), phrase=lex.key("In summer,"))
    assert r.sentence(sentence) == "In de zomer biedt het museum de rondleiding."
    exist = _Clause(
        "exist",
        obj=_np(lex, "the fountain", definite=False),
        pps=(_PP(lex.key("in"), _NP(lex.key("the park"))),),
    )
    assert r.sentence(_Sentence((exist,))) == "Er is een fontein in het park."


def test_polish_cases(lex: Lexicon):
    feminine = [pl_adjective("nowy/nowa/nowe", "f", c) for c in PL_CASES]
    assert feminine == ["nowa", "nowej", "nową", "nową", "nowej"]
    masculine = [pl_adjective("drogi/droga/drogie", "m", c) for c in PL_CASES]
    assert masculine == ["drogi", "drogiego", "drogi", "drogim", "drogim"]
    assert pl_adjective("tani/tania/tanie", "m", "acc", animate=True) == "taniego"
    assert pl_preposition("z", "szkoła", "szkołą") == "ze szkołą"
    assert pl_preposition("z", "policja", "szeroką policją") == "z szeroką policją"
    assert pl_preposition("w", "park", "parku") == "w parku"
    assert pl_preposition("w", "wieś", "wsi") == "na wsi"
    assert pl_preposition("w", "dom", "wsi") == "we wsi"
    r = _renderer(lex, "pl")
    buys = _Clause(
        "svo", subj=_np(lex, "the visitor"), verb=lex.key("buys"), obj=_np(lex, "the chicken", "fresh")
    )
    assert r.sentence(_Sentence((buys,))) == "Gość kupuje świeżego kurczaka."  # animate accusative
    needs = _Clause(
        "svo", subj=_np(lex, "the visitor"), verb=lex.key("needs"), obj=_np(lex, "the ticket", "new")
    )
    assert r.sentence(_Sentence((needs,))) == "Gość potrzebuje nowego biletu."  # genitive object
    exist = _Clause(
        "exist",
        obj=_np(lex, "the fountain", "new", False),
        pps=(_PP(lex.key("in"), _NP(lex.key("the park"), lex.key("old"))),),
    )
    assert r.sentence(_Sentence((exist,))) == "W starym parku jest nowa fontanna."
    assert _heading(r, lex, _np(lex, "the museum", of="the city"), "behind", "the station") == (
        "Muzeum miasta za dworcem"
    )


# --------------------------------------------------------------------------------------------------
# A ten-language site


@pytest.fixture(scope="module")
def site(tmp_path_factory: pytest.TempPathFactory) -> SiteInfo:
    return generate_site(tmp_path_factory.mktemp("ten"), base_url=BASE, n_docs=16, langs=TEN, seed=3)


def _html(info: SiteInfo, url: str) -> str:
    return (info.www / unquote(url[len(info.base_url) :]).lstrip("/")).read_text("utf-8")


def test_ten_language_site_has_every_language_with_its_markup(site: SiteInfo):
    counts = Counter(lang for _, lang in site.pages)
    assert set(counts) == set(TEN)
    assert all(counts[lang] >= 10 for lang in NEW_LANGS), counts
    for url, lang, file in iter_page_files(site):
        assert file.is_file(), url
        if lang in NEW_LANGS:
            html = file.read_text("utf-8")
            assert f'<html lang="{lang}">' in html
            assert all(f'hreflang="{other}"' in html for other in TEN)  # the language menu
            assert re.fullmatch(rf"/{lang}/[a-z0-9-]+\.html", unquote(url[len(BASE) :])), url
    pairs = Counter((row[0], row[2]) for row in site.gold)
    assert len(pairs) == 45
    for _, u1, l2, u2 in site.gold:
        if l2 in NEW_LANGS:
            assert f'<link rel="alternate" hreflang="{l2}" href="{u2[len(BASE) :]}">' in _html(site, u1)
    for lang in NEW_LANGS:
        home = _html(site, site.home_pages[lang])
        assert f'<html lang="{lang}">' in home and 'hreflang="en"' in home.split("<body>")[0]


def test_fasttext_identifies_the_new_languages(site: SiteInfo):
    pytest.importorskip("fasttext")
    from matchers.page.language_id import LanguageIdentifier

    identifier = LanguageIdentifier()
    hits: Counter[str] = Counter()
    totals: Counter[str] = Counter()
    short_hits: Counter[str] = Counter()
    for _, lang, file in iter_page_files(site):
        if lang not in NEW_LANGS:
            continue
        main = lxml.html.document_fromstring(file.read_text("utf-8")).find(".//main")
        assert main is not None
        text = " ".join(main.text_content().split())
        totals[lang] += 1
        hits[lang] += identifier.identify(text)[0] == lang
        first = main.find(".//p")  # a few sentences only
        if first is not None:
            short_hits[lang] += identifier.identify(first.text_content())[0] == lang
    assert set(totals) == set(NEW_LANGS)
    rates = {lang: hits[lang] / totals[lang] for lang in NEW_LANGS}
    assert min(rates.values()) >= 0.95, rates
    short = {lang: short_hits[lang] / totals[lang] for lang in NEW_LANGS}
    assert min(short.values()) >= 0.85, short


def test_benchmark_site_has_about_a_thousand_pages(tmp_path: Path):
    """The arguments of benchmarks/bench_site_overhead.py --generated <ten languages> --docs 98."""
    info = generate_site(tmp_path, base_url=BASE, n_docs=98, langs=TEN, coverage=1.0, extras=False, seed=5)
    assert 950 <= info.page_count <= 1050


# --------------------------------------------------------------------------------------------------
# The first six languages are unchanged


def _digest(root: Path) -> str:
    h = hashlib.sha256()
    for p in sorted(root.rglob("*")):
        if p.is_file():
            h.update(
                f"{p.relative_to(root).as_posix()}\0{hashlib.sha256(p.read_bytes()).hexdigest()}\n".encode()
            )
    return h.hexdigest()


# Digests of these sites as generated before Italian, Portuguese, Dutch and Polish were added:
# benchmarks compare figures across runs, so a new language must not change the others' pages.
_BEFORE = {
    "enfr": (
        {"langs": ("en", "fr"), "n_docs": 12, "seed": 21},
        "793ff82f02616f582fcafbc3fec243fa4646b74353e770ce2039650dfc3f18aa",
    ),
    "six": (
        {
            "langs": OLD_LANGS,
            "n_docs": 8,
            "seed": 2,
            "charsets": {"fr": "iso-8859-1", "ja": "shift_jis", "ko": "euc-kr"},
        },
        "e63224036897e6a13e3276ab00df985155583677846538b1802099c978dc7028",
    ),
    "deesjako": (
        {"langs": ("de", "es", "ja", "ko"), "n_docs": 10, "seed": 9, "coverage": 0.6, "extras": False},
        "cb5e9050151b0a101e0b1312a170c1767fa07dc37044821b98d0bc51109c0f84",
    ),
}


@pytest.mark.parametrize("name", sorted(_BEFORE))
def test_first_six_languages_render_as_before(tmp_path: Path, name: str):
    kwargs, digest = _BEFORE[name]
    generate_site(tmp_path, base_url=BASE, **kwargs)
    assert _digest(tmp_path) == digest


def test_ten_language_generation_is_deterministic(tmp_path: Path):
    a = generate_site(tmp_path / "a", base_url=BASE, n_docs=6, langs=TEN, seed=8)
    b = generate_site(tmp_path / "b", base_url=BASE, n_docs=6, langs=TEN, seed=8)
    assert a.gold == b.gold and _digest(a.root) == _digest(b.root)
