"""Tests of the URL pairing-key matcher (Kit & Ng, URL pairing patterns; matchers/site/url_keys.py)."""

import pickle
import random
import sys

import numpy as np
import pytest

from matchers.site.url_keys import UrlKeyIndex, UrlTokens, tokenize_url

H = "http://www.example.org"


def pair_set(index: UrlKeyIndex) -> set[frozenset[str]]:
    return {frozenset((a, b)) for a, b, _ in index.pairs()}


def key_texts(index: UrlKeyIndex) -> list[str]:
    accepted = index.keys()
    return [k.text for k in accepted]


def powers(index: UrlKeyIndex) -> dict[tuple[str, str], int]:
    return {(k.field, k.text): k.power for k in index.candidate_keys()}


# -- tokenization ---------------------------------------------------------------------------------


def test_tokenize_the_papers_table_1_url():
    assert tokenize_url("http://www.aud.gov.hk/chi/home/home_c.htm") == UrlTokens(
        host=("www", "aud", "gov", "hk"), path=("chi", "home"), file=("home", "c", "htm"), query=())


def test_tokens_are_not_split_at_letter_digit_boundaries():
    # The paper's keys 1e:1c, 06e:06c, eng:b5 need "06e" and "b5" to be single tokens.
    assert tokenize_url("http://x.hk/eng/b5/press_06e.htm").file == ("press", "06e", "htm")
    assert tokenize_url("http://x.hk/big5/a.htm").path == ("big5",)


def test_tokenize_query_percent_encoding_fragment_and_host_case():
    t = tokenize_url("https://User@WWW.Site.ORG:8080/caf%C3%A9/a-b~c.php?lang=fr&id=3#top")
    assert t.host == ("www", "site", "org", "8080")
    assert t.path == ("café",)
    assert t.file == ("a", "b", "c", "php")
    assert t.query == ("lang", "fr", "id", "3")
    # A trailing slash leaves an empty file; case is kept outside the host ("EN:TC" in Table 3).
    assert tokenize_url("http://h/EN/about/") == UrlTokens(("h",), ("EN", "about"), (), ())


def test_the_papers_null_key_example():
    a, b = "http://www.logisticshk.gov.hk/text.html", "http://www.logisticshk.gov.hk/chinese/text.html"
    assert tokenize_url(b).path == ("chinese",) and tokenize_url(a).path == ()
    assert powers(UrlKeyIndex.from_urls([a, b])) == {("path", "(null):chinese"): 1}


def test_host_is_context_unless_host_keys():
    urls = [f"http://{lang}.example.org/doc/p{i}x.html" for i in range(5) for lang in ("en", "fr")]
    # By default only pages of one host pair (here slug keys p0x:p1x, the only pattern visible).
    default = UrlKeyIndex.from_urls(urls)
    assert {k.field for k in default.candidate_keys()} == {"file"}
    assert all(a.split("/")[2] == b.split("/")[2] for a, b, _ in default.pairs())
    index = UrlKeyIndex.from_urls(urls, host_keys=True)
    assert (index.candidate_keys()[0].field, index.candidate_keys()[0].text) == ("host", "en:fr")
    assert sorted((a, b) for a, b, _ in index.pairs()) == [
        (f"http://en.example.org/doc/p{i}x.html", f"http://fr.example.org/doc/p{i}x.html") for i in range(5)]


# -- linking power --------------------------------------------------------------------------------

HAND = [f"{H}/en/a.html", f"{H}/fr/a.html", f"{H}/en/b.html", f"{H}/fr/b.html", f"{H}/en/c.html",
        f"{H}/text.html", f"{H}/chinese/text.html", f"{H}/en/c.htm"]


def test_linking_power_on_a_hand_made_site():
    index = UrlKeyIndex.from_urls(HAND)
    # By hand: en:fr pairs a and b; a:b pairs them in en/ and in fr/; a:c and b:c only in en/;
    # htm:html pairs en/c.html with en/c.htm, which also differs from en/a.html and en/b.html by
    # two adjacent tokens (a-html:c-htm, within max_span); (null):chinese is the paper's example.
    # Nothing else: e.g. en/a.html and fr/b.html differ in two fields' worth of places.
    assert powers(index) == {
        ("path", "en:fr"): 2, ("file", "a:b"): 2, ("file", "a:c"): 1, ("file", "b:c"): 1,
        ("file", "htm:html"): 1, ("path", "(null):chinese"): 1,
        ("file", "a-html:c-htm"): 1, ("file", "b-html:c-htm"): 1,
    }
    assert powers(UrlKeyIndex.from_urls(HAND, max_span=1))[("file", "htm:html")] == 1
    assert ("file", "a-html:c-htm") not in powers(UrlKeyIndex.from_urls(HAND, max_span=1))


def test_multi_token_side_is_counted_once_at_the_canonical_difference():
    urls = [f"{H}/docs/intro.{lang}.html" for lang in ("en", "zh-hans", "pt", "pt-br")]
    p = powers(UrlKeyIndex.from_urls(urls))
    # pt-br vs pt differs by the inserted "br" only, not by pt-br:pt nor by br.html:html.
    assert p == {("file", "en:pt"): 1, ("file", "en:zh-hans"): 1, ("file", "pt:zh-hans"): 1,
                 ("file", "en:pt-br"): 1, ("file", "pt-br:zh-hans"): 1, ("file", "(null):br"): 1}


def test_identifier_slots_larger_than_max_group_are_not_enumerated():
    urls = [f"{H}/news/{i}.html" for i in range(30)]
    assert len(UrlKeyIndex.from_urls(urls).candidate_keys()) == 30 * 29 // 2
    assert UrlKeyIndex.from_urls(urls, max_group=20).candidate_keys() == []


# -- threshold and competitive union --------------------------------------------------------------


def bilingual(n: int, a: str = "en", b: str = "fr") -> list[str]:
    return [f"{H}/{lang}/page-{w}.html" for w in [f"w{i}x" for i in range(n)] for lang in (a, b)]


def test_threshold_is_a_tenth_of_the_site_with_an_absolute_minimum():
    assert UrlKeyIndex.from_urls(bilingual(40)).threshold() == 8.0
    assert UrlKeyIndex.from_urls(bilingual(3)).threshold() == 2.0
    index = UrlKeyIndex.from_urls(bilingual(10) + [f"{H}/noise/{i}/x.html" for i in range(60)])
    assert key_texts(index) == ["en:fr"]
    assert len(index.pairs()) == 10
    # 10 pairs among 80 URLs: below a 1/5 share of the site, but every URL of the key's smaller
    # side, which is what a key can reach.
    noisy = bilingual(10) + [f"{H}/noise/{i}/x.html" for i in range(60)]
    assert len(UrlKeyIndex.from_urls(noisy, min_power_share=0.2).pairs()) == 10
    assert UrlKeyIndex.from_urls(noisy, min_power_share=0.2, min_side_share=2.0).pairs() == []


def test_stronger_key_keeps_its_urls_and_the_weaker_keys_conflicting_pairs_are_dropped():
    # en:zh links pages 0-9; en:cn (also Chinese) links pages 8-11.  Pages 8 and 9 already have
    # their Chinese partner, so en:cn keeps only 10 and 11 (2 of 4 rejected: not a majority).
    zh = [(f"{H}/zh/p{i}z.html", "zh") for i in range(10)]
    cn = [(f"{H}/cn/p{i}z.html", "zh") for i in range(8, 12)]
    en = [(f"{H}/en/p{i}z.html", "en") for i in range(12)]
    index = UrlKeyIndex.from_urls(en + zh + cn)
    got = pair_set(index)
    assert {frozenset((f"{H}/en/p{i}z.html", f"{H}/zh/p{i}z.html")) for i in range(10)} <= got
    assert frozenset((f"{H}/en/p8z.html", f"{H}/cn/p8z.html")) not in got
    assert {frozenset((f"{H}/en/p{i}z.html", f"{H}/cn/p{i}z.html")) for i in (10, 11)} <= got
    assert len(got) == 12
    en_pages = [u for u, _ in en]
    assert all(sum(u in p for p in got) == 1 for u in en_pages)


def test_key_whose_pairs_mostly_conflict_is_dropped_whole():
    en = [(f"{H}/en/p{i}z.html", "en") for i in range(10)]
    fr = [(f"{H}/fr/p{i}z.html", "fr") for i in range(10)]
    # A mirror of French pages 0-2 and one page of its own: 3 of its 4 en pairs conflict.
    mirror = [(f"{H}/fr2/p{i}z.html", "fr") for i in (0, 1, 2, 11)] + [(f"{H}/en/p11z.html", "en")]
    index = UrlKeyIndex.from_urls(en + fr + mirror, families=False, min_power_share=0.0)
    rejected = {r.key.text: r for r in index.rejected_keys()}
    assert rejected["en:fr2"].reason == "conflict"
    assert rejected["en:fr2"].rejected_share == pytest.approx(0.75)
    assert all(f"{H}/fr2/" not in a + b for a, b, _ in index.pairs())
    assert len(index.pairs()) == 10


def test_same_language_key_is_a_false_key():
    # A printable copy of every English page: (null):print links pages of the same language.
    urls = [(u, u.split("/")[3]) for u in bilingual(12)]
    urls += [(f"{H}/en/print/page-w{i}x.html", "en") for i in range(12)]
    with_langs = UrlKeyIndex.from_urls(urls)
    rejected = {(r.key.text, r.reason) for r in with_langs.rejected_keys() if r.key.field == "path"}
    # en-print:fr links English copies to French pages that already have their English partner.
    assert rejected == {("(null):print", "same-language"), ("en-print:fr", "conflict")}
    assert all("/print/" not in a + b for a, b, _ in with_langs.pairs())
    assert len(with_langs.pairs()) == 12
    # Without languages the print copy looks like a third language: the paper's behaviour.
    without = UrlKeyIndex.from_urls([u for u, _ in urls])
    assert any("/print/" in a + b for a, b, _ in without.pairs())


def test_inferred_labels_reject_slug_keys_without_languages():
    # 5 pages in 3 languages: the language keys (power 5) label the pages before the slug keys
    # (alpha:beta, power 3, linking two pages of one language) compete, so those are rejected.
    slugs = ("alpha", "beta", "gamma", "delta", "eps")
    index = UrlKeyIndex.from_urls([f"{H}/{lang}/{w}.html" for w in slugs for lang in ("en", "fr", "de")])
    assert [k.kind for k in list(index.keys())] == ["family"]
    assert all(a.split("/")[-1] == b.split("/")[-1] for a, b, _ in index.pairs())
    assert len(index.pairs()) == 5 * 3
    assert {r.reason for r in index.rejected_keys()} == {"same-language"}
    assert len(index.rejected_keys()) == 10


# -- generalization -------------------------------------------------------------------------------


def weak_key_site() -> list[str]:
    urls = []
    for year in ("06", "07", "1"):
        for j in range(3):
            name = f"n{year}{j}"
            urls += [f"{H}/notice/{name}_{year}e.htm", f"{H}/notice/{name}_{year}c.htm"]
    return urls + [f"{H}/other{i}/index.htm" for i in range(42)]


def test_weak_keys_generalize_to_their_shared_pattern():
    urls = weak_key_site()  # 60 URLs: threshold 6, each year key has power 3
    # Under the paper's threshold alone (a tenth of the site) the weak keys are lost...
    assert UrlKeyIndex.from_urls(urls, generalize=False, min_side_share=100.0).pairs() == []
    # ...though each links every URL that carries its tokens, which is enough on its own.
    plain = UrlKeyIndex.from_urls(urls, generalize=False)
    assert sorted(k.text for k in list(plain.keys())) == ["06c:06e", "07c:07e", "1c:1e"]
    index = UrlKeyIndex.from_urls(urls)
    (key,) = index.keys()
    assert (key.text, key.power, key.generalized, key.kind) == ("c:e", 9, True, "affix")
    assert sorted(m.text for m in key.members) == ["06c:06e", "07c:07e", "1c:1e"]
    assert len(index.pairs()) == 9
    assert all(a.endswith("c.htm") and b.endswith("e.htm") and a[:-5] == b[:-5] for a, b, _ in index.pairs())
    assert index.rows()[0][:3] == ("c:e", 9, True)


def test_numeric_residues_do_not_generalize():
    # page1:page2 and item1:item2 share the residue 1:2, an id difference: not generalized; the
    # letter residue item:page (item1:page1 + item2:page2) is.
    urls = [f"{H}/d{j}/{stem}{i}.htm" for j in range(4) for stem in ("page", "item") for i in (1, 2)]
    index = UrlKeyIndex.from_urls(urls, families=False, min_power_share=0.0)
    generalized = {k.text: sorted(m.text for m in k.members) for k in list(index.keys()) if k.generalized}
    assert generalized == {"item:page": ["item1:page1", "item2:page2"]}


def test_multilingual_family_lifts_keys_below_the_threshold():
    # 20 pages in 12 languages: each language-pair key has power 20, below 1/10 of 240 URLs.
    langs = [f"l{c}" for c in "abcdefghijkl"]
    urls = [f"{H}/{lang}/page{w}.html" for w in "abcdefghijklmnopqrst" for lang in langs]
    assert UrlKeyIndex.from_urls(urls, families=False, min_side_share=100.0).pairs() == []
    index = UrlKeyIndex.from_urls(urls)
    (key,) = index.keys()
    assert key.kind == "family" and key.power == 66 * 20 and len(key.members) == 66
    assert key.text == "{" + "|".join(langs) + "}"
    assert len(index.pairs()) == 66 * 20
    assert all(a.split("/")[-1] == b.split("/")[-1] for a, b, _ in index.pairs())


# -- scores, rows, random sites, incremental ------------------------------------------------------


def test_key_score_and_rows():
    index = UrlKeyIndex.from_urls(bilingual(10) + [f"{H}/noise/{i}/x.html" for i in range(20)])
    a, b = f"{H}/en/page-w1x.html", f"{H}/fr/page-w1x.html"
    tau = index.threshold()
    # The key covers every URL of its sides: its own threshold is a share of those 10 URLs.
    (key,) = index.keys()
    assert key.tau == max(3.0, 0.3 * 10) < tau
    assert index.key_score(a, b) == pytest.approx(10 / (10 + key.tau))
    assert index.key_score(b, a) == index.key_score(a, b)
    assert index.key_score(a, f"{H}/fr/page-w2x.html") == 0.0
    assert index.key_score(a, "http://unknown/") == 0.0
    (row,) = index.rows()
    assert (row.key, row.power, row.generalized, row.field) == ("en:fr", 10, False, "path")
    assert row.example == (f"{H}/en/page-w0x.html", f"{H}/fr/page-w0x.html")


def test_random_urls_give_nothing():
    rnd = random.Random(7)

    def tok() -> str:
        return f"{rnd.getrandbits(rnd.choice((12, 20, 32))):x}"

    urls = []
    for _ in range(3000):
        path = "/".join(tok() for _ in range(rnd.randint(0, 3)))
        url = f"{H}/{path}/{tok()}.{rnd.choice(('html', 'php', 'htm'))}"
        if rnd.random() < 0.3:
            url += f"?{tok()}={tok()}"
        urls.append(url)
    for n in (100, 3000):
        index = UrlKeyIndex.from_urls(urls[:n])
        assert index.keys() == [] and index.pairs() == [] and index.rows() == []


def site_with_everything() -> list[tuple[str, str | None]]:
    urls = [(u, None) for u in weak_key_site()]
    urls += [(u, u.split("/")[3]) for u in bilingual(15, "en", "de")]
    urls += [(f"{H}/q/show.php?lang={lang}&id={i}", lang) for i in range(8) for lang in ("en", "de", "it")]
    return urls


def test_incremental_adds_and_recomputes_match_the_batch():
    urls = site_with_everything()
    batch = UrlKeyIndex.from_urls(urls, min_power_share=0.05)
    assert {k.kind for k in list(batch.keys())} == {"token", "affix", "family"}
    inc = UrlKeyIndex(min_power_share=0.05)
    shuffled = random.Random(3).sample(urls, len(urls))
    for i, (u, lang) in enumerate(shuffled[:-10]):
        inc.add(u, lang)
        if i % 17 == 0:
            inc.recompute()
    inc.recompute()
    stale = inc.pairs()
    for u, lang in shuffled[-10:]:
        inc.add(u, lang)
    assert inc.pairs() == stale  # reads are as of the last recompute
    inc.recompute()
    assert inc.pairs() == batch.pairs() != stale
    assert inc.keys() == batch.keys()
    assert inc.rows() == batch.rows()
    assert inc.rejected_keys() == batch.rejected_keys()


def test_adding_a_url_twice_changes_nothing_but_fills_a_missing_language():
    index = UrlKeyIndex()
    index.add(f"{H}/en/a.html")
    index.add(f"{H}/en/a.html", "en")
    index.add(f"{H}/en/a.html", "fr")
    assert len(index) == 1
    assert index._langs == ["en"]


# -- what the index keeps per URL -----------------------------------------------------------------


def test_field_tuples_are_pooled_and_tokens_interned():
    index = UrlKeyIndex()
    for lang in ("en", "fr"):
        for i in range(3):
            index.add(f"{H}/{lang}/docs/guide-{i}.html", lang)
    host, path, file, _ = (list(column) for column in index._table.columns)
    assert len({id(t) for t in host}) == 1  # one host tuple for the whole site
    assert len({id(t) for t in path}) == 2  # en/docs and fr/docs
    assert len({id(t) for t in file}) == 3  # guide-i.html under both languages
    assert all(sys.intern(t) is t for f in file for t in f)
    # The same values as the tokenizer's, so the same keys.
    assert [tuple(f) for f in index._table.rows()][0] == tokenize_url("//example.org/en/docs/guide-0.html").fields()


def test_signature_slots_are_rebuilt_in_the_order_they_were_written():
    from matchers.site.url_key_counting import _K_BITS, _P_BITS, UrlTable

    lengths = [0, 1, 2, 3, 7, 300, 255, 256]  # over 255 tokens a field is signed up to 255
    for key_fields, max_span in (((1, 2, 3), 2), ((0, 1, 2, 3), 3), ((2,), 1)):
        table = UrlTable(key_fields, max_span)
        expected = []
        for uid, n in enumerate(lengths):
            tokens = [["h"], [f"d{i}" for i in range(n)], ["f", str(uid)], [f"q{i}" for i in range(n % 5)]]
            fields = table.add(uid, f"http://h/{uid}", f"//h/{uid}", tokens)
            for fid in key_fields:
                m = min(len(fields[fid]), 255)
                expected += [((uid << 2 | fid) << _P_BITS | p) << _K_BITS | k
                             for p in range(m + 1) for k in range(min(max_span, m - p) + 1)]
        assert len(table.sigs) == len(expected)
        assert table._entries_at(np.arange(len(expected))).tolist() == expected
        picked = np.array([len(expected) - 1, 0, 5, 5])
        assert table._entries_at(picked).tolist() == [expected[i] for i in picked]


def test_a_page_whose_canonical_hash_is_taken_is_still_a_page_of_its_own():
    from matchers.site.url_canonical import canonical_url

    index = UrlKeyIndex()
    index.add(f"{H}/en/a.html", "en")
    # As if the hash of /fr/a.html's canonical form were that of /en/a.html's.
    index._table._by_form[hash(canonical_url(f"{H}/fr/a.html"))] = 0
    index.add(f"{H}/fr/a.html", "fr")
    index.add(f"{H}/fr/a.html?", "fr")  # an alias of each
    index.add("https://example.org/en/a.html", "en")
    assert len(index) == 2
    assert index._ids == {f"{H}/en/a.html": 0, f"{H}/fr/a.html": 1, f"{H}/fr/a.html?": 1,
                          "https://example.org/en/a.html": 0}


def test_counted_keys_read_back_every_key_and_power():
    from matchers.site.url_key_counting import CountedKeys

    power = {(2, ("en",), ("fr",)): 7, (1, (), ("chinese",)): 1, (4, ("de", "german"), ("fr", "french")): 3,
             (3, ("en",), ("zh", "hans")): 2, (0, ("en",), ("fr",)): 4}
    assert list(CountedKeys(power.items()).items()) == list(power.items())
    assert list(CountedKeys().items()) == [] and len(CountedKeys(power.items(), range(5))) == 5


def test_standalone_masks_match_the_standalone_tokens_also_past_64_tokens():
    from matchers.site.url_markers import StandaloneMasks, _candidates, standalone_tokens

    urls = [f"{H}/en/en-pleine-croissance/x.fr.html?lang=pt-br", f"{H}/fr/a_b.html",
            f"{H}/" + "/".join(f"s{i}" for i in range(70)) + "/long-slug-of-words-x.html?" + "&".join(
                f"k{i}=v{i}" for i in range(40))]
    index = UrlKeyIndex()
    for u in urls:
        index.add(u, "en")
    masks = StandaloneMasks()
    masks.update(index._urls, index._table.rows(), index._key_fields)
    masks.update(index._urls, index._table.rows(len(masks)), index._key_fields)  # nothing new
    assert len(masks) == 3 and masks[2] >> 64
    for uid, f in enumerate(index._table.rows()):
        alone = standalone_tokens(urls[uid])
        got = {t for i, t in enumerate(_candidates(f, index._key_fields)) if masks[uid] >> i & 1}
        assert got == alone & {t for fid in index._key_fields for t in f[fid]}


def test_a_pair_scores_alike_in_both_orders():
    index = UrlKeyIndex.from_urls(bilingual(12))
    assert index.pairs()
    for a, b, _ in index.pairs():
        assert index.key_score(a, b) == index.key_score(b, a) > 0.5
    assert index.key_score(f"{H}/en/page-w0x.html", f"{H}/en/page-w1x.html") == 0.0


def test_a_pickled_index_reads_and_folds_aliases_alike():
    # The index of canonical forms is keyed by hash(), salted per process: it is rebuilt on load.
    index = UrlKeyIndex.from_urls(bilingual(12))
    assert "_by_form" not in index._table.__getstate__()
    copy = pickle.loads(pickle.dumps(index))
    assert (copy.pairs(), copy.keys(), copy.rows()) == (index.pairs(), index.keys(), index.rows())
    copy.add("https://example.org/en/page-w1x.html?", "en")
    assert len(copy) == len(index) == 24
