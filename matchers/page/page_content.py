"""A page's main content ready for the content filters: its sentences, their word tokens and
lengths, and its bag of words.

Papavassiliou et al., *ILSP-FC* (sections 3.3-3.4): boilerplate paragraphs and paragraphs "not in
the targeted language" are marked and left out of what is compared, so a page's navigation, its
footer or a quotation in another language does not enter the sentence alignment (Tomás et al.,
*WebMining*, section 2.3) nor the translation model trained from it.
"""

from __future__ import annotations

import itertools
import sys
import zlib
from collections.abc import Sequence
from dataclasses import dataclass, field

import numpy as np

from matchers.content.hard_rules import text_key
from matchers.content.token_ids import Encoded, encode
from matchers.page.lang_codes import same_language
from matchers.page.script_length import script_weighted_length
from matchers.page.sentence_split import split_sentences
from matchers.page.word_tokens import word_tokens

# Identities of PageContent objects (PageContent.uid); a count shared by the process's sites and
# threads (itertools.count's next() is atomic).  Given out on first use, which is in the crawl
# process: a content made by a parse worker travels without one.
_UIDS = itertools.count(1)

# A stored paragraph: (kind, language, text); kinds as in matchers.page.main_content.
StoredParagraph = tuple[str, str, str]


@dataclass(slots=True)
class PageContent:
    """Main-content sentences of one page, in the page's language.

    A site keeps every page's content for later comparisons, so the words are kept once per page
    (``words``, interned: one string per word form in the process) and the tokens as indices into
    them (``ids``, sentence ``i`` is ``ids[offsets[i]:offsets[i + 1]]``): a fraction of the memory
    of a string per token, and the form the sentence aligner reads (:attr:`encoded`).  The
    sentences' text is only read to store aligned sentences, so it is kept compressed
    (``packed``; :attr:`sentences` unpacks it).  For the same reason the record has slots, the
    sentence lengths are one array (``chars``) and the values derived on demand are cached in
    fields of their own."""

    lang: str
    packed: bytes = b""
    chars: np.ndarray = field(default_factory=lambda: np.zeros(0, np.int32))
    words: list[str] = field(default_factory=list)
    ids: np.ndarray = field(default_factory=lambda: np.zeros(0, np.int32))
    offsets: np.ndarray = field(default_factory=lambda: np.zeros(1, np.int64))
    _bag: frozenset[str] | None = field(default=None, repr=False, compare=False)
    _worded: int | None = field(default=None, repr=False, compare=False)
    _text_key: bytes | None = field(default=None, repr=False, compare=False)
    _uid: int = field(default=0, repr=False, compare=False)

    @property
    def uid(self) -> int:
        """The page's identity in this process, the same for every copy of its content read back
        from a :class:`~matchers.site.content_shelf.ContentShelf` (``id()`` is not: a copy read
        again is another object, and an id is reused once its object is freed)."""
        if not self._uid:
            self._uid = next(_UIDS)
        return self._uid

    @property
    def length(self) -> int:
        """Script-weighted characters of the sentences (CJK counts three, as in the size filter)."""
        return int(self.chars.sum())

    @property
    def tokens(self) -> list[list[str]]:
        """Each sentence's word tokens."""
        words, off = self.words, self.offsets.tolist()
        flat = [words[i] for i in self.ids.tolist()]
        return [flat[off[k]:off[k + 1]] for k in range(len(off) - 1)]

    @property
    def n_tokens(self) -> int:
        return len(self.ids)

    @property
    def encoded(self) -> Encoded:
        """The tokens as :func:`matchers.content.sentence_align.encode` gives them."""
        return self.words, self.ids, self.offsets

    @property
    def bag(self) -> frozenset[str]:
        """Distinct word tokens (the bag of words of the dictionary filter)."""
        if self._bag is None:
            self._bag = frozenset(self.words)
        return self._bag

    @property
    def worded_sentences(self) -> int:
        """Sentences with at least one word of letters: a date or a number alone aligns with its
        copy in any language and says nothing about translation (listings of dates, tables)."""
        if self._worded is None:
            self._worded = self._count_worded()
        return self._worded

    def _count_worded(self) -> int:
        return int(self.worded_flags().sum())

    def worded_flags(self) -> np.ndarray:
        """Per sentence, whether it has a word of letters (:attr:`worded_sentences` counts them)."""
        if not len(self.ids):
            return np.zeros(len(self.chars), dtype=bool)
        worded = np.array([any(ch.isalpha() for ch in w) for w in self.words], dtype=bool)
        per_token = worded[self.ids]
        # A trailing 0 makes an offset at the end valid (last sentences without a word token).
        padded = np.append(per_token.astype(np.int64), 0)
        counts = np.add.reduceat(padded, self.offsets[:-1])
        empty = self.offsets[1:] == self.offsets[:-1]  # reduceat reads the next slice for an empty one
        return (counts > 0) & ~empty

    @property
    def text_key(self) -> bytes:
        """The sentences' key under Bicleaner's identity rules (matchers.content.hard_rules)."""
        if self._text_key is None:
            self._text_key = text_key(self.sentences)
        return self._text_key

    @property
    def sentences(self) -> list[str]:
        return zlib.decompress(self.packed, -_WBITS).decode("utf-8", "surrogatepass").split(_SEP) if len(self.chars) else []

    def __len__(self) -> int:
        return len(self.chars)


# Sentences come from whitespace-normalized paragraph text, which never holds this character.
_SEP = "\x00"
_WBITS = 12


def pack_sentences(sentences: list[str]) -> bytes:
    """Sentences as :attr:`PageContent.packed` keeps them (b"" for none)."""
    if not sentences:
        return b""
    # A small window and memory level: zlib's defaults allocate more per call than a page's
    # text takes to compress.
    packer = zlib.compressobj(1, zlib.DEFLATED, -_WBITS, 2)
    return packer.compress(_SEP.join(sentences).encode("utf-8", "surrogatepass")) + packer.flush()


def finish_content(
    content: PageContent, sentences: list[str], tokens: list[list[str]], chars: list[int], intern: bool = True
) -> PageContent:
    """``content`` holding ``sentences`` with their ``tokens`` and lengths; ``intern``: one string
    per word form in the process (what a site keeps; a parse worker sends its words away)."""
    content.chars = np.array(chars, np.int32)
    content.packed = pack_sentences(sentences)
    words, ids, off = encode(tokens)
    content.words = [sys.intern(w) for w in words] if intern else words
    content.ids = ids.astype(np.int32)
    content.offsets = off
    return content


# One sentence of a paragraph: (text, word tokens, script-weighted characters).
Piece = tuple[str, list[str], int]


def split_paragraph(text: str, lang: str) -> list[Piece]:
    """A paragraph's sentences with their tokens and lengths; sentences without a word are left out."""
    pieces = []
    for sentence in split_sentences(text, lang):
        tokens = word_tokens(sentence)
        if tokens:
            pieces.append((sentence, tokens, script_weighted_length(sentence)))
    return pieces


def page_content(
    paragraphs: Sequence[StoredParagraph],
    lang: str,
    max_sentences: int = 2000,
    pieces: Sequence[list[Piece] | None] | None = None,
) -> PageContent:
    """Split the kept paragraphs into sentences and tokens.

    ``paragraphs`` are the page's non-boilerplate paragraphs with their identified language;
    those identified as another language are kept in the record but not split.  Titles and
    headings are sentences of their own: translators translate them one to one.  ``pieces``, when
    given, holds each paragraph's :func:`split_paragraph` already made (None where it was not),
    as the page-parse worker process sends it.
    """
    content = PageContent(lang=lang)
    lengths: list[int] = []
    sentences: list[str] = []
    all_tokens: list[list[str]] = []
    for i, (_kind, plang, text) in enumerate(paragraphs):
        if plang and plang != "und" and not same_language(plang, lang):
            continue
        split = pieces[i] if pieces is not None else None
        for sentence, tokens, chars in split if split is not None else split_paragraph(text, lang):
            sentences.append(sentence.replace(_SEP, " "))
            all_tokens.append(tokens)
            lengths.append(chars)
            if len(sentences) >= max_sentences:
                return finish_content(content, sentences, all_tokens, lengths)
    return finish_content(content, sentences, all_tokens, lengths)
