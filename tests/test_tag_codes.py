"""A site's two-byte tag codes: the same distances as linearize's int32 codes, in half the space."""

from __future__ import annotations

import numpy as np
import pytest

from matchers.page.linearize import TEXT_CAP, tag_code
from matchers.structure import tag_codes
from matchers.structure.edit_distance import full_distance
from matchers.structure.tag_codes import OVERFLOW, UNSEEN, Encoded, TagCodes
from matchers.structure.tag_store import TagSequenceStore

NAMES = ["html", "body", "div", "p", "a", "span", "ul", "li", "h1", "h2", "table", "td", "tr", "img"]


def _page(rng: np.random.Generator, names: list[str], n: int) -> np.ndarray:
    out = []
    for _ in range(n):
        if rng.random() < 0.4:
            out.append(int(rng.integers(1, 40)))
        else:
            out.append(tag_code(str(rng.choice(names)), end=bool(rng.random() < 0.5)))
    return np.array(out, np.int32)


def test_codes_keep_every_distance() -> None:
    rng = np.random.default_rng(3)
    codes = TagCodes()
    stored = [_page(rng, NAMES[:10], int(rng.integers(0, 50))) for _ in range(40)]
    encoded = [codes.encode(p) for p in stored]
    assert all(e.dtype == np.int16 for e in encoded)
    # Queries bring tags no stored page has (NAMES[10:]); those stay unequal to everything.
    for _ in range(40):
        query = _page(rng, NAMES, int(rng.integers(0, 50)))
        q = codes.encode(query, assign=False)
        for raw, e in zip(stored, encoded, strict=True):
            assert full_distance(raw, query) == full_distance(e, q)


def test_texts_keep_their_counts_and_tags_are_numbered_in_order() -> None:
    codes = TagCodes()
    p, div = tag_code("p"), tag_code("div")
    assert codes.encode(np.array([div, 3, p, TEXT_CAP, div], np.int32)).tolist() == [-1, 3, -2, TEXT_CAP, -1]
    assert len(codes) == 2
    assert codes.encode(np.array([tag_code("table"), p], np.int32), assign=False).tolist() == [UNSEEN, -2]
    assert len(codes) == 2  # a query assigns nothing


def test_names_past_the_limit_share_one_code(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(tag_codes, "MAX_TAGS", 3)
    codes = TagCodes()
    got = codes.encode(np.array([tag_code(n) for n in NAMES[:5]], np.int32))
    assert sorted(got.tolist()) == [OVERFLOW, OVERFLOW, -3, -2, -1]


def test_stores_of_one_site_compare_across_languages() -> None:
    rng = np.random.default_rng(4)
    codes = TagCodes()
    en, fr = TagSequenceStore(codes=codes), TagSequenceStore(codes=codes)
    en_pages = [_page(rng, NAMES[:8], 30) for _ in range(5)]
    fr_pages = [_page(rng, NAMES[4:], 30) for _ in range(5)]
    for p in en_pages:
        en.add(p)
    for p in fr_pages:
        fr.add(p)
    rows = np.arange(5, dtype=np.int64)
    for i, p in enumerate(en_pages):
        want = [full_distance(p, q) for q in fr_pages]
        assert fr.distances(p, rows, 10**6).tolist() == want
        assert fr.distances(en.tokens(i), rows, 10**6, encoded=True).tolist() == want
    assert en.tokens(0).nbytes == 2 * len(en_pages[0])


def test_the_worker_keeps_codes_as_they_come() -> None:
    codes = TagCodes()
    page = np.array([tag_code("div"), 4, tag_code("p")], np.int32)
    coded = codes.encode(page)
    copy = TagSequenceStore(codes=Encoded())
    copy.add(coded)
    assert copy.tokens(0).tolist() == coded.tolist()
    with pytest.raises(ValueError, match="tag codes"):
        copy.add(page)  # linearize's int32 codes, not the site's
