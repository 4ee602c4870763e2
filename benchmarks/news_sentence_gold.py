"""Gold sentence pairs of the news-editions site (``sentences.tsv`` of ``make_news_editions.py``).

The gold comes from the W3C source documents, never from this project's sentence splitter or
aligner.  The W3C translators keep a document's block structure: the same headings, paragraphs
and list items in the same order.  For two language versions of one document:

1. **Documents.**  A version pair gets no gold at all when one version is a stub or another
   revision of the other: block counts that differ by more than ``MAX_EXTRA_BLOCKS`` and
   ``MAX_EXTRA_SHARE`` of the larger, a character ratio ``c`` (lang2/lang1, over all blocks)
   beyond ``MAX_DOC_RATIO`` either way, or fewer than ``MIN_AGREEING`` of the corresponding block
   pairs passing step 4 (then even those that pass may pass by chance).
2. **Blocks.**  The title (the page's ``h1``) and the main-content blocks ``make_news_editions``
   extracts (``h`` headings, ``p`` paragraphs and list items), before an edition merges or cuts
   paragraphs.  The titles correspond.  When the two versions have the same sequence of block
   kinds, block ``i`` corresponds to block ``i``.  When they differ (a paragraph added, dropped
   or split by one translator), only the common prefix and suffix of the kind sequences
   correspond, each stopped at the first difference and backed off over the run of one kind the
   difference touches (a paragraph added to a run of paragraphs could be any of them); the
   blocks between are left out.
3. **Sentences.**  Each block is cut by :func:`split_sentences`, a rule splitter of its own: a
   period, ``!``, ``?`` or ``…`` with any closing quotes or brackets, then a space and a capital
   letter (maybe after an opening quote or bracket, ``¿`` or ``¡``); not after a one-letter word
   or a listed abbreviation ("e.g.", "z. B.", "p. ej."...), nor inside a quotation or brackets
   (when the block's quotation marks and brackets pair up): a quoted passage of three sentences
   is the object of one.  A heading is cut like a paragraph but is never joined to another
   block: headings are sentences of their own.  A "sentence" without a letter or digit is dropped.
4. **Pairs.**  A corresponding block pair contributes its sentences in order, 1-1, when both
   blocks have the same number of sentences and the lengths ``l1``, ``l2`` of every sentence pair
   fit the document's ratio: the longer of ``l2`` and ``c*l1`` at most ``RATIO`` times the
   shorter, or the two within ``SLACK_CHARS`` characters.  Equal counts with a misfit length mean
   a translator split one sentence and joined two others in that block, or blocks that do not
   correspond; such a block pair is left out whole, as are block pairs whose counts differ (the
   gold has no 2-1 or 1-2 pairs) and block pairs with a sentence not visible on an edition page:
   a gold sentence must lie within one of the edition's paragraphs, start it or follow a stop,
   and end it or end with a stop (edition B joins paragraphs, and a paragraph without a final
   stop, such as a list item or "as follows:", joined to the next hides the boundary from any
   reader or splitter; edition C may cut at an abbreviation this splitter keeps whole).  A pair
   whose two sides are the same text but for case and punctuation (an untranslated passage, a
   name) is no translation and is left out, its sentences uncovered.

So the gold is, per page pair, a set of 1-1 sentence pairs and the material it covers: the
sentences of the block pairs that contributed (each in exactly one gold pair, but for untranslated
ones).  A page pair without a row is not covered.  The gold is NOT an alignment of whole pages:
the blocks left out hold translations too, so a scorer judges only predictions that touch
covered sentences, and recall is over covered sentences only; a sentence a translator rendered
as two is in no gold pair.  The texts are the W3C blocks' whitespace-normalized text, which the
edition pages show verbatim.  A gold boundary is where this splitter cuts, which is where a
careful reader would in nearly every case seen, not where any one splitter does: after "etc." or
"usw." before a capital (such a list ends its sentence far more often than not), never after
"e.g.", "z. B." or an initial.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Sequence

Block = tuple[str, str]  # (kind, text): "t" title, "h" heading, "p" paragraph or list item

SLACK_CHARS = 20
RATIO = 1.8
# Document pairs whose versions differ this much have no gold: one version is a stub or another
# revision.
MAX_EXTRA_BLOCKS, MAX_EXTRA_SHARE = 2, 0.1
MAX_DOC_RATIO = 2.0
MIN_AGREEING = 0.6

# A sentence ends at . ! ? or … (with closing quotes or brackets; German closes with “) before a
# space and a capital, maybe after an opening quote or bracket or Spanish ¿ ¡.
_END = re.compile(r"[.!?…][\"'“”’»)\]]*\s+(?=[\"'“‘«„(\[¿¡]?[A-ZÀ-ÖØ-Þ])")
_STOP = re.compile(r"[.!?…][\"'“”’»)\]]*$")
_QUOTES = ("\"", "“", "”", "„", "«", "»")
# Words whose period is an abbreviation's (compared lower-case, without the final period).
ABBREVIATIONS = frozenset({
    "e.g", "i.e", "eg", "ie", "cf", "vs", "approx", "fig", "nr", "mr", "mrs", "ms", "dr", "prof", "st",
    "sr", "sra", "srta", "dña", "ud", "uds", "z.b", "d.h", "u.a", "bzw", "bsp", "bspw", "vgl", "ca",
    "evtl", "ggf", "inkl", "o.ä", "p.ej", "ej", "pág", "núm"
})


def norm(text: str) -> str:
    return re.sub(r"\s+", " ", text).strip()


def split_sentences(text: str) -> list[str]:
    """Sentences of one block (see the module docstring); stripped, non-empty."""
    text = norm(text)
    # Quotation marks are counted without their direction: "“" opens in English and closes in German.
    quoted = sum(map(text.count, _QUOTES)) % 2 == 0
    bracketed = text.count("(") == text.count(")")
    out, start = [], 0
    for m in _END.finditer(text):
        head = text[start:m.start() + 1]
        word = head.split()[-1].lower().lstrip("\"'“‘«(¿¡") if head.split() else ""
        if text[m.start()] == "." and (len(word) <= 2 and word[:1].isalpha() or word[:-1] in ABBREVIATIONS):
            continue
        before = text[:m.end()]
        if quoted and sum(map(before.count, _QUOTES)) % 2 or bracketed and before.count("(") > before.count(")"):
            continue
        out.append(text[start:m.end()].strip())
        start = m.end()
    out.append(text[start:].strip())
    return [s for s in out if s and any(ch.isalnum() for ch in s)]


def corresponding_blocks(kinds1: Sequence[str], kinds2: Sequence[str]) -> list[tuple[int, int]]:
    """Index pairs of blocks that correspond: all when the kind sequences are equal, else the
    common prefix and suffix short of the run of one kind next to the first difference (a
    paragraph added to a run of paragraphs could be any of them)."""
    n1, n2 = len(kinds1), len(kinds2)
    if list(kinds1) == list(kinds2):
        return [(i, i) for i in range(n1)]
    head = _agreeing_prefix(kinds1, kinds2)
    tail = _agreeing_prefix(kinds1[::-1], kinds2[::-1], min(n1, n2) - head)
    return [(i, i) for i in range(head)] + [(n1 - tail + k, n2 - tail + k) for k in range(tail)]


def _agreeing_prefix(kinds1: Sequence[str], kinds2: Sequence[str], most: int | None = None) -> int:
    """Length of the common prefix (at most ``most``), backed off over the run of one kind that
    the first difference touches."""
    most = min(len(kinds1), len(kinds2)) if most is None else most
    head = 0
    while head < most and kinds1[head] == kinds2[head]:
        head += 1
    differing = set(kinds1[head:head + 1]) | set(kinds2[head:head + 1])
    if head and kinds1[head - 1] in differing:
        run = kinds1[head - 1]
        while head and kinds1[head - 1] == run:
            head -= 1
    return head


def consistent(l1: int, l2: int, ratio: float) -> bool:
    """Whether lengths ``l1``, ``l2`` fit the document pair's character ratio (step 4)."""
    expected = ratio * l1
    return abs(l2 - expected) <= max(SLACK_CHARS, (RATIO - 1) * min(expected, l2))


def gold_pairs(
    blocks1: Sequence[Block], blocks2: Sequence[Block],
    shown1: Sequence[str] = (), shown2: Sequence[str] = (),
) -> list[tuple[str, str]]:
    """Gold 1-1 sentence pairs of two language versions of a document, in document order.

    ``blocks`` include the title as a ``"t"`` block first; ``shown``, when given, are the texts of
    the blocks an edition shows (after its merges and cuts), on which every gold sentence must be
    visible (:func:`_visible`)."""
    n1, n2 = len(blocks1), len(blocks2)
    chars1, chars2 = sum(len(norm(t)) for _, t in blocks1), sum(len(norm(t)) for _, t in blocks2)
    if not chars1 or not chars2 or abs(n1 - n2) > max(MAX_EXTRA_BLOCKS, MAX_EXTRA_SHARE * max(n1, n2)):
        return []
    ratio = chars2 / chars1
    if not 1 / MAX_DOC_RATIO <= ratio <= MAX_DOC_RATIO:
        return []
    visible1, visible2 = _visible(shown1), _visible(shown2)
    corresponding = corresponding_blocks([k for k, _ in blocks1], [k for k, _ in blocks2])
    agreeing: list[tuple[list[str], list[str]]] = []
    for i, j in corresponding:
        s1, s2 = split_sentences(blocks1[i][1]), split_sentences(blocks2[j][1])
        if s1 and len(s1) == len(s2) and all(consistent(len(a), len(b), ratio) for a, b in zip(s1, s2, strict=True)):
            agreeing.append((s1, s2))
    # Many disagreeing blocks mean the versions differ (another revision), and then even the
    # agreeing blocks may agree by chance.
    if len(agreeing) < MIN_AGREEING * len(corresponding):
        return []
    return [(a, b) for s1, s2 in agreeing if all(map(visible1, s1)) and all(map(visible2, s2))
            for a, b in zip(s1, s2, strict=True) if _letters(a) != _letters(b)]


def _letters(text: str) -> str:
    return "".join(ch for ch in text.casefold() if ch.isalnum())


def _visible(shown: Sequence[str]) -> Callable[[str], bool]:
    """Whether a sentence is one on the edition page: within one shown block, starting it or
    following a stop, ending it or ending with a stop.  An edition that joins a block without a
    final stop (a heading-like paragraph, a list item, "as follows:") to the next hides the
    boundary from any reader or splitter."""
    texts = [norm(t) for t in shown]

    def visible(s: str) -> bool:
        for t in texts:
            at = t.find(s)
            while at >= 0:
                if (at == 0 or _STOP.search(t[:at].rstrip())) and (at + len(s) == len(t) or _STOP.search(s)):
                    return True
                at = t.find(s, at + 1)
        return not texts

    return visible


# One language version of a document as an edition shows it: (lang, url, title, the source's
# blocks, the edition's blocks).
Version = tuple[str, str, str, Sequence[Block], Sequence[Block]]


def gold_rows(versions: Sequence[Version]) -> list[tuple[str, str, str, str, str, str]]:
    """``sentences.tsv`` rows (lang1, url1, lang2, url2, text1, text2; lang1 < lang2) of one
    document's versions, each page pair's in document order (which a stable sort of all rows by
    page pair keeps)."""
    rows = []
    for lang1, url1, title1, source1, shown1 in versions:
        for lang2, url2, title2, source2, shown2 in versions:
            if lang1 < lang2:
                pairs = gold_pairs([("t", title1), *source1], [("t", title2), *source2],
                                   [title1, *(t for _, t in shown1)], [title2, *(t for _, t in shown2)])
                rows += [(lang1, url1, lang2, url2, t1, t2) for t1, t2 in pairs]
    return rows
