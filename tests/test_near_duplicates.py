"""ILSP-FC section 3.8 de-duplication: paragraph hashes and the incremental near-duplicate index."""

import hashlib

import pytest

from matchers.page.main_content import Paragraph
from matchers.site.near_duplicates import NearDuplicate, NearDuplicateIndex, paragraph_hashes


def h(*names: str) -> list[bytes]:
    return [hashlib.md5(n.encode()).digest() for n in names]


def test_paragraph_hashes_normalize_and_skip_boilerplate():
    paragraphs = [
        Paragraph("Hello   World", "title", False),
        Paragraph("Menu", "listitem", True),
        Paragraph("HELLO world", "text", False),
    ]
    md5 = hashlib.md5(b"hello world").digest()
    assert paragraph_hashes(paragraphs) == [md5, md5]


def test_paragraph_hashes_skip_other_language_when_asked():
    stored = [("text", "en", "An English sentence."), ("text", "fr", "Une phrase."), ("text", "und", "OK")]
    assert len(paragraph_hashes(stored)) == 3
    assert paragraph_hashes(stored, lang="en-GB") == h("an english sentence.", "ok")


def test_four_of_five_is_not_more_than_point_eight():
    index = NearDuplicateIndex()
    assert index.add("a", h("1", "2", "3", "4", "5")) == []
    assert index.add("b", h("1", "2", "3", "4", "x")) == []  # 4/5 = 0.8 exactly: not a duplicate
    assert index.duplicates() == {}
    assert len(index) == 2


def test_the_shorter_new_page_is_dropped():
    index = NearDuplicateIndex()
    index.add("long", h("1", "2", "3", "4", "5"))
    # 4 of the shorter's 4 shared.
    assert index.add("short", h("1", "2", "3", "4")) == [
        NearDuplicate(kept="long", dropped="short", share=1.0)
    ]
    assert index.duplicates() == {"short": "long"}
    assert len(index) == 1


def test_the_shorter_earlier_page_is_dropped_when_a_longer_arrives():
    index = NearDuplicateIndex()
    index.add("short", h("1", "2", "3", "4", "5"))
    out = index.add("long", h("1", "2", "3", "4", "5", "6"))
    assert out == [NearDuplicate(kept="long", dropped="short", share=1.0)]
    assert index.duplicates() == {"short": "long"}
    # The dropped page left the index: a copy of it is now matched against the kept page.
    assert index.add("copy", h("1", "2", "3", "4", "5")) == [
        NearDuplicate(kept="long", dropped="copy", share=1.0)
    ]


def test_equal_lengths_keep_the_earlier_page():
    index = NearDuplicateIndex()
    index.add("first", h("1", "2", "3", "4", "5", "6"))
    out = index.add("second", h("1", "2", "3", "4", "5", "7"))  # 5/6 > 0.8
    assert out == [NearDuplicate(kept="first", dropped="second", share=pytest.approx(5 / 6))]


def test_a_longer_page_replaces_every_page_it_covers_and_chains_resolve():
    index = NearDuplicateIndex()
    index.add("a", h("1", "2", "3", "4", "5"))
    index.add("b", h("6", "7", "8", "9", "10"))
    out = index.add("ab", h(*[str(i) for i in range(1, 11)]))
    assert [d.dropped for d in out] == ["a", "b"]
    assert {d.kept for d in out} == {"ab"}
    index.add("abc", h(*[str(i) for i in range(1, 13)]))  # 10 of ab's 10: ab goes too
    assert index.duplicates() == {"a": "abc", "b": "abc", "ab": "abc"}
    assert index.kept_for("a") == "abc"
    assert index.kept_for("abc") == "abc"


def test_pages_without_content_and_readding():
    index = NearDuplicateIndex()
    assert index.add("empty", []) == []
    assert len(index) == 0
    index.add("p", h("1", "2", "3"))
    index.add("p", h("4", "5", "6"))  # a re-crawl replaces the hashes
    assert index.add("q", h("1", "2", "3")) == []
    assert index.add("r", h("4", "5", "6")) == [NearDuplicate(kept="p", dropped="r", share=1.0)]


def test_hashes_on_too_many_pages_do_not_make_candidates():
    index = NearDuplicateIndex(max_postings=3)
    for i in range(4):
        index.add(f"page{i}", h("footer", f"own{i}a", f"own{i}b", f"own{i}c", f"own{i}d", f"own{i}e"))
    # Shares only the footer (on 4 pages > 3): no candidate, so no comparison at all.
    assert index.add("tiny", h("footer")) == []
    # With candidates allowed, the one-paragraph page is covered by every page (1/1 > 0.8).
    index2 = NearDuplicateIndex()
    for i in range(4):
        index2.add(f"page{i}", h("footer", f"own{i}a", f"own{i}b", f"own{i}c", f"own{i}d", f"own{i}e"))
    assert index2.add("tiny", h("footer"))[0].dropped == "tiny"
