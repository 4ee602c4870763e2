"""Dictionary content filter: PCB's bag-of-words translation scores over a bilingual dictionary.

Tsvetkov and Wintner, *Automatic Acquisition of Parallel Corpora from Websites with Dynamic
Content* (LREC 2010), section 3.2.2: after "tokenization, lemmatization and stop word removal,
each article is represented by its bag of words"; its translated bag holds "all possible
translations of each word", and texts H, E are mutual translations when
``|H ∩ E2H| / |H| > T_H`` and ``|E ∩ H2E| / |E| > T_E``.  "To texts that have more than one
parallel document ... we remove this text with all its candidate translations."

Dictionaries are in Bitextor's format (header ``l1<TAB>l2``, then ``word1<TAB>word2`` a line) and,
as in the paper, one dictionary serves both directions.

Decisions, measured by ``benchmarks/dictionary_thresholds.py`` on the W3C i18n articles: en-de,
en-es and en-fr, 123 gold pairs against the 11,307 other page pairs of the same languages (less 9
near-duplicate drafts of gold pages, counted apart), whole-page text, the project's word tokens.
TA/FA are true/false acceptance; "at 0.1% FA" is the recall at the lowest single threshold whose
false acceptances stay within 0.1% of the non-pairs.

* Words unknown to the dictionary that occur unchanged in the other text (names, product names,
  technical terms, cognates spelled alike) count as found (``identical``).  TA at 0.1% FA: 91.1%
  with the paper's exact look-up, 96.7% with this; at zero FA 68.3% -> 81.3%.
* No lemmatizer exists here for most languages.  A word missing from the dictionary is looked up
  instead by its longest common prefix with the dictionary's words (a sorted list and bisect),
  when that prefix has at least ``min_prefix`` characters and at most ``MAX_PREFIX_RUN`` entries
  share it: a language-independent stand-in for stripping inflections.  With the full
  dictionaries, which already list many inflected forms, it changes little (with ``identical``,
  TA at 0.1% FA 96.7% either way, at zero FA 81.3% -> 91.1%); with a sparser dictionary it is what
  keeps the filter working: keeping a random 30% of each dictionary's pairs, TA at 0.1% FA is 84.6%
  without it and 95.1% with it, and the threshold that gives 0.1% FA moves only from 0.28 to 0.25
  (exact look-up alone: 35.8% even at T = 0.10, the lowest tried).  Prefixes of 5, 6 and 7
  characters measure alike (96.7/96.7/96.7% full, 95.1/95.1/95.1% at 30%, zero-FA 90.2/91.1/91.9%);
  also bounding the leftover suffix to 4 characters did worse (85.4% at zero FA), so it is off.
* Denominators are the whole bags, as in the paper.  Counting only the words the dictionary could
  judge (``judged_only``) did not help (TA at 0.1% FA 95.9% vs 96.7%) and made the scores depend
  more on the dictionary's coverage (the 0.1%-FA threshold moves from 0.34 to 0.39 at 30%).
* Stop words are jusText's lists (``stopwords``), which are frequency lists and so also hold
  common content words ("house", "haus").  Removing them still matters: kept in the bags, the
  threshold for 0.1% FA rises to 0.42 and drifts with the dictionary's coverage (0.42 full, 0.33 at
  30%, where TA at 0.1% FA falls to 87.0% and at zero FA to 52.0%, against 95.1% and 72.4%).  A
  language jusText has no list for (Japanese, Chinese, Thai...) gets no stop words, and then needs
  higher thresholds or a stop list of the caller's.
* Tokens with a digit and one-character tokens are dropped (a dictionary has no numbers, so they
  could only count as untranslated); hyphens and apostrophes split a token, since dictionary
  entries are simple words ("e-mail" -> "mail", "l'" -> dropped).
* Multi-word dictionary entries are kept verbatim (inner whitespace collapsed) but never split:
  indexing ``ice cream -> Eis`` under ``ice`` and ``cream`` would add wrong translations.  A word
  tokenizer never produces such a token, so they are inert in bags; the shipped dictionaries have
  none.

Default thresholds ``T1 = T2 = 0.30`` (one value: which language is first depends on the caller):
TA 96.7% (119 of 123; the 4 misses include three pairs whose English page has two words), FA
0.06% (7 of 11,307) plus 6 of 9 near-duplicates; after ``drop_ambiguous`` over all pairs, 106
gold pairs (86.2%) and one near-duplicate are kept.  With a 50% or 30% dictionary, TA 89.4% / 80.5%
at FA 0.03% / 0.01%.
"""

from __future__ import annotations

import bisect
import logging
import re
import unicodedata
from collections import Counter
from collections.abc import Container, Iterable
from dataclasses import dataclass, field
from pathlib import Path

from matchers.page.lang_codes import primary_subtag
from matchers.page.main_content import stoplist

logger = logging.getLogger(__name__)

# Chosen on the W3C i18n development site (module docstring, benchmarks/dictionary_thresholds.py).
DEFAULT_MIN_PREFIX = 6
DEFAULT_MAX_SUFFIX: int | None = None
DEFAULT_IDENTICAL = True
DEFAULT_T1 = 0.30
DEFAULT_T2 = 0.30

# More malformed lines than this share of the data lines means the file is not a dictionary (wrong
# format or wrong file), and silently using the few lines that parse would hide that.
MAX_MALFORMED_SHARE = 0.5
# Beyond this many per-line warnings only the summary is logged, so a bad file cannot flood the log.
MAX_LINE_WARNINGS = 10
# A prefix shared by more dictionary words than this is a stem too generic to stand for the word.
MAX_PREFIX_RUN = 8

_LANG_CODE = re.compile(r"[a-z]{2,3}(?:-[a-z0-9]{1,8})*")
_HAS_DIGIT = re.compile(r"\d")
# Bilingual dictionaries list simple words: a tokenizer that keeps "e-mail" or the elided "l'"
# whole would never find them, so hyphens and apostrophes split a token.
_WORD_PARTS = re.compile(r"[-'\u2019]+")



class DictionaryError(ValueError):
    """A dictionary file that cannot be used: ``path:LINE: reason`` (``path: reason`` when unreadable)."""


def normalize_word(word: str) -> str:
    """NFKC then casefold, so dictionary entries, stop words and page tokens compare alike.

    Casefolding (not just lowercasing) makes ``Straße`` and ``STRASSE`` one word; it must be applied
    to both sides, which is why bags go through ``bag_of_words``.
    """
    return unicodedata.normalize("NFKC", word).casefold()


def normalize_lang(lang: str) -> str:
    """``pt_BR`` -> ``pt-br``."""
    return lang.strip().replace("_", "-").lower()


def stopwords(lang: str) -> frozenset[str]:
    """jusText's stop list for ``lang`` (ISO 639 code, regional variants by base language), normalized.

    Empty for a language jusText has no list for: its bags then keep their function words, which
    lowers both scores alike.  Loading reads a file, so a caller scoring many pages keeps the result.
    """
    return frozenset(normalize_word(w) for w in stoplist(lang))


def bag_of_words(tokens: Iterable[str], stop_words: frozenset[str] = frozenset()) -> frozenset[str]:
    """PCB's bag of words of a text: its distinct normalized tokens less stop words.

    Tokens with a digit and one-character tokens are dropped too: a bilingual dictionary has no
    numbers, so they could only count as untranslated words, and a single letter is an initial,
    an elided article (``l'``, ``d'``) or a list marker rather than a word.
    """
    bag = set()
    for token in tokens:
        for word in _WORD_PARTS.split(normalize_word(token)):
            if len(word) > 1 and word not in stop_words and not _HAS_DIGIT.search(word):
                bag.add(word)
    return frozenset(bag)


def _common_prefix_length(a: str, b: str) -> int:
    n = min(len(a), len(b))
    i = 0
    while i < n and a[i] == b[i]:
        i += 1
    return i


@dataclass
class BilingualDictionary:
    """Word pairs of two languages, indexed both ways.  Treat as read-only once built."""

    lang1: str
    lang2: str
    forward: dict[str, frozenset[str]]
    backward: dict[str, frozenset[str]]
    skipped: list[tuple[int, str]] = field(default_factory=list)
    # Sorted words of each side, for the prefix look-up of words the dictionary lacks.
    _sorted: tuple[list[str], list[str]] = field(init=False, repr=False, compare=False)

    def __post_init__(self) -> None:
        self._sorted = (sorted(self.forward), sorted(self.backward))

    def __len__(self) -> int:
        """Number of distinct word pairs."""
        return sum(len(v) for v in self.forward.values())

    def side(self, lang: str) -> int:
        """0 when ``lang`` is the header's first language, 1 when the second; ValueError otherwise.

        An exact code wins over a base-language match, so a ``zh-hans``/``zh-hant`` dictionary still
        orients; a code that matches both sides only by base language is ambiguous and refused.
        """
        code = normalize_lang(lang)
        codes = (normalize_lang(self.lang1), normalize_lang(self.lang2))
        if code in codes and codes[0] != codes[1]:
            return codes.index(code)
        base = primary_subtag(code)
        hits = [i for i, c in enumerate(codes) if primary_subtag(c) == base]
        if len(hits) != 1:
            why = "is ambiguous for" if hits else "is not covered by"
            raise ValueError(f"language {lang!r} {why} the {self.lang1}-{self.lang2} dictionary")
        return hits[0]

    def covers(self, l1: str, l2: str) -> bool:
        """Whether the dictionary translates between ``l1`` and ``l2``, in either orientation."""
        try:
            return self.side(l1) != self.side(l2)
        except ValueError:
            return False

    def table(self, from_lang: str) -> dict[str, frozenset[str]]:
        """The word -> translations table out of ``from_lang``."""
        return self.backward if self.side(from_lang) else self.forward

    def translations(self, word: str, from_lang: str) -> frozenset[str]:
        """Every translation of ``word`` (exact entry, after normalization) out of ``from_lang``."""
        return self.table(from_lang).get(normalize_word(word), frozenset())

    def resolve(
        self,
        word: str,
        lang: str,
        min_prefix: int | None = DEFAULT_MIN_PREFIX,
        max_suffix: int | None = DEFAULT_MAX_SUFFIX,
    ) -> frozenset[str]:
        """The dictionary words of ``lang`` that stand for ``word`` (normalized first).

        ``{word}`` when it is an entry.  Otherwise, with ``min_prefix`` set, the entries sharing the
        longest common prefix with it, when that prefix has at least ``min_prefix`` characters and
        neither word goes on for more than ``max_suffix`` characters past it: a language-independent
        stand-in for the lemmatizer PCB uses.
        """
        return self._resolve(normalize_word(word), self.side(lang), min_prefix, max_suffix)

    def translate_word(
        self, word: str, from_lang: str, min_prefix: int | None = DEFAULT_MIN_PREFIX
    ) -> frozenset[str]:
        """Every translation of ``word`` out of ``from_lang``, through :meth:`resolve`'s entries
        (the word itself or the entries of its longest common prefix)."""
        side = self.side(from_lang)
        table = self.backward if side else self.forward
        out: set[str] = set()
        for entry in self._resolve(normalize_word(word), side, min_prefix, DEFAULT_MAX_SUFFIX):
            out |= table[entry]
        return frozenset(out)

    def _resolve(
        self, word: str, side: int, min_prefix: int | None, max_suffix: int | None
    ) -> frozenset[str]:
        table = self.backward if side else self.forward
        if word in table:
            return frozenset((word,))
        if min_prefix is None or len(word) < min_prefix:
            return frozenset()
        words = self._sorted[side]
        # The entry of longest common prefix is a neighbour of the word's insertion point, and all
        # entries with that prefix form one run around it.
        i = bisect.bisect_left(words, word)
        best = max(
            (_common_prefix_length(word, words[j]) for j in (i - 1, i) if 0 <= j < len(words)), default=0
        )
        if best < min_prefix or (max_suffix is not None and len(word) - best > max_suffix):
            return frozenset()
        stem = word[:best]
        run = words[bisect.bisect_left(words, stem) : bisect.bisect_left(words, stem + "\U0010ffff")]
        found = [w for w in run if max_suffix is None or len(w) - best <= max_suffix]
        if len(found) > MAX_PREFIX_RUN:
            return frozenset()
        return frozenset(found)


def load_dictionary(path: str | Path) -> BilingualDictionary:
    """Read a Bitextor dictionary: header ``l1<TAB>l2``, then ``word1<TAB>word2`` a line.

    Entries are NFKC-normalized and casefolded; duplicates merge.  Blank lines are ignored.  A
    malformed line (not two fields, an empty field, bytes that are not UTF-8) is skipped and
    recorded in ``skipped`` with its line number; the first ``MAX_LINE_WARNINGS`` are logged one by
    one, then a summary.  A missing or unreadable file, a bad header, no entries at all, or more than
    ``MAX_MALFORMED_SHARE`` malformed lines raise DictionaryError.
    """
    path = Path(path)
    forward: dict[str, set[str]] = {}
    backward: dict[str, set[str]] = {}
    skipped: list[tuple[int, str]] = []
    data_lines = 0
    try:
        with path.open("rb") as f:
            header = f.readline()
            lang1, lang2 = _parse_header(path, header)
            for lineno, raw in enumerate(f, start=2):
                text, reason = _decode_line(raw)
                if text is not None and not text.strip():
                    continue
                data_lines += 1
                if text is not None:
                    pair, reason = _parse_entry(text)
                    if pair is not None:
                        forward.setdefault(pair[0], set()).add(pair[1])
                        backward.setdefault(pair[1], set()).add(pair[0])
                        continue
                skipped.append((lineno, reason))
                if len(skipped) <= MAX_LINE_WARNINGS:
                    logger.warning("%s:%d: %s; line skipped", path, lineno, reason)
    except OSError as exc:
        raise DictionaryError(f"{path}: cannot read dictionary: {exc.strerror or exc}") from exc
    if skipped:
        logger.warning(
            "%s: %d of %d entry lines malformed and skipped (first at line %d)",
            path, len(skipped), data_lines, skipped[0][0],
        )  # fmt: skip
    if data_lines and len(skipped) > MAX_MALFORMED_SHARE * data_lines:
        first_line, first_reason = skipped[0]
        raise DictionaryError(
            f"{path}:{first_line}: {first_reason}; {len(skipped)} of {data_lines} entry lines are "
            f"malformed, so this is not a '{lang1}<TAB>{lang2}' word-pair dictionary"
        )
    if not forward:
        raise DictionaryError(f"{path}:1: no word pairs after the header")
    return BilingualDictionary(
        lang1=lang1,
        lang2=lang2,
        forward={w: frozenset(t) for w, t in forward.items()},
        backward={w: frozenset(t) for w, t in backward.items()},
        skipped=skipped,
    )


def _decode_line(raw: bytes) -> tuple[str | None, str]:
    if b"\x00" in raw:
        return None, "binary data (NUL byte)"
    try:
        return raw.decode("utf-8").rstrip("\r\n"), ""
    except UnicodeDecodeError as exc:
        return None, f"not UTF-8 (byte 0x{raw[exc.start]:02x} at column {exc.start + 1})"


def _parse_header(path: Path, raw: bytes) -> tuple[str, str]:
    if not raw:
        raise DictionaryError(f"{path}:1: empty file, expected a header 'l1<TAB>l2'")
    text, reason = _decode_line(raw.removeprefix(b"\xef\xbb\xbf"))
    if text is None:
        raise DictionaryError(f"{path}:1: {reason}, expected a header 'l1<TAB>l2'")
    fields = text.split("\t")
    if len(fields) != 2:
        raise DictionaryError(f"{path}:1: header {text[:40]!r} is not two tab-separated language codes")
    codes = tuple(normalize_lang(f) for f in fields)
    for code in codes:
        if not _LANG_CODE.fullmatch(code):
            raise DictionaryError(f"{path}:1: header field {code[:40]!r} is not a language code")
    if codes[0] == codes[1]:
        raise DictionaryError(f"{path}:1: header names one language twice ({codes[0]!r})")
    return codes[0], codes[1]


def _parse_entry(text: str) -> tuple[tuple[str, str] | None, str]:
    fields = text.split("\t")
    if len(fields) != 2:
        return None, f"expected 2 tab-separated fields, found {len(fields)}"
    # Inner whitespace is collapsed so a phrase entry is stored one way whatever its spacing.
    w1, w2 = (" ".join(normalize_word(f).split()) for f in fields)
    if not w1 or not w2:
        return None, "empty field"
    return (w1, w2), ""


def translate_bag(
    bag: Iterable[str],
    dic: BilingualDictionary,
    from_lang: str,
    min_prefix: int | None = DEFAULT_MIN_PREFIX,
    max_suffix: int | None = DEFAULT_MAX_SUFFIX,
) -> tuple[dict[str, frozenset[str]], frozenset[str]]:
    """The bag's words resolved to dictionary entries, and its translated bag (PCB's H2E).

    Both depend on one text only, so a caller comparing a page with many others can compute them
    once per page and use ``scores_from_translations``.
    """
    side = dic.side(from_lang)
    table = dic.backward if side else dic.forward
    resolved = {w: dic._resolve(w, side, min_prefix, max_suffix) for w in bag}
    translated: set[str] = set()
    for entries in resolved.values():
        for entry in entries:
            translated |= table[entry]
    return resolved, frozenset(translated)


def _share_found(
    resolved: dict[str, frozenset[str]],
    other_translated: frozenset[str],
    other_words: Container[str],
    judged_only: bool,
    identical: bool,
) -> float:
    """Share of one bag's words found among the other text's translations (or in it unchanged)."""
    hits = judged = 0
    for word, entries in resolved.items():
        if entries:
            judged += 1
            hits += not entries.isdisjoint(other_translated)
        elif identical and word in other_words:
            judged += 1
            hits += 1
    total = judged if judged_only else len(resolved)
    return hits / total if total else 0.0


def scores_from_translations(
    side1: tuple[dict[str, frozenset[str]], frozenset[str]],
    side2: tuple[dict[str, frozenset[str]], frozenset[str]],
    judged_only: bool = False,
    identical: bool = DEFAULT_IDENTICAL,
) -> tuple[float, float]:
    """``pcb_scores`` from two ``translate_bag`` results (text 1 in lang1, text 2 in lang2)."""
    (resolved1, translated1), (resolved2, translated2) = side1, side2
    return (
        _share_found(resolved1, translated2, resolved2, judged_only, identical),
        _share_found(resolved2, translated1, resolved1, judged_only, identical),
    )


def pcb_scores(
    bag1: Iterable[str],
    bag2: Iterable[str],
    dic: BilingualDictionary,
    lang1: str,
    lang2: str,
    *,
    min_prefix: int | None = DEFAULT_MIN_PREFIX,
    max_suffix: int | None = DEFAULT_MAX_SUFFIX,
    judged_only: bool = False,
    identical: bool = DEFAULT_IDENTICAL,
) -> tuple[float, float]:
    """PCB's two scores ``|B1 ∩ B2→1| / |B1|`` and ``|B2 ∩ B1→2| / |B2|``.

    Bags are ``bag_of_words`` results: ``bag1`` in ``lang1`` and ``bag2`` in ``lang2``, whichever
    order the dictionary's header gives.  A word counts as found when it, or the entries it
    resolves to (``BilingualDictionary.resolve``: exact, else by common prefix of ``min_prefix``
    characters), is among the other text's translations; with ``identical``, a word the dictionary
    does not know also counts when the other text has it unchanged.  With ``judged_only`` the
    denominators count only the words the dictionary could judge, instead of every word as in the
    paper.  An empty bag scores 0.  Comparing one page with many, use ``translate_bag`` once per
    page and ``scores_from_translations`` per pair: same result.
    """
    if dic.side(lang1) == dic.side(lang2):
        raise ValueError(
            f"{lang1!r} and {lang2!r} are the same side of the {dic.lang1}-{dic.lang2} dictionary"
        )
    return scores_from_translations(
        translate_bag(bag1, dic, lang1, min_prefix, max_suffix),
        translate_bag(bag2, dic, lang2, min_prefix, max_suffix),
        judged_only,
        identical,
    )


def pcb_accept(scores: tuple[float, float], t1: float = DEFAULT_T1, t2: float = DEFAULT_T2) -> bool:
    """PCB's test: both scores strictly above their thresholds."""
    return scores[0] > t1 and scores[1] > t2


def drop_ambiguous(accepted: Iterable[tuple[str, str]]) -> tuple[set[tuple[str, str]], set[str]]:
    """PCB's policy for a text with more than one accepted counterpart: drop it and all its pairs.

    ``accepted`` holds ``(id_in_lang1, id_in_lang2)`` pairs of one language pair; the caller groups
    by language pair, since a page with one German and one French translation is not ambiguous.
    Returns the kept pairs (both ends have exactly one counterpart) and the dropped texts: every
    text of a removed pair, so the ambiguous texts and, as in the paper, their candidate
    translations.  A pair listed twice is one pair.
    """
    pairs = set(accepted)
    degree1 = Counter(a for a, _ in pairs)
    degree2 = Counter(b for _, b in pairs)
    kept = {(a, b) for a, b in pairs if degree1[a] == 1 and degree2[b] == 1}
    dropped = {text for pair in pairs - kept for text in pair}
    return kept, dropped
