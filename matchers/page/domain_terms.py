"""The domain definition of a focused crawl: weighted (multi-word) terms per language, and the
counting of their occurrences in a text.

Papavassiliou et al., *ILSP-FC* (section 3.5, Text Classifier): "the definition consists of term
triplets (``<relevance weight, (multi-word) term, subdomain>``) that describe a domain and,
optionally, subcategories of this domain.  Language-dependent stemmers ... are used to stem
user-provided terms and document content."  The file format is ILSP-FC's topic file, one term a
line::

    WEIGHT:TERM=SUBDOMAIN[;SUBDOMAIN...][>LANG]

    # web internationalization
    100:character encoding=characters>en
    100:Zeichenkodierung=characters>de
    80:language tag=language;metadata>en
    50:Unicode=characters

``WEIGHT`` is a number (ILSP-FC suggests 100 for a term of the domain and less for an ambiguous
one; a negative weight lowers the score of the pages that have the term, which then does not
count as a domain term); ``TERM`` is one or more words, matched case-insensitively and stemmed;
``SUBDOMAIN`` names the part of the domain the term belongs to (several separated by ``;``);
``LANG`` is the term's language (ISO 639-1, region subtags ignored).  A term without ``>LANG``
is looked for on pages of every language (names, codes and loanwords: ``Unicode``, ``UTF-8``).
Blank lines and lines starting with ``#`` are skipped; a malformed line is reported with its
number and skipped (:class:`DomainReport`).

Normalization: NFKC, case folding, words split at anything that is not a letter or a digit
(``UTF-8`` is the two words ``utf 8``, ``l'encodage`` is ``l encodage``).  Stemming: the Snowball
stemmer of the language (``snowballstemmer``: English, German, French, Spanish, Russian, Arabic,
Polish and some thirty others) on both the terms and the text.  A language without a Snowball
stemmer matches a term word against any text word that begins with it, when the term word has at
least :data:`PREFIX_MIN_CHARS` characters (write the common stem: Ukrainian ``кодуван`` matches
``кодування`` and ``кодуванні``); Chinese, Japanese and the other scripts written without spaces
match the term's characters anywhere in the text.  A page whose language has no term of its own
is matched against the terms of every language.
"""

from __future__ import annotations

import functools
import re
import unicodedata
from collections import Counter
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, field
from pathlib import Path

from matchers.page.lang_codes import base_language

# A term word of a language without a stemmer matches text words it begins only from this length:
# shorter prefixes begin too many unrelated words.
PREFIX_MIN_CHARS = 4

# ISO 639-1 (or -3) -> Snowball algorithm name; only those snowballstemmer provides are used.
_SNOWBALL = {
    "ar": "arabic", "hy": "armenian", "eu": "basque", "ca": "catalan", "cs": "czech", "da": "danish",
    "nl": "dutch", "en": "english", "eo": "esperanto", "et": "estonian", "fi": "finnish", "fr": "french",
    "de": "german", "el": "greek", "hi": "hindi", "hu": "hungarian", "id": "indonesian", "ga": "irish",
    "it": "italian", "lt": "lithuanian", "ne": "nepali", "no": "norwegian", "nn": "norwegian",
    "fa": "persian", "pl": "polish", "pt": "portuguese", "ro": "romanian", "ru": "russian",
    "sr": "serbian", "st": "sesotho", "es": "spanish", "sv": "swedish", "ta": "tamil", "tr": "turkish",
    "yi": "yiddish",
}
# Scripts written without spaces between words: terms are matched as character strings.
_NO_SPACES = frozenset({"zh", "ja", "th", "lo", "my", "km", "bo"})

_WORD = re.compile(r"[^\W_]+")
_LANG_TAG = re.compile(r"[A-Za-z]{2,3}(?:[-_][A-Za-z0-9]{1,8})*")


class DomainFileError(ValueError):
    """A domain file that cannot be used at all (missing, unreadable, or without a valid line)."""


@dataclass(frozen=True)
class DomainTerm:
    """One line of the domain file."""

    weight: float
    term: str  # as written in the file
    subdomains: tuple[str, ...]
    lang: str | None  # base language, or None: every language
    line: int


@dataclass
class DomainReport:
    """A parsed domain file: its terms and the lines that were skipped, each with its number."""

    terms: list[DomainTerm] = field(default_factory=list)
    problems: list[str] = field(default_factory=list)


def normalize(text: str) -> str:
    return unicodedata.normalize("NFKC", text).casefold()


def words(text: str) -> list[str]:
    """The normalized words of ``text`` (letters and digits; everything else separates)."""
    return _WORD.findall(normalize(text))


def stemmer_name(lang: str | None) -> str | None:
    """The Snowball algorithm for ``lang``, or None when snowballstemmer has none."""
    name = _SNOWBALL.get(base_language(lang)) if lang else None
    return name if name is not None and name in _algorithms() else None


@functools.cache
def _algorithms() -> frozenset[str]:
    # Imported on first use: only a focused crawl stems, and the package loads every algorithm.
    import snowballstemmer

    return frozenset(snowballstemmer.algorithms())


@functools.lru_cache(maxsize=64)
def _stem_function(name: str) -> Callable[[str], str]:
    import snowballstemmer

    # A site repeats its vocabulary from page to page: each word is stemmed once.
    return functools.lru_cache(maxsize=1 << 16)(snowballstemmer.stemmer(name).stemWord)


def parse_domain_text(text: str, source: str = "domain file") -> DomainReport:
    """Parse ILSP-FC's ``WEIGHT:TERM=SUBDOMAIN[;...][>LANG]`` lines (module docstring)."""
    report = DomainReport()
    for number, raw in enumerate(text.splitlines(), start=1):
        line = raw.strip()
        if not line or line.startswith("#"):
            continue
        term, problem = _parse_line(line, number)
        if problem:
            report.problems.append(f"{source} line {number}: {problem}: {raw.strip()[:80]!r}")
        elif term is not None:
            report.terms.append(term)
    return report


def _parse_line(line: str, number: int) -> tuple[DomainTerm | None, str]:
    weight_text, colon, rest = line.partition(":")
    if not colon:
        return None, "expected WEIGHT:TERM=SUBDOMAIN[>LANG]"
    try:
        weight = float(weight_text.strip())
    except ValueError:
        return None, f"the weight {weight_text.strip()!r} is not a number"
    if weight != weight or weight in (float("inf"), float("-inf")) or weight == 0:
        return None, "the weight must be a non-zero number"
    lang: str | None = None
    if ">" in rest:
        rest, _, lang_text = rest.rpartition(">")
        lang_text = lang_text.strip()
        if not _LANG_TAG.fullmatch(lang_text):
            return None, f"{lang_text!r} is not a language code"
        lang = base_language(lang_text)
    term, equals, subdomains = rest.rpartition("=")
    if not equals:
        return None, "no =SUBDOMAIN after the term"
    term = " ".join(term.split())
    if not words(term):
        return None, "the term has no word"
    names = tuple(s.strip() for s in subdomains.split(";") if s.strip())
    if not names:
        return None, "no subdomain after '='"
    return DomainTerm(weight, term, names, lang, number), ""


def load_domain(path: str | Path) -> Domain:
    """The domain defined in the file at ``path``.  Malformed lines are skipped (their problems
    are in ``Domain.problems``); raises :class:`DomainFileError` when the file cannot be read or
    has no valid line."""
    p = Path(path)
    try:
        text = p.read_bytes().decode("utf-8-sig")
    except OSError as exc:
        raise DomainFileError(f"cannot read the domain file {str(p)!r}: {exc.strerror or exc}") from exc
    except UnicodeDecodeError as exc:
        raise DomainFileError(f"the domain file {str(p)!r} is not UTF-8 text") from exc
    report = parse_domain_text(text, source=str(p))
    if not report.terms:
        detail = f" ({len(report.problems)} malformed lines)" if report.problems else ""
        raise DomainFileError(f"the domain file {str(p)!r} has no valid WEIGHT:TERM=SUBDOMAIN[>LANG] line{detail}")
    return Domain(p.stem, tuple(report.terms), tuple(report.problems))


@functools.lru_cache(maxsize=8)
def cached_domain(path: str, mtime_ns: int) -> Domain:
    """:func:`load_domain`, once per file version (the spider and the stages share it)."""
    del mtime_ns  # part of the cache key only
    return load_domain(path)


def domain_at(path: str) -> Domain:
    """The domain file at ``path``, parsed once while it is unchanged."""
    try:
        mtime = Path(path).stat().st_mtime_ns
    except OSError:
        mtime = 0  # load_domain reports the file
    return cached_domain(path, mtime)


class TermMatcher:
    """Counts the occurrences of a set of terms in texts of one language."""

    def __init__(self, terms: Sequence[tuple[int, DomainTerm]], lang: str | None) -> None:
        self.lang = base_language(lang) if lang else ""
        name = stemmer_name(self.lang)
        self._stem = _stem_function(name) if name else None
        self._chars = self.lang in _NO_SPACES
        self._strings: list[tuple[int, str]] = []
        # First word (stemmed) -> [(term index, its other words)].
        self._first: dict[str, list[tuple[int, tuple[str, ...]]]] = {}
        for index, term in terms:
            if self._chars:
                self._strings.append((index, "".join(words(term.term))))
                continue
            keys = self._keys(words(term.term))
            self._first.setdefault(keys[0], []).append((index, tuple(keys[1:])))

    def _keys(self, tokens: Iterable[str]) -> list[str]:
        stem = self._stem
        return [stem(t) for t in tokens] if stem is not None else list(tokens)

    def count(self, text: str) -> Counter[int]:
        """Occurrences of each term (by index) in ``text``; overlapping matches all count."""
        found: Counter[int] = Counter()
        if not text:
            return found
        if self._chars:
            flat = "".join(words(text))
            for index, string in self._strings:
                if string:
                    found[index] += flat.count(string)
            return +found
        keys = self._keys(words(text))
        if self._stem is None:
            self._count_prefixes(keys, found)
            return found
        first = self._first
        for i, key in enumerate(keys):
            for index, rest in first.get(key, ()):
                if tuple(keys[i + 1:i + 1 + len(rest)]) == rest:
                    found[index] += 1
        return found

    def _count_prefixes(self, keys: list[str], found: Counter[int]) -> None:
        first = self._first
        for i, key in enumerate(keys):
            for index, rest in self._candidates(first, key):
                if len(keys) - i - 1 >= len(rest) and all(
                        _begins(keys[i + 1 + j], w) for j, w in enumerate(rest)):
                    found[index] += 1

    @staticmethod
    def _candidates(first: dict[str, list[tuple[int, tuple[str, ...]]]],
                    key: str) -> Iterable[tuple[int, tuple[str, ...]]]:
        yield from first.get(key, ())
        for n in range(PREFIX_MIN_CHARS, len(key)):
            yield from first.get(key[:n], ())


def _begins(word: str, term_word: str) -> bool:
    return word == term_word or (len(term_word) >= PREFIX_MIN_CHARS and word.startswith(term_word))


@dataclass(frozen=True)
class Domain:
    """A parsed domain definition; :meth:`matcher` gives the term counter of a page language."""

    name: str
    terms: tuple[DomainTerm, ...]
    problems: tuple[str, ...] = ()
    # One matcher per page language, built on first use (the terms are stemmed once).
    _matchers: dict[str, TermMatcher] = field(default_factory=dict, compare=False, hash=False, repr=False)

    @property
    def langs(self) -> frozenset[str]:
        return frozenset(t.lang for t in self.terms if t.lang)

    def terms_for(self, lang: str | None) -> list[tuple[int, DomainTerm]]:
        """The terms looked for on a page in ``lang``: its own and the language-neutral ones;
        every term when the language has none of its own."""
        base = base_language(lang) if lang else ""
        own = [(i, t) for i, t in enumerate(self.terms) if t.lang is None or t.lang == base]
        if any(t.lang is not None for _, t in own):
            return own
        return list(enumerate(self.terms))

    def matcher(self, lang: str | None) -> TermMatcher:
        key = base_language(lang) if lang else ""
        found = self._matchers.get(key)
        if found is None:
            found = self._matchers[key] = TermMatcher(self.terms_for(key), key or None)
        return found
