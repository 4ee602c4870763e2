"""The viewer's plots (bitext_spider.viewer.plots) on small databases whose numbers are known."""

import re
import xml.etree.ElementTree as ET

import numpy as np
import pytest
from sqlalchemy.orm import Session

from bitext_spider.store.models import CandidateRow, PageRow, PairRow, SentenceRow, SiteRow, make_engine
from bitext_spider.viewer.plot_data import rolling_share
from bitext_spider.viewer.plots import PLOT_KEYS, build_plots
from matchers.site.image_evidence import kde_threshold
from matchers.structure.unsupervised_threshold import PairFeatures, estimate_threshold

SVG = "{http://www.w3.org/2000/svg}"


def _fmt(x):
    return f"{x:.3g}".replace("-", "\u2212")


def _parse(svg):
    assert svg.startswith("<svg") and "<?xml" not in svg and "<!DOCTYPE" not in svg
    return ET.fromstring(svg)  # well-formed XML or ParseError


def _texts(svg):
    return [" ".join(el.itertext()) for el in _parse(svg).iter(f"{SVG}text")]


def _ids(svg, prefix):
    return {el.get("id") for el in _parse(svg).iter() if (el.get("id") or "").startswith(prefix)}


def _bins(svg, prefix):
    """Bin numbers of the bars whose ids start with ``prefix`` (``<prefix><bin>``)."""
    return {int(i[len(prefix):]) for i in _ids(svg, prefix) if i[len(prefix):].isdigit()}


@pytest.fixture
def session(tmp_path):
    engine = make_engine(f"sqlite:///{tmp_path / 'plots.db'}")
    with Session(engine) as s:
        s.add(SiteRow(id=1, key="a.example", start_urls=["http://a.example/"]))
        s.add(SiteRow(id=2, key="b.example", start_urls=["http://b.example/"]))
        s.commit()
        yield s
    engine.dispose()


def _page(s, pid, lang, fetched, tokens=None, images=(), site=1, eligible=True):
    s.add(PageRow(id=pid, site_id=site, url=f"http://{'ab'[site - 1]}.example/{pid}", lang=lang,
                  fetched_at=fetched, eligible=eligible, images=list(images),
                  tokens=None if tokens is None else np.array(tokens, np.int32).tobytes()))


def _candidate(s, p1, p2, lang1, lang2, scores, accepted=True, site=1):
    s.flush()  # the pages first: the unit of work does not order rows by foreign keys
    s.add(CandidateRow(site_id=site, page1_id=p1, page2_id=p2, lang1=lang1, lang2=lang2, score=0.5,
                       scores=scores, accepted=accepted))


def _by_key(plots):
    assert [p.key for p in plots] == list(PLOT_KEYS)
    for p in plots:
        assert p.title and p.caption
        _parse(p.svg)
    return {p.key: p for p in plots}


def test_an_empty_database_gives_every_plot_saying_so(session):
    plots = _by_key(build_plots(session))
    for p in plots.values():
        assert _ids(p.svg, f"{p.key}-no-data"), p.key
        assert any(t.startswith("No ") for t in _texts(p.svg))


def test_score_distributions_have_one_panel_per_evidence_and_a_bar_per_filled_bin(session):
    for pid in range(1, 9):
        _page(session, pid, "en" if pid <= 4 else "fr", float(pid))
    # content_share: accepted 0.92, 0.97, 0.55, rejected 0.12; url_key on two candidates only.
    _candidate(session, 1, 5, "en", "fr", {"content_share": 0.92, "url_key": 1.0, "decision": {"score": 1}})
    _candidate(session, 2, 6, "en", "fr", {"content_share": 0.97, "url_key": 0.25, "proposed": 1})
    _candidate(session, 3, 7, "en", "fr", {"content_share": 0.55, "edit_distance": float("nan")})
    _candidate(session, 4, 8, "en", "fr", {"content_share": 0.12, "x_topic": 3.0}, accepted=False)
    session.commit()
    svg = _by_key(build_plots(session, 1))["score-distributions"].svg
    key = "score-distributions-"
    assert _bins(svg, key + "content_share-accepted-") == {11, 18, 19}  # 20 bins over [0, 1]
    assert _bins(svg, key + "content_share-rejected-") == {2}
    assert _bins(svg, key + "url_key-accepted-") == {5, 19}
    assert _bins(svg, key + "url_key-rejected-") == set()
    # A user's score has its own range: 3.0 alone falls in the last of the bins around it.
    assert _bins(svg, key + "x_topic-rejected-") == {10}
    assert not _ids(svg, key + "images")  # no candidate has image evidence: no panel
    texts = _texts(svg)
    assert "content share (3 / 1)" in texts and "URL key (2 / 0)" in texts and "x_topic (0 / 1)" in texts
    assert not any(t.startswith("proposed") or t.startswith("decision") for t in texts)


def _tags(words):
    """A STRAND sequence of three tags around two text chunks of ``words`` words."""
    return [-1, words[0], -2, words[1], -3]


def test_structure_threshold_recomputes_algorithm_1_from_the_stored_tags(session):
    fr_words = [(55, 55), (50, 60), (48, 58), (60, 62), (40, 45), (58, 58), (52, 50)]
    pid = 0
    expected = []
    for i, fr in enumerate(fr_words):
        en_id, fr_id = pid + 1, pid + 2
        pid += 2
        _page(session, en_id, "en", float(en_id), _tags((50, 50)))
        if i == len(fr_words) - 1:  # one pair whose French page has another tag: W = 2 of 10 tokens
            _page(session, fr_id, "fr", float(fr_id), [-1, fr[0], -4, fr[1], -3])
            expected.append(PairFeatures(0.2, (100 - sum(fr)) / (100 + sum(fr))))
        else:
            _page(session, fr_id, "fr", float(fr_id), _tags(fr))
            expected.append(PairFeatures(0.0, (100 - sum(fr)) / (100 + sum(fr))))
        _candidate(session, en_id, fr_id, "en", "fr", {"structure": 0.9})
    session.commit()
    result = estimate_threshold(expected)
    assert result.n_candidates == 6 and result.n_zero == 6  # P_d = 0.2 is not in S
    svg = _by_key(build_plots(session, 1))["structure-threshold"].svg
    texts = _texts(svg)
    assert "en\u2013fr: |S| = 6, |D| = 6" in texts
    assert f"\u03bc = {_fmt(result.mu)}, threshold \u00b1{_fmt(result.threshold)} (not used: |S| < 100)" in texts
    assert _ids(svg, "structure-threshold-pair0-mu") and _ids(svg, "structure-threshold-pair0-threshold-low")
    # L_d bins of the threshold's step (0.01): one bar per filled bin of S, as many bars as values.
    s_bins = _bins(svg, "structure-threshold-pair0-s-")
    assert 1 <= len(s_bins) <= 6


def test_structure_threshold_shows_what_the_crawl_stored(session):
    for i in range(3):
        _page(session, 2 * i + 1, "de", float(i), _tags((10, 10)))
        _page(session, 2 * i + 2, "en", float(i), _tags((10, 10)))
        # The crawl stored its own features (here not what the tags give) and threshold.
        _candidate(session, 2 * i + 1, 2 * i + 2, "de", "en",
                   {"p_d": 0.0, "l_d": -0.1 + 0.05 * i, "l_d_threshold": 0.123})
    session.commit()
    texts = _texts(_by_key(build_plots(session, 1))["structure-threshold"].svg)
    assert f"\u03bc = {_fmt(-0.05)}, threshold \u00b10.123 (the crawl's)" in texts


def test_image_frequencies_histogram_kde_and_its_cut(session):
    # A logo on every English page, an icon on every French one, a banner on two French pages,
    # four figures each on one page and its translation and one on a single page; page 9 has no
    # language, so it is not counted.
    pages = {1: ["logo.png", "fig1.png", "fig5.png"], 2: ["icon.png", "fig1.png", "banner.png"],
             3: ["logo.png", "fig2.png"], 4: ["icon.png", "fig2.png", "banner.png"],
             5: ["logo.png", "fig3.png"], 6: ["icon.png", "fig3.png"],
             7: ["logo.png", "fig4.png"], 8: ["icon.png", "fig4.png"], 9: ["logo.png", "fig1.png"]}
    for pid, images in pages.items():
        _page(session, pid, None if pid == 9 else "en" if pid % 2 else "fr", float(pid), images=images)
    session.commit()
    # Per distinct image, the most pages of one language using it: logo 4, icon 4, banner 2,
    # fig1 to fig5 1.
    frequencies = [4, 4, 2, 1, 1, 1, 1, 1]
    cut = kde_threshold(frequencies)
    assert cut is not None and 2 < cut < 4
    svg = _by_key(build_plots(session, 1))["image-frequencies"].svg
    texts = _texts(svg)
    assert f"KDE cut {_fmt(cut)}" in texts
    assert "a.example: 8 images on 8 pages" in texts
    # One bar per frequency with images: bins centred on 1, 2 and 4 pages.
    assert _bins(svg, "image-frequencies-site0-bar-") == {0, 1, 3}
    assert _ids(svg, "image-frequencies-site0-kde") and _ids(svg, "image-frequencies-site0-cut")
    # Site 2 has pages but no image: its plot says so.
    _page(session, 20, "en", 1.0, site=2)
    session.commit()
    assert "No images on the eligible pages." in _texts(_by_key(build_plots(session, 2))["image-frequencies"].svg)


def _sentences(s, p1, p2, lang1, lang2, probs):
    s.flush()
    for pos, prob in enumerate(probs):
        s.add(SentenceRow(site_id=1, page1_id=p1, page2_id=p2, position=pos, lang1=lang1, lang2=lang2,
                          text1=f"s{pos}", text2=f"t{pos}", score=prob))


def test_learning_curve_counts_sentences_above_the_threshold_in_crawl_order(session):
    # Page pair (1, 2) arrives last (page 2 fetched at 9), so x starts with pair (3, 4).
    for pid, lang, t in ((1, "en", 1.0), (2, "fr", 9.0), (3, "en", 2.0), (4, "fr", 3.0), (5, "de", 4.0)):
        _page(session, pid, lang, t)
    _candidate(session, 1, 2, "en", "fr", {"content_share": 0.5})
    _candidate(session, 3, 4, "en", "fr", {"content_share": 0.75})
    _sentences(session, 1, 2, "en", "fr", [0.9, 0.2, 0.6, 0.5])  # 0.5 is not above 0.5
    _sentences(session, 3, 4, "en", "fr", [0.7, 0.8, 0.1])
    _sentences(session, 3, 5, "en", "de", [0.95])
    session.commit()
    svg = _by_key(build_plots(session, 1))["learning-curve"].svg
    texts = _texts(svg)
    assert "en\u2013fr: 7 sentence pairs, 57% aligned" in texts  # 4 of 7 above 0.5
    assert "de\u2013en: 1 sentence pairs, 100% aligned" in texts
    assert _ids(svg, "learning-curve-curve0-line") and _ids(svg, "learning-curve-mature")


def test_rolling_share_covers_the_last_window_of_sentence_pairs():
    n, good = np.array([100, 100, 100]), np.array([50, 100, 100])
    assert rolling_share(n, good, 150).tolist() == [0.5, 0.75, 1.0]
    assert rolling_share(n, good, 1000).tolist() == pytest.approx([0.5, 0.75, 250 / 300])
    assert rolling_share(np.array([0, 4]), np.array([0, 1]), 10).tolist() == [0.0, 0.25]


def test_pairs_counted_from_their_later_page(session):
    for pid, t in ((1, 5.0), (2, 1.0), (3, 2.0), (4, 3.0), (5, 4.0)):
        _page(session, pid, "en" if pid % 2 else "fr", t)
    # In fetch order the pages are 2, 3, 4, 5, 1: pair (2, 3) is complete after 2 pages,
    # (4, 5) after 4, (1, 2) after 5.
    for a, b in ((2, 3), (4, 5), (1, 2)):
        lang_a, lang_b = ("en" if a % 2 else "fr"), ("en" if b % 2 else "fr")
        _candidate(session, a, b, lang_a, lang_b, {}, accepted=True)
        session.add(PairRow(site_id=1, page1_id=a, page2_id=b, lang1=lang_a, lang2=lang_b, score=1.0))
    _candidate(session, 1, 4, "en", "fr", {}, accepted=False)
    session.commit()
    svg = _by_key(build_plots(session, 1))["pairs-vs-pages"].svg
    texts = _texts(svg)
    assert "3 pairs after 5 pages" in texts and "final pairs (3)" in texts
    path = next(el for el in _parse(svg).iter() if el.get("id") == "pairs-vs-pages-pairs")
    d = next(el.get("d") for el in path.iter(f"{SVG}path"))
    ys = sorted({float(y) for y in re.findall(r"[ML] [-\d.]+ ([-\d.]+)", d)}, reverse=True)
    assert len(ys) == 4  # after 1 to 5 pages: 0, 1, 1, 2, 3 pairs


def test_svg_ids_are_prefixed_and_unique(session):
    _page(session, 1, "en", 1.0, images=["a.png"])
    _page(session, 2, "fr", 2.0, images=["b.png"])
    _candidate(session, 1, 2, "en", "fr", {"link": 1.0})
    session.commit()
    seen: set[str] = set()
    for p in build_plots(session):
        ids = re.findall(r'\bid="([^"]+)"', p.svg)
        assert len(ids) == len(set(ids)), p.key
        assert all(i == f"plot-{p.key}" or i.startswith(f"{p.key}-") for i in ids)
        for ref in re.findall(r'(?:url\(#|href="#)([^")]+)', p.svg):
            assert ref in ids
        assert not seen & set(ids)
        seen |= set(ids)
        # matplotlib's stylesheet for every element is scoped to the plot's own.
        assert p.svg.count("*{") == 1 and f"#plot-{p.key} *{{stroke" in p.svg
