"""Older pages' main content written to a temporary file and read back equal."""

from __future__ import annotations

import os
import pickle
import random

import numpy as np
import pytest

from matchers.content.dictionary_filter import BilingualDictionary, bag_of_words, stopwords, translate_bag
from matchers.content.dictionary_judge import DictionaryFilter
from matchers.page.page_content import PageContent, finish_content, page_content
from matchers.site.content_shelf import ContentShelf, SpillFile, decode_content, encode_content
from matchers.site.page_index import PageFeatures, SiteIndex

WORDS = ["the", "report", "naïve", "café", "年次", "報告書", "Ελληνικά", "straße", "2024", "x" * 40, "💡", "\udc80"]


def fields(c: PageContent) -> tuple:
    return (c.lang, c.packed, c.chars.dtype, c.chars.tolist(), c.words, c.ids.dtype, c.ids.tolist(),
            c.offsets.dtype, c.offsets.tolist(), c.text_key, c.worded_sentences, c.sentences)


def random_content(rng: random.Random, vocabulary: list[str] = WORDS) -> PageContent:
    tokens = [[rng.choice(vocabulary) for _ in range(rng.randint(0, 12))] for _ in range(rng.randint(0, 9))]
    sentences = [" ".join(t) for t in tokens]
    return finish_content(PageContent(lang=rng.choice(["en", "ja", "el"])), sentences, tokens,
                          [len(s) for s in sentences])


def test_encoded_content_decodes_to_the_same_fields_and_identity():
    rng = random.Random(5)
    contents = [random_content(rng) for _ in range(200)]
    contents.append(page_content([("text", "en", "Hello world. The report is ready!")], "en"))
    contents.append(page_content([], "fr"))
    for c in contents:
        # Some with the derived values computed before the write, some after the read.
        if rng.random() < 0.5:
            c.text_key, c.worded_sentences  # noqa: B018
        back = decode_content(encode_content(c))
        assert back.uid == c.uid
        assert fields(back) == fields(c)


def test_more_distinct_words_than_two_bytes_count():
    words = [f"w{i}" for i in range(70_000)]
    tokens = [words[i : i + 1000] for i in range(0, len(words), 1000)]
    c = finish_content(PageContent(lang="en"), [" ".join(t) for t in tokens], tokens, [5000] * len(tokens))
    assert fields(decode_content(encode_content(c))) == fields(c)


def test_shelf_keeps_recent_rows_and_reads_older_ones_back(tmp_path):
    rng = random.Random(11)
    rows = [None if rng.random() < 0.2 else random_content(rng) for _ in range(300)]
    shelf = ContentShelf(in_memory=7, cache=5, spill=SpillFile(str(tmp_path)))
    for n, c in enumerate(rows):
        assert shelf.append(c) == n
    assert len(shelf) == 300 and shelf.written == 293
    for _ in range(3):  # again: the copies now come from the cache of decoded rows, or again from disk
        for n in rng.sample(range(300), 300):
            got, want = shelf[n], rows[n]
            if want is None:
                assert got is None
            else:
                assert got.uid == want.uid and fields(got) == fields(want)
                assert (got is want) == (n >= 293)  # the recent rows are the objects that arrived
    assert shelf[-1] is rows[-1]
    with pytest.raises(IndexError):
        shelf[300]
    assert len(shelf._decoded) <= 5
    # The file is in the directory asked for, without a name.
    assert os.path.dirname(os.readlink(f"/proc/self/fd/{shelf.spill.fileno()}")) == str(tmp_path)
    assert os.listdir(tmp_path) == []


def test_shelf_without_a_limit_writes_nothing():
    shelf = ContentShelf()
    contents = [random_content(random.Random(i)) for i in range(50)]
    for c in contents:
        shelf.append(c)
    assert shelf.written == 0 and shelf.spill.fileno() is None
    assert all(shelf[i] is c for i, c in enumerate(contents))


def test_uid_is_given_in_the_receiving_process_and_differs_per_page():
    sent = pickle.dumps(page_content([("text", "en", "One sentence here.")], "en"))  # no uid taken yet
    a, b = pickle.loads(sent), pickle.loads(sent)
    assert a.uid != b.uid
    kept = page_content([("text", "en", "Another sentence.")], "en")
    assert kept.uid not in (a.uid, b.uid)


def test_sites_and_languages_share_one_file_and_count_what_they_moved(tmp_path):
    spill = SpillFile(str(tmp_path))
    sites = [SiteIndex(f"site{k}.example", content_in_memory=4, spill=spill) for k in range(3)]
    contents = {}
    for i in range(90):
        index, lang = sites[i % 3], "en" if i % 2 else "fr"
        c = page_content([("text", lang, f"Sentence number {i} of the page. And a second one.")], lang)
        url = f"https://{index.key}/{lang}/{i}"
        index.register(PageFeatures(url, lang, 1000, 1000, 50, 3, np.arange(50, dtype=np.int32) + i, c))
        contents[url] = (index, c)
    # 30 pages a site, 15 a language, 4 of them kept in memory.
    assert [index.content_spilled for index in sites] == [22, 22, 22]
    assert len(_open_files_in(tmp_path)) == 1  # one file for the three sites and their languages
    for url, (index, c) in contents.items():
        assert fields(index.content(url)) == fields(c)
    spill.close()
    assert spill.fileno() is None


def _open_files_in(directory) -> list[str]:
    """This process's open files in ``directory`` (unnamed ones included)."""
    links = []
    for fd in os.listdir("/proc/self/fd"):
        try:
            links.append(os.readlink(f"/proc/self/fd/{fd}"))
        except OSError:  # the descriptor listdir itself used
            continue
    return [link for link in links if os.path.dirname(link) == str(directory)]


def test_a_cache_keyed_by_page_reads_a_copy_as_its_page():
    """The dictionary filter's cache of translated bags takes a page read back from disk for the
    same page, and never another page for it."""
    pairs = {"the": "le", "report": "rapport", "café": "café", "straße": "rue", "2024": "2024"}
    dic = BilingualDictionary("en", "fr", {k: frozenset([v]) for k, v in pairs.items()},
                              {v: frozenset([k]) for k, v in pairs.items()})
    judge = DictionaryFilter(dic, 0.1, 0.1, cache_pages=2)
    rng = random.Random(3)
    shelf = ContentShelf(in_memory=1, cache=1)
    pages = [random_content(rng) for _ in range(20)]
    for p in pages:
        p.lang = "en"
        shelf.append(p)
    expected = [translate_bag(bag_of_words(p.words, stopwords("en")), dic, "en") for p in pages]
    for _ in range(3):
        for n in rng.sample(range(20), 20):
            assert judge.translated(shelf[n]) == expected[n]


def test_a_pages_content_summary_is_its_token_count_and_text_key_without_reading_it_back(tmp_path, monkeypatch):
    spill = SpillFile(str(tmp_path))
    index = SiteIndex("site.example", content_in_memory=3, spill=spill)
    rng = random.Random(7)
    contents: dict[str, PageContent | None] = {}
    for i in range(40):
        c = None if i % 7 == 3 else random_content(rng)
        if c is not None:
            c.lang = "en"
            if i % 2:
                c.text_key  # noqa: B018 - computed before the page arrives, as a parse's draft gives it
        url = f"https://site.example/en/{i}"
        index.register(PageFeatures(url, "en", 1000, 1000, 50, 3, np.arange(50, dtype=np.int32) + i, c))
        contents[url] = c
    assert index.content_spilled == 37
    expected = {url: None if c is None else (c.n_tokens, c.text_key) for url, c in contents.items()}
    # The keys that came with their pages are answered without reading a page back; a page that
    # came without one is read once and its key kept.
    reads = []
    original = SpillFile.read
    monkeypatch.setattr(SpillFile, "read", lambda self, at, size: reads.append(at) or original(self, at, size))
    for _ in range(2):
        got = {url: index.content_summary(url) for url in contents}
        assert {url: None if s is None else (s.n_tokens, s.text_key) for url, s in got.items()} == expected
    unkeyed_spilled = sum(1 for i in range(37) if i % 2 == 0 and i % 7 != 3)
    assert len(reads) == unkeyed_spilled
    assert index.content_summary("https://site.example/en/unknown") is None
    spill.close()
