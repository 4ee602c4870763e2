"""A page's main content as its parse builds it, before the site's boilerplate marking: the
sentences of every paragraph in the page's language, encoded once (matchers.page.page_content).

The parse (in the parse worker) has the paragraphs but not the site: which of them the site
repeats on every page is decided in the crawl process, in arrival order
(pipelines.main_content).  So the parse encodes all of them together, with where each
paragraph's sentences start, and computes what is read of every page's content (its key under
the identity rules, its worded sentences); the stage then takes the paragraphs it keeps.  Where it
keeps them all (most pages of a site without repeated paragraphs) the draft is the content; where
it drops some, :func:`final_content` cuts the kept ones out of the draft.  Either way the result
is what :func:`matchers.page.page_content.page_content` gives for the kept paragraphs, field for
field (tested), and the crawl process neither tokenizes nor encodes, nor reads every sentence
again for the content's key under the identity rules and its count of worded sentences.
"""

from __future__ import annotations

import sys
from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

from matchers.content.hard_rules import identity_letters, letters_key
from matchers.page.page_content import _SEP, PageContent, Piece, finish_content, pack_sentences

# What the stage keeps of a paragraph: its index among the draft's paragraphs (the draft's
# sentences), or its sentences split again (a title without the site's name).
Part = int | list[Piece]


@dataclass(slots=True)
class ContentDraft:
    """Every paragraph's sentences (``content``); paragraph ``i``'s are sentences
    ``starts[i]:starts[i + 1]``, and ``split[i]`` says whether the parse split it (a paragraph in
    another language or jusText's boilerplate was not)."""

    content: PageContent
    starts: np.ndarray
    split: list[bool]
    # Per paragraph, its sentences' identity letters end to end (the content's text key is their
    # hash, matchers.content.hard_rules.letters_key); per sentence, whether it has a word of letters.
    letters: list[str]
    worded: np.ndarray


def draft_content(pieces: Sequence[list[Piece] | None], lang: str) -> ContentDraft:
    """The draft of a page whose paragraphs were split into ``pieces`` (None: not split)."""
    sentences: list[str] = []
    tokens: list[list[str]] = []
    chars: list[int] = []
    starts = [0]
    letters = []
    for split in pieces:
        first = len(sentences)
        for sentence, words, n in split or ():
            sentences.append(sentence.replace(_SEP, " "))
            tokens.append(words)
            chars.append(n)
        starts.append(len(sentences))
        letters.append("".join(identity_letters(t) for t in sentences[first:]))
    content = finish_content(PageContent(lang=lang), sentences, tokens, chars, intern=False)
    worded = content.worded_flags()
    # Read of every page that reaches the content filter; the parse worker has the time.
    content._text_key = letters_key(letters)
    content._worded = int(worded.sum())
    return ContentDraft(content, np.array(starts, np.int64), [split is not None for split in pieces], letters, worded)


def final_content(draft: ContentDraft, parts: Sequence[Part], lang: str, max_sentences: int = 2000) -> PageContent:
    """``page_content`` of the kept paragraphs, each given as a :data:`Part`: at most
    ``max_sentences`` sentences, the words interned (a site keeps every page's content)."""
    whole = draft.content
    if _is_all(draft, parts) and len(whole) <= max_sentences:
        whole.words = [sys.intern(w) for w in whole.words]
        return whole
    # Paragraph by paragraph (a paragraph's sentences and tokens are contiguous in the draft):
    # the kept ones' token indices, sentence lengths in tokens and characters, and texts.
    texts: list[str] = []
    id_parts: list[np.ndarray] = []
    len_parts: list[np.ndarray] = []
    char_parts: list[np.ndarray] = []
    words = whole.words
    index: dict[str, int] | None = None
    key_parts: list[str] | None = []  # None once a paragraph is cut short
    worded = 0
    draft_texts: list[str] | None = None
    n_tokens = np.diff(whole.offsets)
    # As Python ints: a numpy scalar per paragraph (an index, a slice's sum) cost more than the
    # rest of the paragraph's bookkeeping.
    starts = draft.starts.tolist()
    worded_before = [0, *np.cumsum(draft.worded, dtype=np.int64).tolist()]
    for part in parts:
        room = max_sentences - len(texts)
        if room <= 0:
            break
        if isinstance(part, int):
            lo = starts[part]
            hi = min(starts[part + 1], lo + room)
            if hi <= lo:
                continue
            if draft_texts is None:
                draft_texts = whole.sentences
            texts += draft_texts[lo:hi]
            if key_parts is not None:
                if hi == starts[part + 1]:
                    key_parts.append(draft.letters[part])
                else:
                    key_parts = None
            worded += worded_before[hi] - worded_before[lo]
            id_parts.append(whole.ids[whole.offsets[lo]:whole.offsets[hi]])
            len_parts.append(n_tokens[lo:hi])
            char_parts.append(whole.chars[lo:hi])
            continue
        if index is None:
            # A split-again part is a title's few words: each looked for in the draft's words
            # (a scan in C) costs less than indexing every word of the page.
            words, index = list(words), {}
        run: list[int] = []
        lengths: list[int] = []
        for sentence, tokens, n in part[:room]:
            texts.append(sentence.replace(_SEP, " "))
            char_parts.append(np.array([n], np.int32))
            lengths.append(len(tokens))
            if key_parts is not None:
                key_parts.append(identity_letters(texts[-1]))
            worded += any(ch.isalpha() for w in tokens for ch in w)
            for w in tokens:
                i = index.get(w)
                if i is None:
                    try:
                        i = words.index(w)
                    except ValueError:
                        i = len(words)
                        words.append(w)
                    index[w] = i
                run.append(i)
        id_parts.append(np.array(run, np.int64))
        len_parts.append(np.array(lengths, np.int64))
    if not texts:
        empty = finish_content(PageContent(lang=lang), [], [], [])
        empty._text_key, empty._worded = letters_key(()), 0
        return empty
    content = PageContent(lang=lang)
    content.chars = np.concatenate(char_parts).astype(np.int32)
    content.packed = pack_sentences(texts)
    content.offsets = np.zeros(len(texts) + 1, np.int64)
    np.cumsum(np.concatenate(len_parts), out=content.offsets[1:])
    content.words, content.ids = _renumbered(np.concatenate(id_parts).astype(np.int64), words)
    content._worded = worded
    if key_parts is not None:
        content._text_key = letters_key(key_parts)
    return content


def _is_all(draft: ContentDraft, parts: Sequence[Part]) -> bool:
    """Whether ``parts`` take every sentence of the draft, in order."""
    at = 0
    starts = draft.starts.tolist()
    for part in parts:
        if not isinstance(part, int):
            return False
        lo, hi = starts[part], starts[part + 1]
        if hi == lo:
            continue
        if lo != at:
            return False
        at = hi
    return at == len(draft.content)


def _renumbered(flat: np.ndarray, words: list[str]) -> tuple[list[str], np.ndarray]:
    """Tokens given as indices into ``words``, with their words renumbered in the order they first
    appear (as matchers.content.token_ids.encode numbers them), the words interned."""
    if not len(flat):
        return [], np.zeros(0, np.int32)
    distinct, first = np.unique(flat, return_index=True)
    order = distinct[np.argsort(first, kind="stable")]
    renumber = np.zeros(len(words), np.int64)
    renumber[order] = np.arange(len(order))
    return [sys.intern(words[i]) for i in order.tolist()], renumber[flat].astype(np.int32)
