"""Word tokens for the translation model and the bag-of-words comparison of the content filter.

Tomás et al., *WebMining*, section 2.3 scores sentence pairs with a word-to-word translation
model "similar to IBM-1" trained on the fly, whose probabilities start equal "except when the
source and target words are the same": a word must come out the same way on every page and in
every language, whatever its case, width or encoding, and numbers and names must survive as
tokens.  No segmenter or model is needed, so nothing is downloaded.

* Text is NFKC-normalized (full-width Latin and digits, ligatures, compatibility kana) and
  case-folded; soft hyphens and zero-width joiners, spaces and non-joiners are removed.
* A token is a run of letters and digits, with their combining marks: ``re``'s ``\\w`` leaves
  out the vowel signs of Indic and other scripts (it would cut "हिन्दी" in three) and the dot
  that case-folding puts on "İ", so the marks are added explicitly.
* Internal hyphens stay: "utf-8", "e-mail", "porte-monnaie" are one word, translated as one.
* An apostrophe ends a token and stays on it when a letter follows: "l'homme" is "l'" and
  "homme", "dell'arte" is "dell'" and "arte", so the elided article gets its own entry in the
  translation table (as "the", "of the") instead of making a new word of every noun it precedes;
  "don't" becomes "don'" and "t", consistently on every page.
* Numbers are tokens, with their decimal or thousands separators ("3.5", "1,000"): they are
  the same in both languages and so anchor sentence pairs from the first page on.
* CJK ideographs and kana and the letters of Thai, Lao, Khmer and Burmese (scripts written
  without spaces between words) are one token each, with their combining marks.  There is no
  word segmenter: the IBM-1 model then learns character-to-word translations (一 and 月 both
  linked to "January"), which is enough to score sentence pairs.  Hangul stays in words: Korean
  separates words by spaces.  (A supplementary-plane ideograph written right after a Latin
  letter stays in that word: keeping those planes out of the word class would cost a 4x
  slowdown, see ``_marks``.)
* Punctuation, symbols and underscores are dropped.
"""

from __future__ import annotations

import re
import sys
import unicodedata

# BMP blocks of scripts written without spaces between words; only their letters are tokens.
_UNSPACED_BLOCKS = (
    (0x0E00, 0x0EFF),  # Thai, Lao
    (0x1000, 0x109F),  # Myanmar
    (0x1780, 0x17FF),  # Khmer
    (0x19E0, 0x19FF),  # Khmer symbols
    (0x3005, 0x3007),  # 々 〆 〇
    (0x3040, 0x30FF),  # Hiragana, Katakana
    (0x31F0, 0x31FF),  # Katakana phonetic extensions
    (0x3400, 0x4DBF),  # CJK extension A
    (0x4E00, 0x9FFF),  # CJK unified ideographs
    (0xA9E0, 0xA9FF),  # Myanmar extended B
    (0xAA60, 0xAA7F),  # Myanmar extended A
    (0xF900, 0xFAFF),  # CJK compatibility ideographs
)
# Kana supplement and extensions; CJK extensions B-H and the compatibility supplement.
_UNSPACED_ASTRAL = "\U0001b000-\U0001b16f\U00020000-\U000323af"


def _ranges(codepoints: list[int]) -> str:
    """A regex character-class body for sorted code points, as ranges."""
    parts: list[str] = []
    start = prev = -2
    for cp in [*codepoints, sys.maxunicode + 2]:
        if cp != prev + 1:
            if start >= 0:
                parts.append(
                    re.escape(chr(start))
                    if start == prev
                    else f"{re.escape(chr(start))}-{re.escape(chr(prev))}"
                )
            start = cp
        prev = cp
    return "".join(parts)


def _unspaced_letters() -> str:
    return _ranges(
        [
            cp
            for lo, hi in _UNSPACED_BLOCKS
            for cp in range(lo, hi + 1)
            if unicodedata.category(chr(cp))[0] == "L" or cp == 0x3007
        ]
    )


def _marks() -> str:
    # BMP only: a class with astral code points cannot be compiled to a bitmap and makes every
    # test a linear scan of its ranges (4x slower).  Astral marks belong to historic scripts and
    # to the variation selectors supplement, whose selectors are then simply dropped.
    return _ranges([cp for cp in range(0x0300, 0x10000) if unicodedata.category(chr(cp))[0] == "M"])


def _token_pattern() -> re.Pattern[str]:
    unspaced = _unspaced_letters()
    marks = f"[{_marks()}]"
    base = f"[^\\W_{unspaced}]"
    word = f"{base}+(?:{marks}+{base}*)*"  # letters and digits, marks after any of them
    return re.compile(
        # One character of an unspaced script: tried first, as it is the commonest token in them.
        f"(?:[{unspaced}]|[{_UNSPACED_ASTRAL}]){marks}*"
        "|\\d+(?:[.,]\\d+)+"  # a number with separators, before a word takes its first digits
        f"|{word}(?:-{word})*(?:'(?={base}))?"  # a word, hyphens inside, an elision apostrophe
    )


TOKEN = _token_pattern()
# Applied after NFKC: apostrophe and hyphen look-alikes unified, invisible joiners removed.
# (str.replace on the few present is ~20x faster than str.translate on non-ASCII text.)
_UNIFY = (
    ("\u2019", "'"),  # right single quotation mark, the usual typographic apostrophe
    ("\u02bc", "'"),  # modifier letter apostrophe
    ("\u2010", "-"),  # hyphen (NFKC's image of the non-breaking hyphen)
    ("\u00ad", ""),  # soft hyphen
    ("\u200b", ""),  # zero-width space
    ("\u200c", ""),  # zero-width non-joiner
    ("\u200d", ""),  # zero-width joiner
    ("\u2060", ""),  # word joiner
    ("\ufeff", ""),  # zero-width no-break space (BOM)
)


def word_tokens(text: str) -> list[str]:
    """The word tokens of ``text``: normalized, case-folded, punctuation dropped (module docstring)."""
    if not text:
        return []
    text = unicodedata.normalize("NFKC", text).casefold()
    if not text.isascii():
        for old, new in _UNIFY:
            if old in text:
                text = text.replace(old, new)
    return TOKEN.findall(text)
