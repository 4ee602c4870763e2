"""Sentence splitting per language, for the sentence alignment of the content filter.

Tomás et al., *WebMining*, section 2.3: "for each pair of candidate parallel webpages their
sentences are fragmented", then aligned by dynamic programming; Papavassiliou et al., *ILSP-FC*,
section 3.3 segments the text into paragraphs first, and this module splits one such
paragraph.  The splitter is Wikimedia's ``sentencex`` (rules and non-breaking prefixes for some
300 languages through fallback chains; 。！？ end sentences in any language; an unknown code
gets its English rules).  Around it:

* a period followed by a lower-case letter or a hyphen does not end a sentence (the rule of the
  Moses splitter): it catches abbreviations missing from sentencex's lists ("c.-à-d.", "o.a.",
  "t.ex.", "т. е.");
* closing brackets and quotes after a sentence's final stop stay with it: sentencex starts the
  next sentence with the ")" of "... hier.) Ein ...", and does not end one at ".) Note" or
  '."  Then'; a full stop, then closers, then a space and an upper-case letter (after an opening
  quote or bracket, if any) ends a sentence;
* a segment that starts with "<" continues the previous one (markup shown as text: "<em>..</em>");
* French and Dutch titles before a name ("M.", "Dr.", "Mevr.") are non-breaking, which
  sentencex's lists for those languages lack;
* Thai and Lao have no sentence punctuation: the space is what separates sentences and clauses
  (words are written together), so a space between two letters of those scripts is a boundary
  (not one after ๆ or ฯ, the repetition and abbreviation marks, which a word space follows).
  Khmer ends sentences with ។ and Burmese with ။; a Khmer or Burmese paragraph written without
  them is split at its spaces like Thai;
* a "sentence" longer than ``MAX_SENTENCE_CHARS`` (a list glued together, a CJK text without
  punctuation) is cut at a clause mark or space so the aligner never gets a monster.
"""

from __future__ import annotations

import re
from collections.abc import Iterator

from sentencex import segment

from matchers.page.lang_codes import primary_subtag

MAX_SENTENCE_CHARS = 1000

# Titles that precede a name, so their period never ends a sentence.
_TITLES: dict[str, frozenset[str]] = {
    "fr": frozenset({"M", "MM", "Mme", "Mmes", "Mlle", "Mlles", "Dr", "Pr", "Me", "Mgr", "St", "Ste"}),
    "nl": frozenset({"Dhr", "Mevr", "Mej", "Drs", "Ir"}),
}
# Letters of Thai and Lao, without the marks after which a space is a word space (ๆ ฯ ໆ ຯ).
_TL = "\u0e01-\u0e2e\u0e30-\u0e45\u0e47-\u0e7f\u0e80-\u0eae\u0eb0-\u0ec5\u0ec7-\u0eff"
_THAI_LAO_GAP = re.compile(f"(?<=[{_TL}])\\s+(?=[{_TL}])")
# Burmese (with its extensions) and Khmer (with its symbols).
_KM = "\u1000-\u109f\ua9e0-\ua9ff\uaa60-\uaa7f\u1780-\u17ff\u19e0-\u19ff"
_KHMER_MYANMAR_GAP = re.compile(f"(?<=[{_KM}])\\s+(?=[{_KM}])")
# Khmer khan and bariyoosan, Burmese section mark, Thai angkhankhu and khomut.
_SEA_STOPS = "\u17d4\u17d5\u104b\u0e5a\u0e5b"
_SEA_STOP = re.compile(f"(?<=[{_SEA_STOPS}])\\s*")
_HAS_SEA_STOP = re.compile(f"[{_SEA_STOPS}]")
_KHMER_MYANMAR_STOP = re.compile("[\u17d4\u17d5\u104b]")
# Closing brackets and quotes, and opening ones.  A segment sentencex starts with a bracket or a
# right double or single quote gets it moved back; straight quotes and guillemets are not moved,
# since they open quotations too (German writes »so«).
_CLOSERS = ")]}\u201d\u2019\u00bb\u203a\"'"
_OPENERS = "([{\u201c\u201e\u2018\u00ab\u2039\"'"
_LEADING_CLOSERS = re.compile("[)\\]}\u201d\u2019]+\\s*")
_STOP_CLOSERS_GAP = re.compile(f"(?<=[.!?\u2026][{re.escape(_CLOSERS)}])\\s+|(?<=[.!?\u2026][{re.escape(_CLOSERS)}]{{2}})\\s+")
# Where an over-long sentence is best cut: after a clause mark, else at a space.
_CLAUSE = re.compile(r"[,;:\u3001\uff0c\uff1b\uff1a\u060c\u061b]\s*")
_SPACE = re.compile(r"\s+")


def sentencex_code(lang: str | None) -> str:
    """sentencex's code for a language tag: ``"pt-BR"`` -> ``"pt"``, ``"zh_Hans"`` -> ``"zh"``."""
    code = primary_subtag(lang or "")
    return code if code and code != "und" else "en"


def _ends_with_title(segment_text: str, titles: frozenset[str]) -> bool:
    head = segment_text.rstrip()
    if not head.endswith("."):
        return False
    words = head[:-1].split()
    return bool(words) and words[-1].lstrip("(«\"'“‘") in titles


def _continues(prev: str, nxt: str, titles: frozenset[str]) -> bool:
    """Whether sentencex's boundary between ``prev`` and ``nxt`` is an abbreviation's period."""
    if not prev.rstrip().endswith("."):
        return False
    start = nxt.lstrip()[:1]
    return start in ("-", "<") or start.islower() or _ends_with_title(prev, titles)


def _merge(segments: list[str], lang: str) -> Iterator[str]:
    titles = _TITLES.get(lang, frozenset())
    current = ""
    for seg in segments:
        if current:
            closers = _LEADING_CLOSERS.match(seg)
            if closers:  # "... hier." + ") Ein ...": the bracket ends the sentence before
                current += closers.group(0).rstrip()
                seg = seg[closers.end():]
                if not seg:
                    continue
                seg = " " + seg
        if current and not _continues(current, seg, titles):
            yield current
            current = ""
        current += seg
    if current:
        yield current


def _split_after_closers(sentence: str) -> list[str]:
    """Cut where a full stop and closing brackets or quotes are followed by a new sentence."""
    out, start = [], 0
    for m in _STOP_CLOSERS_GAP.finditer(sentence):
        nxt = sentence[m.end():m.end() + 2].lstrip(_OPENERS)[:1]
        if nxt.isupper():
            out.append(sentence[start:m.start()])
            start = m.end()
    out.append(sentence[start:])
    return [s for s in out if s.strip()]


def _split_scripts(sentence: str, spaced_khmer_myanmar: bool) -> list[str]:
    parts = _SEA_STOP.split(sentence) if _HAS_SEA_STOP.search(sentence) else [sentence]
    out: list[str] = []
    for part in parts:
        pieces = _THAI_LAO_GAP.split(part)
        if spaced_khmer_myanmar:
            pieces = [p for piece in pieces for p in _KHMER_MYANMAR_GAP.split(piece)]
        out.extend(pieces)
    return out


def _cut_point(window: str) -> int:
    half = len(window) // 2
    for pattern in (_CLAUSE, _SPACE):
        last = 0
        for m in pattern.finditer(window, half):
            last = m.end()
        if last:
            return last
    return len(window)


def _cap(sentence: str) -> Iterator[str]:
    """``sentence`` in pieces of at most ``MAX_SENTENCE_CHARS``, cut as late as a break allows."""
    while len(sentence) > MAX_SENTENCE_CHARS:
        cut = _cut_point(sentence[:MAX_SENTENCE_CHARS])
        head, sentence = sentence[:cut].strip(), sentence[cut:].strip()
        if head:
            yield head
    if sentence:
        yield sentence


def split_sentences(text: str, lang: str) -> list[str]:
    """The sentences of ``text`` (one paragraph) in language ``lang``, stripped and non-empty."""
    if not text or text.isspace():
        return []
    code = sentencex_code(lang)
    # Only a Khmer or Burmese text that does not use its own full stops is split at its spaces.
    spaced = _KHMER_MYANMAR_GAP.search(text) is not None and not _KHMER_MYANMAR_STOP.search(text)
    out: list[str] = []
    for merged in _merge(segment(code, text), code):
        for piece in (p for sentence in _split_after_closers(merged) for p in _split_scripts(sentence, spaced)):
            out.extend(_cap(piece.strip()))
    return out
