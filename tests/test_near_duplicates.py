"""ILSP-FC section 3.8 de-duplication: paragraph hashes and the incremental near-duplicate index."""

import hashlib
import random

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


class ReferenceIndex:
    """The rule spelled out over Python sets: every live page's hashes, compared exhaustively."""

    def __init__(self, max_postings: int) -> None:
        self.max_postings = max_postings
        self.pages: dict[str, tuple[int, set[int]]] = {}  # url -> (arrival number, hashes)
        self.dropped: dict[str, str] = {}
        self.seen = 0

    def add(self, url: str, hashes: list[bytes]) -> list[NearDuplicate]:
        self.pages.pop(url, None)
        self.dropped.pop(url, None)
        mine = {int.from_bytes(x[:8], "little") for x in hashes}
        if not mine:
            return []
        self.seen += 1
        on = {x: sum(x in theirs for _, theirs in self.pages.values()) for x in mine}
        usable = {x for x in mine if on[x] <= self.max_postings}
        matches = []
        for other, (number, theirs) in self.pages.items():
            if usable & theirs:
                share = len(mine & theirs) / min(len(mine), len(theirs))
                if share > 0.8:
                    matches.append((number, other, share))
        keepers = [m for m in matches if len(self.pages[m[1]][1]) >= len(mine)]
        if keepers:
            _, kept, share = max(keepers, key=lambda m: (m[2], len(self.pages[m[1]][1]), -m[0]))
            self.dropped[url] = kept
            return [NearDuplicate(kept=kept, dropped=url, share=share)]
        out = []
        for _, other, share in sorted(matches):
            del self.pages[other]
            self.dropped[other] = url
            out.append(NearDuplicate(kept=url, dropped=other, share=share))
        self.pages[url] = (self.seen, mine)
        return out


def stream(seed: int, pages: int = 400) -> list[tuple[str, list[bytes]]]:
    """Pages with template paragraphs (frequent, or not as pages come and go), near-copies,
    longer and shorter versions of earlier pages, and re-crawled URLs (some emptied)."""
    rng = random.Random(seed)
    bodies: list[list[str]] = []
    out = []
    for i in range(pages):
        roll = rng.random()
        if bodies and roll < 0.35:
            body = list(rng.choice(bodies))
            edit = rng.randrange(4)
            if edit == 0:
                body[rng.randrange(len(body))] = f"new{i}"
            elif edit == 1:
                body += [f"more{i}", f"more{i}b"]
            elif edit == 2 and len(body) > 1:
                body.pop(rng.randrange(len(body)))
        else:
            body = [f"own{i}_{j}" for j in range(rng.randint(1, 8))]
        bodies.append(body)
        extra = [f"footer{rng.randrange(3)}"] if rng.random() < 0.7 else []
        if rng.random() < 0.5:  # on about as many pages as max_postings: crosses it both ways
            extra.append(f"section{rng.randrange(60)}")
        url = f"u{i}"
        if out and roll > 0.85:
            url = rng.choice(out)[0]
            if roll > 0.98:
                body, extra = [], []
        out.append((url, h(*extra, *body)))
    return out


def postings_match_live_pages(index: NearDuplicateIndex) -> None:
    live = {(x, n) for n, url in enumerate(index._urls) if url is not None for x in index._hashes(n)}
    merged = list(zip(index._post_h.tolist(), index._post_p.tolist(), strict=True))
    assert merged == sorted(merged, key=lambda e: e[0])
    assert set(merged) == live and len(merged) == len(live)


@pytest.mark.parametrize("seed", range(6))
@pytest.mark.parametrize("merging", ["never", "when_due", "every_add", "at_random"])
def test_merging_mid_stream_changes_no_decision(seed, merging):
    max_postings = 4
    reference = ReferenceIndex(max_postings)
    index = NearDuplicateIndex(max_postings=max_postings, merge_min=10**9 if merging == "never" else 0)
    rng = random.Random(seed)
    for url, hashes in stream(seed):
        assert index.add(url, hashes) == reference.add(url, hashes)
        assert len(index) == len(reference.pages)
        if merging == "every_add" or (merging == "at_random" and rng.random() < 0.2):
            index._merge()
            postings_match_live_pages(index)
    assert index.duplicates() == {d: index.kept_for(d) for d in reference.dropped}
    if merging == "never":
        assert len(index._post_h) == 0
    else:
        assert len(index._post_h) > 0


def test_a_merged_page_dropped_later_leaves_the_index():
    index = NearDuplicateIndex(merge_min=10**9)
    index.add("short", h("1", "2", "3", "4", "5"))
    index.add("other", h("a", "b", "c"))
    index._merge()
    assert index.add("long", h("1", "2", "3", "4", "5", "6")) == [
        NearDuplicate(kept="long", dropped="short", share=1.0)
    ]
    # Dead but still in the merged arrays: skipped, then left out by the next merge.
    assert index.add("copy", h("1", "2", "3", "4", "5")) == [NearDuplicate(kept="long", dropped="copy", share=1.0)]
    index._merge()
    postings_match_live_pages(index)
    assert index.add("copy2", h("1", "2", "3", "4", "5")) == [NearDuplicate(kept="long", dropped="copy2", share=1.0)]
    assert len(index) == 2
    assert index.duplicates() == {"short": "long", "copy": "long", "copy2": "long"}


def test_frequent_hashes_count_live_pages_between_merges():
    index = NearDuplicateIndex(max_postings=3, merge_min=10**9)
    for i in range(4):
        index.add(f"page{i}", h("footer", f"own{i}a", f"own{i}b", f"own{i}c", f"own{i}d", f"own{i}e"))
    index._merge()
    # A re-crawl without the footer leaves it on 3 live pages: no longer too many, so it finds
    # candidates again although the merged arrays still hold the dead page's entry.
    index.add("page0", h("own0a", "own0b", "own0c", "own0d", "own0e", "own0f"))
    assert index.add("tiny", h("footer")) == [NearDuplicate(kept="page1", dropped="tiny", share=1.0)]


def test_readding_a_url_after_a_merge_replaces_its_hashes():
    index = NearDuplicateIndex(merge_min=10**9)
    index.add("p", h("1", "2", "3"))
    index._merge()
    index.add("p", h("4", "5", "6"))
    assert index.add("q", h("1", "2", "3")) == []
    assert index.add("r", h("4", "5", "6")) == [NearDuplicate(kept="p", dropped="r", share=1.0)]
    index._merge()
    postings_match_live_pages(index)
    index.add("p", [])  # emptied: no longer indexed
    assert len(index) == 1
    assert index.add("s", h("4", "5", "6")) == []
    assert index.add("t", h("1", "2", "3")) == [NearDuplicate(kept="q", dropped="t", share=1.0)]
