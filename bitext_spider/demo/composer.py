"""Language-independent documents for the demo generator: noun phrases, clauses, sentences and
blocks composed as concepts from two random streams, a structural one (how many blocks, of which
kind) and a lexical one (which words), so a hard negative can replay one and not the other."""

from __future__ import annotations

import dataclasses
import hashlib
import random
from collections.abc import Sequence
from dataclasses import dataclass

from bitext_spider.demo.lexicon import _PRE_VERB_ADVERBS, Lexicon, T

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


def _derive(*parts: object) -> int:
    """A stable 64-bit seed from its parts (``hash()`` is salted per process)."""
    digest = hashlib.blake2b(":".join(map(str, parts)).encode(), digest_size=8).digest()
    return int.from_bytes(digest, "big")
