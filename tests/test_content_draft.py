"""The parse's content draft cut to the kept paragraphs is what page_content makes of them."""

from __future__ import annotations

import pickle
import random

import numpy as np
import pytest

from matchers.page.content_draft import draft_content, final_content
from matchers.page.page_content import PageContent, finish_content, page_content, split_paragraph

PARAGRAPHS = [
    ("title", "en", "Annual report 2024 | The Example Company"),
    ("text", "en", "The company grew by 12% in 2024. Its staff rose to 340 people."),
    ("text", "fr", "Ce paragraphe est en français et ne compte pas."),
    ("heading", "en", "Results"),
    ("text", "und", "2024-03-05"),
    ("text", "en", "Revenue rose in every region! Costs fell, and the margin improved."),
    ("listitem", "en", "Read more about our results"),
    ("text", "en", "The company grew by 12% in 2024. Profit doubled."),
    ("text", "en", "Contact us at info@example.com or +1 555 0100."),
]


def fields(c: PageContent) -> tuple:
    return (c.lang, c.packed, c.chars.dtype, c.chars.tolist(), c.words, c.ids.dtype, c.ids.tolist(),
            c.offsets.dtype, c.offsets.tolist())


def draft_of(paragraphs, lang="en"):
    pieces = [split_paragraph(text, lang) if plang in (lang, "und") else None for _kind, plang, text in paragraphs]
    # Through pickle, as the parse worker sends it.
    return pickle.loads(pickle.dumps(draft_content(pieces, lang)))


def parts_of(paragraphs, kept, lang="en", retitled=None):
    retitled = retitled or {}
    stored, parts = [], []
    for i in kept:
        kind, plang, text = paragraphs[i]
        text = retitled.get(i, text)
        stored.append((kind, plang, text))
        if plang not in (lang, "und"):
            continue
        parts.append(split_paragraph(text, lang) if i in retitled else i)
    return stored, parts


def test_every_paragraph_kept_gives_the_draft_itself_with_its_keys():
    draft = draft_of(PARAGRAPHS)
    stored, parts = parts_of(PARAGRAPHS, range(len(PARAGRAPHS)))
    got = final_content(draft, parts, "en")
    want = page_content(stored, "en")
    assert got is draft.content
    assert fields(got) == fields(want)
    assert got._text_key == want.text_key and got._worded == want.worded_sentences


@pytest.mark.parametrize("seed", range(40))
def test_any_kept_paragraphs_and_retitled_titles_give_page_content(seed):
    rng = random.Random(seed)
    paragraphs = list(PARAGRAPHS)
    rng.shuffle(paragraphs)
    draft = draft_of(paragraphs)
    kept = sorted(rng.sample(range(len(paragraphs)), rng.randint(0, len(paragraphs))))
    retitled = {i: paragraphs[i][2].split(" | ")[0] for i in kept if paragraphs[i][0] == "title" and rng.random() < 0.7}
    stored, parts = parts_of(paragraphs, kept, retitled=retitled)
    cap = rng.choice([2000, 3, 1])
    got = final_content(draft, parts, "en", max_sentences=cap)
    want = page_content(stored, "en", max_sentences=cap)
    assert fields(got) == fields(want)
    if cap == 2000:  # no paragraph cut short: both come with the content, from the parse's parts
        assert got._text_key is not None and got._worded is not None
    assert got.text_key == want.text_key and got.worded_sentences == want.worded_sentences
    assert got.sentences == want.sentences and got.tokens == want.tokens


def test_words_are_interned_in_the_crawl_process():
    a = final_content(draft_of(PARAGRAPHS), [1, 5], "en")
    b = final_content(draft_of(PARAGRAPHS), [1, 7], "en")
    assert "company" in a.words and "company" in b.words
    assert a.words[a.words.index("company")] is b.words[b.words.index("company")]


def test_a_page_without_sentences():
    draft = draft_of([("text", "fr", "Rien en anglais ici.")])
    assert len(draft.content) == 0 and draft.starts.tolist() == [0, 0]
    got = final_content(draft, [], "en")
    assert fields(got) == fields(page_content([], "en"))
    assert np.array_equal(got.ids, np.zeros(0, np.int32))


def test_worded_flags_with_sentences_without_tokens_at_the_end():
    tokens = [["the", "report"], ["2024"], [], []]
    content = finish_content(PageContent(lang="en"), ["The report.", "2024", "!!!", "—"], tokens, [11, 4, 3, 1])
    assert content.worded_flags().tolist() == [True, False, False, False]
    assert content.worded_sentences == 1
