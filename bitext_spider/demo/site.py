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
import hashlib
import html
import importlib.resources
import itertools
import random
import re
import shutil
import struct
import unicodedata
import zlib
from collections.abc import Callable, Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from datetime import date, datetime, timedelta, timezone
from email.utils import format_datetime
from pathlib import Path
from types import MappingProxyType
from typing import TypeVar
from urllib.parse import quote, unquote, urlsplit

import lxml.html

T = TypeVar("T")
LEXICON_RESOURCE = "demo_lexicon.tsv"
CONTENT_TYPES_FILE = "content-types.tsv"
CHARSET_DECLARATIONS = ("meta", "header", "none")
LISTING_PAGE_SIZE = 100

_NOUN_CATEGORIES = ("person", "institution", "place", "thing", "food")
_PRICE_KEY = "€{0}.{1}"
# Frequency adverbs go before the verb in en/es ("the museum often offers"); the rest go last.
_PRE_VERB_ADVERBS = frozenset(
    {"also", "often", "always", "usually", "now", "still", "already", "sometimes", "soon"}
)
# German prepositions governing the accusative; all others in the lexicon take the dative.
_DE_ACCUSATIVE_PREPS = frozenset({"für", "ohne", "um", "durch", "gegen"})
_DE_DEFINITE = MappingProxyType(
    {
        "nom": MappingProxyType({"m": "der", "f": "die", "n": "das"}),
        "acc": MappingProxyType({"m": "den", "f": "die", "n": "das"}),
        "dat": MappingProxyType({"m": "dem", "f": "der", "n": "dem"}),
    }
)
_DE_INDEFINITE = MappingProxyType(
    {
        "nom": MappingProxyType({"m": "ein", "f": "eine", "n": "ein"}),
        "acc": MappingProxyType({"m": "einen", "f": "eine", "n": "ein"}),
        "dat": MappingProxyType({"m": "einem", "f": "einer", "n": "einem"}),
    }
)
# Adjective endings after a definite (weak) and an indefinite (mixed) article.
_DE_WEAK = MappingProxyType(
    {
        "nom": MappingProxyType({"m": "e", "f": "e", "n": "e"}),
        "acc": MappingProxyType({"m": "en", "f": "e", "n": "e"}),
        "dat": MappingProxyType({"m": "en", "f": "en", "n": "en"}),
    }
)
_DE_MIXED = MappingProxyType(
    {
        "nom": MappingProxyType({"m": "er", "f": "e", "n": "es"}),
        "acc": MappingProxyType({"m": "en", "f": "e", "n": "es"}),
        "dat": MappingProxyType({"m": "en", "f": "en", "n": "en"}),
    }
)
# Article contractions, applied to whole sentences ("de le musée" -> "du musée").
_CONTRACTIONS: Mapping[str, Mapping[str, str]] = MappingProxyType(
    {
        "fr": MappingProxyType({"à le ": "au ", "de le ": "du ", "de un ": "d'un ", "de une ": "d'une "}),
        "es": MappingProxyType({"a el ": "al ", "de el ": "del "}),
        "de": MappingProxyType(
            {
                "in dem ": "im ",
                "an dem ": "am ",
                "zu dem ": "zum ",
                "zu der ": "zur ",
                "von dem ": "vom ",
                "bei dem ": "beim ",
            }
        ),
    }
)
_SPACED_LANGS = frozenset({"en", "fr", "de", "es"})


# --------------------------------------------------------------------------------------------------
# Lexicon


@dataclass(frozen=True)
class Lexicon:
    """A parallel lexicon: concept ids, their words per language and their categories."""

    langs: tuple[str, ...]
    rows: tuple[tuple[str, ...], ...]
    categories: Mapping[str, tuple[int, ...]]
    keys: Mapping[str, int]

    def word(self, concept: int, lang: str) -> str:
        """The word for ``concept`` in ``lang``; ``""`` where the language needs none."""
        cell = self.rows[concept][self.langs.index(lang)]
        return "" if cell == "-" else cell

    def key(self, english: str) -> int:
        """The concept whose English cell is ``english``."""
        return self.keys[english]

    def ids(self, category: str) -> tuple[int, ...]:
        """Concept ids of a category (``noun`` categories, ``verb``, ``adjective``...)."""
        return self.categories[category]


def load_lexicon(path: Path | None = None) -> Lexicon:
    """Read the lexicon TSV (the bundled one by default)."""
    if path is None:
        text = (importlib.resources.files("bitext_spider") / "data" / LEXICON_RESOURCE).read_text("utf-8")
    else:
        text = Path(path).read_text("utf-8")
    lines = text.splitlines()
    langs = tuple(lines[0].split("\t"))
    rows: list[tuple[str, ...]] = []
    categories: dict[str, list[int]] = {}
    keys: dict[str, int] = {}
    category = "misc"
    for line in lines[1:]:
        if line.startswith("#"):
            m = re.fullmatch(r"#\s*\[(\w+)\]\s*", line)
            if m:
                category = m.group(1)
            continue
        if not line.strip():
            continue
        cells = tuple(line.split("\t"))
        if len(cells) != len(langs):
            raise ValueError(f"lexicon line has {len(cells)} cells, expected {len(langs)}: {line!r}")
        categories.setdefault(category, []).append(len(rows))
        keys.setdefault(cells[0], len(rows))
        rows.append(cells)
    return Lexicon(
        langs=langs,
        rows=tuple(rows),
        categories=MappingProxyType({k: tuple(v) for k, v in categories.items()}),
        keys=MappingProxyType(keys),
    )


# --------------------------------------------------------------------------------------------------
# Language-independent document model


@dataclass(frozen=True)
class _NP:
    noun: int
    adj: int | None = None
    of: _NP | None = None
    definite: bool = True


@dataclass(frozen=True)
class _PP:
    prep: int
    np: _NP


@dataclass(frozen=True)
class _Clause:
    kind: str  # "svo", "cop" (X is ADJ), "exist" (there is X), "has" (X has Y)
    subj: _NP | None = None
    pronoun: bool = False  # subject repeated as a pronoun ("..., and it offers")
    verb: int | None = None
    obj: _NP | None = None
    adj: int | None = None
    pps: tuple[_PP, ...] = ()
    adverb: int | None = None


@dataclass(frozen=True)
class _Sentence:
    clauses: tuple[_Clause, ...]
    phrase: int | None = None
    conj: int | None = None


@dataclass(frozen=True)
class _Heading:
    np: _NP
    pp: _PP | None = None


@dataclass(frozen=True)
class _Row:
    np: _NP
    hours: str
    price: tuple[int, int]


@dataclass(frozen=True)
class _Block:
    kind: str  # "h1", "h2", "p", "ul", "table"
    items: tuple[_Heading | _Sentence | _Row, ...]


def _choice(rng: random.Random, seq: Sequence[T]) -> T:
    """``rng.choice`` at half the cost; generation makes hundreds of thousands of these."""
    return seq[int(rng.random() * len(seq))]


def _randint(rng: random.Random, low: int, high: int) -> int:
    return low + int(rng.random() * (high - low + 1))


def _frequency_adverbs(lex: Lexicon) -> tuple[int, ...]:
    return tuple(c for c in lex.ids("adverb") if lex.rows[c][0] in _PRE_VERB_ADVERBS)


class _Composer:
    """Composes documents as concepts from a structural and a lexical random stream."""

    def __init__(self, lex: Lexicon, structure: random.Random, words: random.Random) -> None:
        self.lex = lex
        self.s = structure
        self.w = words
        sizes = {
            "person": 4,
            "institution": 5,
            "place": 8,
            "thing": 8,
            "food": 5,
            "verb": 10,
            "adjective": 10,
        }
        # A document talks about a few things: most words come from its own small topic.
        self.frequency_adverbs = _frequency_adverbs(lex)
        self.topic = {cat: tuple(self.w.sample(lex.ids(cat), n)) for cat, n in sizes.items()}

    def pick(self, category: str) -> int:
        """A lexical choice: usually from the document's topic, sometimes from the whole category."""
        pool = self.topic.get(category)
        if pool is None or self.w.random() < 0.15:
            pool = self.lex.ids(category)
        return _choice(self.w, pool)

    def np(self, cats: Sequence[str], adj_p: float = 0.0, of_p: float = 0.0, definite: bool = True) -> _NP:
        cat = _choice(self.s, cats)
        has_adj = self.s.random() < adj_p
        has_of = self.s.random() < of_p
        noun = self.pick(cat)
        of = self.np(("institution", "place")) if has_of else None
        if of is not None and of.noun == noun:
            of = _NP(self.pick("place"))  # "the police of the police" reads as a bug, not as text
        return _NP(noun=noun, adj=self.pick("adjective") if has_adj else None, of=of, definite=definite)

    def pp(self) -> _PP:
        return _PP(self.pick("preposition"), self.np(("place", "institution"), adj_p=0.2))

    def pps(self, choices: Sequence[int]) -> tuple[_PP, ...]:
        return tuple(self.pp() for _ in range(_choice(self.s, choices)))

    def adverb(self, p: float, frequency_only: bool = False) -> int | None:
        if self.s.random() >= p:
            return None
        if frequency_only:  # "is often quiet", not "is online quiet"
            return _choice(self.w, self.frequency_adverbs)
        return self.pick("adverb")

    def clause(self, kind: str, subj_cats: Sequence[str] = ("person", "institution")) -> _Clause:
        if kind == "svo":
            subj = self.np(subj_cats, adj_p=0.2, of_p=0.08)
            verb = self.pick("verb")
            obj = self.np(("place", "thing", "food"), adj_p=0.4, of_p=0.12, definite=self.s.random() < 0.7)
            return _Clause(
                "svo", subj=subj, verb=verb, obj=obj, pps=self.pps((0, 0, 1, 1, 2)), adverb=self.adverb(0.25)
            )
        if kind == "cop":
            subj = self.np(("place", "institution", "thing", "food"), of_p=0.15)
            return _Clause("cop", subj=subj, adj=self.pick("adjective"), adverb=self.adverb(0.2, True))
        if kind == "exist":
            obj = self.np(("place", "institution", "thing", "food"), adj_p=0.6, definite=False)
            return _Clause("exist", obj=obj, pps=self.pps((1, 1, 2)), adverb=self.adverb(0.2))
        subj = self.np(("institution", "place"), adj_p=0.2)
        obj = self.np(("thing", "place", "food"), adj_p=0.5, definite=False)
        return _Clause("has", subj=subj, obj=obj, pps=self.pps((0, 0, 1)), adverb=self.adverb(0.15))

    def sentence(self) -> _Sentence:
        phrase = self.pick("phrase") if self.s.random() < 0.18 else None
        kind = _choice(
            self.s, ("svo",) * 11 + ("cop", "cop", "cop", "exist", "exist", "exist", "has", "has", "has")
        )
        if kind != "svo" or self.s.random() >= 0.3:
            return _Sentence((self.clause(kind),), phrase=phrase)
        reuse = self.s.random() < 0.5  # "..., and it offers": needs a non-person subject
        first = self.clause("svo", ("institution",) if reuse else ("person", "institution"))
        conj = self.pick("conjunction")
        if reuse:
            second = self.clause("svo", ("institution",))
            second = dataclasses.replace(second, subj=first.subj, pronoun=True)
        else:
            second = self.clause(_choice(self.s, ("svo", "cop")))
        return _Sentence((first, second), phrase=phrase, conj=conj)

    def heading(self, pp_p: float) -> _Heading:
        np = self.np(("place", "institution", "thing", "food"), adj_p=0.5, of_p=0.25)
        return _Heading(np, self.pp() if self.s.random() < pp_p else None)

    def row(self) -> _Row:
        opening = _randint(self.w, 7, 11)
        closing = _randint(self.w, 16, 22)
        hours = f"{opening}:{_choice(self.w, ('00', '30'))}–{closing}:{_choice(self.w, ('00', '30'))}"
        price = (_randint(self.w, 2, 60), _choice(self.w, (0, 0, 50, 90)))
        return _Row(self.np(("place", "institution", "food"), adj_p=0.3), hours, price)

    def paragraph(self, low: int, high: int) -> _Block:
        return _Block("p", tuple(self.sentence() for _ in range(_randint(self.s, low, high))))

    def section_part(self) -> _Block:
        r = self.s.random()
        if r < 0.72:
            return self.paragraph(1, 5)
        if r < 0.92:
            n = _randint(self.s, 3, 7)
            if self.s.random() < 0.6:
                return _Block("ul", tuple(self.heading(0.3) for _ in range(n)))
            return _Block("ul", tuple(self.sentence() for _ in range(n)))
        return _Block("table", tuple(self.row() for _ in range(_randint(self.s, 2, 6))))

    def document(self) -> tuple[_Block, ...]:
        """A whole document: title, introduction, then sections of paragraphs, lists and tables."""
        blocks = [_Block("h1", (self.heading(0.5),)), self.paragraph(1, 3)]
        for _ in range(_choice(self.s, (1, 2, 2, 3, 3, 4, 5))):
            blocks.append(_Block("h2", (self.heading(0.2),)))
            blocks.extend(self.section_part() for _ in range(_randint(self.s, 1, 3)))
        return tuple(blocks)


# --------------------------------------------------------------------------------------------------
# Rendering concepts in one language


def _has_final_consonant(text: str) -> bool:
    """Whether a Korean word ends in a consonant (batchim), which selects particle forms."""
    if not text:
        return False
    code = ord(text[-1]) - 0xAC00
    return 0 <= code < 11172 and code % 28 != 0


def _join_ko(tokens: Sequence[str]) -> str:
    out = ""
    for tok in tokens:
        if not tok:
            continue
        if tok.startswith("~"):
            head, _, rest = tok[1:].partition(" ")
            if "/" in head:
                after_consonant, after_vowel = head.split("/", 1)
                head = after_consonant if _has_final_consonant(out) else after_vowel
            out += head + (" " + rest if rest else "")
        else:
            out += (" " if out else "") + tok
    return out


@dataclass(frozen=True)
class _Noun:
    definite: str
    bare: str
    gender: str  # "m", "f", "n", or "" where the language has no gender


def _parse_nouns(lex: Lexicon, lang: str) -> dict[int, _Noun]:
    """Split noun cells into article, bare noun and gender using the lexicon's ``the`` row."""
    articles = [a for a in lex.word(lex.key("the"), lang).split("/") if a]
    nouns = {}
    for cat in _NOUN_CATEGORIES:
        for cid in lex.ids(cat):
            cell = lex.word(cid, lang)
            gender = ""
            m = re.fullmatch(r"(.*)/([mfn])", cell)
            if m:
                cell, gender = m.group(1), m.group(2)
            bare = cell
            if lang == "en":
                bare = cell.removeprefix("the ")
            else:
                for i, art in enumerate(articles):
                    elided = art.endswith("'")
                    if cell.startswith(art if elided else art + " "):
                        bare = cell[len(art) :].lstrip()
                        # An elided article hides the gender: the cell's /m /f marker gives it.
                        gender = gender or ("m" if elided else "mfn"[i])
                        break
            nouns[cid] = _Noun(cell, bare, gender)
    return nouns


class _Renderer:
    """Renders concepts in one language, with that language's small random deviations."""

    def __init__(self, lex: Lexicon, lang: str) -> None:
        if lang not in lex.langs:
            raise ValueError(f"language {lang!r} not in the lexicon ({', '.join(lex.langs)})")
        self.lex = lex
        self.lang = lang
        self.nouns = _parse_nouns(lex, lang)
        col = lex.langs.index(lang)
        self.words = tuple("" if row[col] == "-" else row[col] for row in lex.rows)
        table = _CONTRACTIONS.get(lang)
        self.contractions = re.compile(r"\b(?:" + "|".join(map(re.escape, table)) + ")") if table else None
        self.rng = random.Random(0)
        self.verbosity = 0.0
        self.adjectives = lex.ids("adjective")
        self.adverbs = lex.ids("adverb")
        self.frequency_adverbs = _frequency_adverbs(lex)
        self.phrases = lex.ids("phrase")
        self.k_very = lex.key("very")

    def start_page(self, seed: int) -> None:
        """Reset the random deviations for a new page."""
        self.rng = random.Random(seed)
        # Some translators expand and others condense: a per-page bias makes whole translations
        # longer or shorter, where independent per-sentence noise would average out.
        self.verbosity = self.rng.uniform(-1.0, 1.0)

    def chance_add(self, p: float) -> bool:
        return self.rng.random() < p * (1.0 + self.verbosity)

    def chance_drop(self, p: float) -> bool:
        return self.rng.random() < p * (1.0 - self.verbosity)

    def w(self, concept: int) -> str:
        return self.words[concept]

    def k(self, english: str) -> str:
        """The word of the concept whose English cell is ``english``."""
        return self.words[self.lex.key(english)]

    def ui(self, english: str) -> str:
        return self.k(english)

    # -- noun phrases ---------------------------------------------------------------------------

    def adjective(self, adj: int, gender: str, case: str, definite: bool, predicative: bool = False) -> str:
        cell = self.w(adj)
        lang = self.lang
        if lang in ("fr", "es"):
            forms = cell.split("/")
            return forms[1] if gender == "f" and len(forms) > 1 else forms[0]
        if lang == "de":
            if predicative:
                return cell
            endings = _DE_WEAK if definite else _DE_MIXED
            return cell + endings[case][gender or "n"]
        if lang == "ko":
            attr, _, pred = cell.partition("/")
            return pred if predicative else attr
        if lang == "ja" and predicative:
            if cell.endswith("いる"):
                return cell[:-2] + "います"
            return (cell[:-1] if cell[-1] in "なの" else cell) + "です"
        return cell

    def np(self, np: _NP, case: str = "nom") -> str:
        noun = self.nouns[np.noun]
        adj = np.adj
        if adj is not None and self.chance_drop(0.1):
            adj = None
        elif adj is None and self.chance_add(0.04):
            adj = _choice(self.rng, self.adjectives)
        adj_text = ""
        if adj is not None:
            adj_text = self.adjective(adj, noun.gender, case, np.definite)
            if self.chance_add(0.06):
                adj_text = (
                    f"{self.w(self.k_very)} {adj_text}"
                    if self.lang != "ja"
                    else self.w(self.k_very) + adj_text
                )
        of_text = self.np(np.of, "dat") if np.of is not None else ""
        of_word = self.k("of")
        lang = self.lang
        if lang == "ja":
            return (of_text + of_word if of_text else "") + adj_text + noun.bare
        if lang == "ko":
            return _join_ko([of_text, of_word if of_text else "", adj_text, noun.bare])
        words = [self.determiner(noun, case, np.definite, adj_text)]
        if lang in ("en", "de"):
            words += [adj_text, noun.bare]
        elif np.definite:
            words = [noun.definite, adj_text]  # fr/es: article is part of the cell, adjective follows
        else:
            words += [noun.bare, adj_text]
        if of_text:
            words += [of_word, of_text]
        return " ".join(w for w in words if w)

    def determiner(self, noun: _Noun, case: str, definite: bool, next_word: str) -> str:
        lang = self.lang
        if lang == "en":
            if definite:
                return "the"
            return _english_indefinite(next_word or noun.bare)
        if lang == "de":
            table = _DE_DEFINITE if definite else _DE_INDEFINITE
            return table[case][noun.gender or "n"]
        forms = self.k("a").split("/")
        return forms[1] if noun.gender == "f" and len(forms) > 1 else forms[0]

    def pp(self, pp: _PP, locative: bool = False, adnominal: bool = False) -> str:
        prep = self.w(pp.prep)
        lang = self.lang
        if lang in _SPACED_LANGS:
            case = "acc" if lang == "de" and prep in _DE_ACCUSATIVE_PREPS else "dat"
            return f"{prep} {self.np(pp.np, case)}"
        target = self.np(pp.np)
        if lang == "ja":
            if locative and prep.endswith("で"):
                prep = prep[:-1] + "に"
            if adnominal:
                prep = prep[:-1] + "の" if prep.endswith("に") else prep + "の"
            return target + prep
        if (locative or adnominal) and prep.endswith("에서"):
            prep = prep[:-2] + "에" + (" 있는" if adnominal else "")
        elif adnominal:
            return _join_ko([target, prep, "~의"])
        return _join_ko([target, prep])

    def heading(self, heading: _Heading) -> str:
        np = self.np(heading.np)
        if heading.pp is None:
            return _capitalize(self.finish(np, "")) if self.lang in _SPACED_LANGS else np
        if self.lang == "ja":
            return self.pp(heading.pp, adnominal=True) + np
        if self.lang == "ko":
            return self.pp(heading.pp, adnominal=True) + " " + np
        return _capitalize(self.finish(f"{np} {self.pp(heading.pp)}", ""))

    # -- clauses and sentences ------------------------------------------------------------------

    def varied_adverb(self, adverb: int | None, kind: str) -> int | None:
        """Translators drop an adverb now and then, and sometimes add one."""
        if adverb is not None:
            return None if self.chance_drop(0.2) else adverb
        if not self.chance_add(0.12):
            return None
        return _choice(self.rng, self.frequency_adverbs if kind == "cop" else self.adverbs)

    def subject(self, clause: _Clause) -> str:
        if clause.subj is None:
            return ""
        if clause.pronoun:
            forms = self.k("it").split("/")
            index = "mfn".index(self.nouns[clause.subj.noun].gender or "m")
            return forms[min(index, len(forms) - 1)] if forms[0] else ""
        return self.np(clause.subj)

    def clause(self, clause: _Clause, fronted: bool) -> str:
        if self.lang == "ja":
            return "".join(self.clause_ja(clause))
        if self.lang == "ko":
            return _join_ko(self.clause_ko(clause))
        return " ".join(t for t in self.clause_euro(clause, fronted) if t)

    def clause_euro(self, clause: _Clause, fronted: bool) -> list[str]:
        lang = self.lang
        adverb = self.varied_adverb(clause.adverb, clause.kind)
        adv = self.w(adverb) if adverb is not None else ""
        pre_verb = (
            adverb is not None and self.lex.rows[adverb][0] in _PRE_VERB_ADVERBS and lang in ("en", "es")
        )
        subj = self.subject(clause)
        pps = [self.pp(pp) for pp in clause.pps]
        if clause.kind == "cop":
            gender = self.nouns[clause.subj.noun].gender if clause.subj else ""
            verb = self.k("is")
            rest = [self.adjective(clause.adj, gender, "nom", True, predicative=True)]
            pre_verb = False  # "is often quiet": adverbs follow the copula
        elif clause.kind == "exist":
            first, _, verb = self.k("there is").rpartition(" ")
            subj, pre_verb = first, lang == "es" and pre_verb
            rest = [self.np(clause.obj, "acc")]
        else:
            verb = self.w(clause.verb) if clause.kind == "svo" else self.k("has")
            rest = [self.np(clause.obj, "acc")]
        if lang == "de" and fronted:
            tokens = [verb, subj, adv, *rest, *pps]  # verb-second: the fronted phrase takes the first slot
        elif pre_verb:
            tokens = [subj, adv, verb, *rest, *pps]
        elif lang in ("en", "es") and adv and clause.kind not in ("cop", "exist"):
            tokens = [subj, verb, *rest, *pps, adv]
        else:
            tokens = [subj, verb, adv, *rest, *pps]
        return tokens

    def clause_ja(self, clause: _Clause) -> list[str]:
        adverb = self.varied_adverb(clause.adverb, clause.kind)
        adv = self.w(adverb) if adverb is not None else ""
        subj = self.subject(clause)
        locative = clause.kind == "exist"
        pps = [self.pp(pp, locative=locative) for pp in clause.pps]
        if clause.kind == "cop":
            return [subj + "は" if subj else "", adv, self.adjective(clause.adj, "", "nom", True, True)]
        if clause.kind in ("exist", "has"):
            topic = subj + "には" if subj else ""
            return [topic, adv, *pps, self.np(clause.obj), self.k("there is")]
        return [subj + "は" if subj else "", adv, *pps, self.np(clause.obj) + "を", self.w(clause.verb)]

    def clause_ko(self, clause: _Clause) -> list[str]:
        adverb = self.varied_adverb(clause.adverb, clause.kind)
        adv = self.w(adverb) if adverb is not None else ""
        subj = self.subject(clause)
        pps = [self.pp(pp, locative=clause.kind == "exist") for pp in clause.pps]
        topic = [subj, "~은/는"] if subj else []
        if clause.kind == "cop":
            return [*topic, adv, self.adjective(clause.adj, "", "nom", True, True)]
        if clause.kind in ("exist", "has"):
            topic = [subj, "~에는"] if subj else []
            return [*topic, adv, *pps, self.np(clause.obj), self.k("there is")]
        return [*topic, adv, *pps, self.np(clause.obj), "~을/를", self.w(clause.verb)]

    def sentence(self, sentence: _Sentence) -> str:
        phrase = sentence.phrase
        if phrase is not None and self.chance_drop(0.15):
            phrase = None
        elif phrase is None and self.chance_add(0.08):
            phrase = _choice(self.rng, self.phrases)
        lead = self.w(phrase) if phrase is not None else ""
        parts = [self.clause(c, fronted=bool(lead) and i == 0) for i, c in enumerate(sentence.clauses)]
        if self.lang == "ja":
            text = lead + parts[0]
            if len(parts) > 1:
                text += "。" + self.w(sentence.conj) + "、" + parts[1]
            return text + "。"
        if self.lang == "ko":
            text = " ".join(t for t in (lead, parts[0]) if t)
            if len(parts) > 1:
                text += ". " + self.w(sentence.conj) + " " + parts[1]
            return text + "."
        text = parts[0]
        if len(parts) > 1:
            comma = "" if self.lex.rows[sentence.conj][0] in ("and", "or") else ","
            text += f"{comma} {self.w(sentence.conj)} {parts[1]}"
        return _capitalize(self.finish(text, lead)) + "."

    def finish(self, text: str, lead: str) -> str:
        """Prefix the sentence-initial phrase and apply the language's article contractions."""
        if lead:
            text = f"{lead} {text}"
        if self.contractions is not None:
            text = self.contractions.sub(self._contract, text)
        return text

    def _contract(self, m: re.Match[str]) -> str:
        return _CONTRACTIONS[self.lang][m.group(0)]

    def sentences(self, items: Sequence[_Sentence], markup_key: object = None) -> str:
        """A paragraph's HTML; translators sometimes leave out a sentence or add one of their own.

        Sentence ``i`` of the plan gets the inline markup chosen by ``(markup_key, i)``, so all
        translations (and a look-alike built from the same structure seed) carry the same tags;
        a sentence a translator adds gets none.
        """
        planned: list[tuple[int | None, _Sentence]] = list(enumerate(items))
        if len(planned) >= 2 and self.chance_drop(0.1):
            del planned[self.rng.randrange(len(planned))]
        if self.chance_add(0.12):
            extra = _Composer(self.lex, self.rng, self.rng).sentence()
            planned.insert(self.rng.randint(0, len(planned)), (None, extra))
        sep = "" if self.lang == "ja" else " "
        return sep.join(
            _esc(self.sentence(sent)) if i is None or markup_key is None
            else _inline_markup((markup_key, i), _esc(self.sentence(sent)), self.lang)
            for i, sent in planned
        )

    def price(self, price: tuple[int, int]) -> str:
        return self.k(_PRICE_KEY).format(price[0], f"{price[1]:02d}")


def _english_indefinite(next_word: str) -> str:
    first = next_word[:1].lower()
    if first in "aeio" or (first == "u" and not next_word.lower().startswith(("uni", "use", "usu"))):
        return "an"
    return "a"


def _capitalize(text: str) -> str:
    return text[:1].upper() + text[1:]


def _esc(text: str) -> str:
    return html.escape(text, quote=False)


_INLINE = ("em", "strong", "a", "br", "code")


def _inline_markup(key: object, html_text: str, lang: str) -> str:
    """Wrap a sentence in inline markup (emphasis, a link, code, a line break) chosen by ``key``.

    Real pages carry inline markup inside paragraphs and translators keep it, so the choice
    depends on the sentence's place in the language-independent plan only.
    """
    kind = _derive("markup", key) % 11
    if kind >= len(_INLINE):
        return html_text
    tag = _INLINE[kind]
    if tag == "a":
        return f'<a href="/{lang}/index.html">{html_text}</a>'
    if tag == "br":
        return html_text + "<br>"
    return f"<{tag}>{html_text}</{tag}>"


def _render_blocks(blocks: Sequence[_Block], r: _Renderer, markup_key: object = None) -> tuple[str, str]:
    """The title and the HTML of a document's blocks in the renderer's language."""
    title = ""
    out: list[str] = []
    for block in blocks:
        if block.kind in ("h1", "h2"):
            text = r.heading(block.items[0])
            title = title or text
            out.append(f"<{block.kind}>{_esc(text)}</{block.kind}>")
        elif block.kind == "p":
            key = None if markup_key is None else (markup_key, len(out))
            out.append(f"<p>{r.sentences(block.items, key)}</p>")
        elif block.kind == "ul":
            items = list(block.items)
            if len(items) > 3 and r.rng.random() < 0.04:
                del items[r.rng.randrange(len(items))]  # a translator skipped an item
            lis = "".join(f"<li>{_esc(_render_item(item, r))}</li>" for item in items)
            out.append(f"<ul>{lis}</ul>")
        else:
            out.append(_render_table(block.items, r))
    return title, "\n".join(out)


def _render_item(item: _Heading | _Sentence | _Row, r: _Renderer) -> str:
    if isinstance(item, _Heading):
        return r.heading(item)
    return r.sentence(item)


def _render_table(rows: Sequence[_Row], r: _Renderer) -> str:
    head = "".join(f"<th>{_esc(r.ui(k))}</th>" for k in ("Place", "Opening hours", "Price"))
    body = "".join(
        f"<tr><td>{_esc(r.heading(_Heading(row.np)))}</td><td>{row.hours}</td><td>{_esc(r.price(row.price))}</td></tr>"
        for row in rows
    )
    return f"<table>\n<tr>{head}</tr>\n{body}\n</table>"


# --------------------------------------------------------------------------------------------------
# Site plan


@dataclass(frozen=True)
class SiteInfo:
    """What :func:`generate_site` wrote, with the gold standard and the special pages."""

    root: Path
    www: Path
    base_url: str
    langs: tuple[str, ...]
    hosts_path: Path
    seeds_path: Path
    pages_path: Path
    gold_path: Path
    content_types_path: Path
    pages: tuple[tuple[str, str], ...]  # (url, lang) of every content page, sorted by URL
    gold: tuple[tuple[str, str, str, str], ...]  # (lang1, url1, lang2, url2), lang1 < lang2
    sitemap_only: tuple[str, ...] = ()  # pages linked only from sitemap.xml
    feed_only: tuple[str, ...] = ()  # pages linked only from feed.xml
    private: tuple[str, ...] = ()  # pages under a robots.txt Disallow
    hard_negatives: tuple[str, ...] = ()  # single-language look-alikes of other documents
    home_pages: Mapping[str, str] = field(default_factory=dict)  # lang -> URL of its home page
    assets: tuple[str, ...] = ()  # binary files (PDF, PNG)
    charsets: Mapping[str, str] = field(default_factory=dict)  # lang -> encoding of its pages
    retemplated: tuple[str, ...] = ()  # pages written with the other template (_legacy_page)

    @property
    def page_count(self) -> int:
        """Number of content pages (the lines of pages.tsv)."""
        return len(self.pages)


@dataclass
class _Doc:
    id: int
    role: str  # "regular", "orphan", "feed", "hard_negative"
    langs: tuple[str, ...]
    struct_seed: int
    lex_seed: int
    target: int | None = None  # the document a hard negative imitates
    titles: dict[str, str] = field(default_factory=dict)
    bodies: dict[str, str] = field(default_factory=dict)
    paths: dict[str, str] = field(default_factory=dict)


def _derive(*parts: object) -> int:
    """A stable 64-bit seed from its parts (``hash()`` is salted per process)."""
    digest = hashlib.blake2b(":".join(map(str, parts)).encode(), digest_size=8).digest()
    return int.from_bytes(digest, "big")


def _plan_docs(
    n_docs: int, langs: Sequence[str], seed: int, coverage: float, hard_negatives: int, extras: bool
) -> list[_Doc]:
    """Decide which documents exist, in which languages, and their roles."""
    rng = random.Random(_derive(seed, "plan"))
    n_special = 0
    if extras and n_docs >= 4:
        n_special = 1 + max(1, n_docs // 20)  # one feed-only document plus the sitemap orphans
    special = set(rng.sample(range(n_docs), n_special))
    special_order = sorted(special)
    docs = []
    for i in range(n_docs):
        cov = random.Random(_derive(seed, "coverage", i))
        present = [langs[0]] + [lang for lang in langs[1:] if cov.random() < coverage]
        role = "regular"
        if i in special:
            role = "feed" if i == special_order[0] else "orphan"
            if len(present) < 2 and len(langs) > 1:
                present.append(langs[1 + cov.randrange(len(langs) - 1)])  # they must have gold pairs
        present.sort(key=langs.index)
        docs.append(_Doc(i, role, tuple(present), _derive(seed, "struct", i), _derive(seed, "lex", i)))
    docs.extend(_plan_hard_negatives(docs, langs, seed, hard_negatives, rng))
    return docs


def _plan_hard_negatives(
    docs: list[_Doc], langs: Sequence[str], seed: int, count: int, rng: random.Random
) -> list[_Doc]:
    """Look-alikes of regular documents, preferably in a language the original lacks."""
    if count <= 0 or len(langs) < 2:
        return []
    regular = [d for d in docs if d.role == "regular"]
    if not regular:
        return []
    gaps = [(d, lang) for d in regular for lang in langs[1:] if lang not in d.langs]
    rng.shuffle(gaps)
    out = []
    for k in range(count):
        if k < len(gaps):
            target, lang = gaps[k]
        else:
            target, lang = _choice(rng, regular), _choice(rng, langs[1:])
        hid = len(docs) + k
        out.append(
            _Doc(
                hid, "hard_negative", (lang,), target.struct_seed, _derive(seed, "lex", hid), target=target.id
            )
        )
    return out


def _slugify(title: str, lang: str) -> str:
    if lang in _SPACED_LANGS:
        folded = title.lower().replace("ß", "ss").replace("œ", "oe").replace("æ", "ae")
        folded = unicodedata.normalize("NFKD", folded).encode("ascii", "ignore").decode()
        slug = re.sub(r"[^a-z0-9]+", "-", folded).strip("-")
        if len(slug) > 60:
            slug = slug[:60].rsplit("-", 1)[0]
        return slug
    return re.sub(r"[\W_]+", "-", title).strip("-")[:30].strip("-")


def _compose_doc(doc: _Doc, lex: Lexicon, renderers: Mapping[str, _Renderer], seed: int) -> None:
    blocks = _Composer(lex, random.Random(doc.struct_seed), random.Random(doc.lex_seed)).document()
    for lang in doc.langs:
        r = renderers[lang]
        r.start_page(_derive(seed, "render", doc.id, lang))
        doc.titles[lang], doc.bodies[lang] = _render_blocks(blocks, r, markup_key=doc.struct_seed)


def _assign_paths(docs: Sequence[_Doc]) -> None:
    """URL paths from the titles, made unique per language; ``index*`` is kept for listings."""
    used: set[str] = set()
    for doc in docs:
        for lang in doc.langs:
            slug = _slugify(doc.titles[lang], lang) or f"page-{doc.id}"
            candidate, n = slug, 1
            while f"/{lang}/{candidate}.html" in used or re.fullmatch(r"index(-\d+)?", candidate):
                n += 1
                candidate = f"{slug}-{n}"
            doc.paths[lang] = f"/{lang}/{candidate}.html"
            used.add(doc.paths[lang])


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
