"""ILSP-FC section 3.9 image and size evidence: image names, frequencies and the KDE cut, depth."""

import lxml.html
import numpy as np
import pytest

from matchers.site.image_evidence import (
    ImageFrequencies,
    depth,
    depth_ok,
    gaussian_kde,
    image_file_name,
    image_jaccard,
    image_names,
    kde_threshold,
    normal_reference_bandwidth,
    ratio,
)

TRICKY = """<html><head><base href="/assets/v2/"></head><body>
<img src="img/Logo%20Big.PNG?v=3#top">
<img src="data:image/png;base64,iVBORw0KGgo=">
<img srcset="a-1x.jpg 1x, https://cdn.example.org/w_100,h_80/B.jpg 2x,c.webp">
<picture><source srcset="pic.avif 1x, pic@2x.avif 2x"><img src="pic.jpg" alt=""></picture>
<video><source src="movie.mp4"><source srcset="poster.png"></video>
<input type="IMAGE" src="/buttons/Go.gif"><input type="text" src="not-an-image.gif">
<img src="placeholder.gif" data-src="lazy.png">
<img src="folder/"><img src="">
<img src="LOGO%20big.png">
</body></html>"""


def test_image_names_from_tricky_html():
    assert image_names(TRICKY, "http://example.org/en/page.html") == [
        "logo big.png",  # decoded, lower-cased, query and fragment dropped
        "a-1x.jpg",
        "b.jpg",  # the comma inside the URL does not split it
        "c.webp",
        "pic.avif",
        "pic@2x.avif",
        "pic.jpg",
        "go.gif",
        "placeholder.gif",
        "lazy.png",
    ]


def test_image_names_accepts_a_parsed_tree_and_bad_input():
    tree = lxml.html.document_fromstring('<p><img src="../x/Photo.JPG"></p>')
    assert image_names(tree, "http://example.org/a/b.html") == ["photo.jpg"]
    assert image_names("", "http://example.org/") == []
    assert image_names("<!-- nothing -->", "http://example.org/") == []
    xhtml = '<?xml version="1.0" encoding="utf-8"?>\n<html><body><img src="é.png"/></body></html>'
    assert image_names(xhtml, "http://example.org/") == ["é.png"]


def test_image_file_name():
    assert image_file_name("../img/Chart%2Fv2.svg?x=1", "http://e.org/a/b/") == "chart/v2.svg"
    assert image_file_name("data:image/gif;base64,R0lGOD") is None
    assert image_file_name("http://e.org/dir/") is None


def test_ten_percent_rule():
    freqs = ImageFrequencies()
    for i in range(100):
        names = ["logo.png", f"photo{i}.jpg"]
        if i < 11:
            names.append("banner.png")  # 11 of 100 pages: more than 10%
        if i < 10:
            names.append("badge.png")  # 10 of 100: not more than 10%
        freqs.add(names)
    assert freqs.count("logo.png") == 100
    # The KDE cut of the sample {1 x100, 10, 11, 100} lies above 11: badge and banner are decided by
    # the share rule alone.
    assert freqs.threshold is not None and 11 < freqs.threshold < 100
    assert freqs.common(["logo.png", "banner.png", "badge.png", "photo3.jpg"]) == {"logo.png", "banner.png"}
    assert freqs.critical(["logo.png", "badge.png", "photo3.jpg"]) == {"badge.png", "photo3.jpg"}


def lobes_sample() -> list[int]:
    # A first lobe of critical images (1-3 pages) and a second of template images (30-34 pages).
    return [1] * 40 + [2] * 20 + [3] * 10 + [30, 31, 32, 33, 34]


def test_kde_threshold_lies_between_the_lobes():
    t = kde_threshold(lobes_sample())
    assert t is not None
    assert 3 < t < 30
    # It is the density minimum: lower than the density at both lobes' peaks.
    x = np.array(lobes_sample(), dtype=float)
    h = normal_reference_bandwidth(x)
    d = gaussian_kde(x, np.array([1.0, t, 32.0]), h)
    assert d[1] < d[0] and d[1] < d[2]


def test_kde_threshold_is_the_first_minimum_not_the_deepest():
    # Three lobes: critical (1-3), a few pages (20-21), template (60-61); the cut follows the first.
    t = kde_threshold([1] * 40 + [2] * 20 + [3] * 10 + [20] * 8 + [21] * 4 + [60] * 5 + [61] * 5)
    assert t is not None and 3 < t < 20


def test_kde_cut_in_image_frequencies():
    freqs = ImageFrequencies()
    page = 0
    for count, name in (
        [(1, f"c{i}") for i in range(40)]
        + [(3, f"t{i}") for i in range(10)]
        + [(30 + i, f"icon{i}") for i in range(5)]
    ):
        for _ in range(count):
            freqs.add([name])
            page += 1
    for _ in range(1000 - page):  # pages without images, so the 10% rule (100 pages) cuts nothing
        freqs.add([])
    assert freqs.threshold is not None and 3 < freqs.threshold < 30
    assert freqs.common(["c1", "t2", "icon0", "icon4"]) == {"icon0", "icon4"}


def test_kde_frequency_counts_pages_of_one_language():
    freqs = ImageFrequencies()
    for lang in ("en", "de", "fr", "es"):
        freqs.add(["figure.png", "logo.png"], lang)  # the article, translated
        freqs.add(["logo.png"], lang)  # another page of the same template
    assert freqs.count("figure.png") == 4
    assert freqs.frequency("figure.png") == 1
    assert freqs.frequency("logo.png") == 2
    assert freqs.count("logo.png") == 8


def test_kde_degenerate_cases():
    assert kde_threshold([]) is None
    assert kde_threshold([5]) is None
    assert kde_threshold([1, 1, 1, 7, 7]) is None  # two distinct frequencies
    # A smooth, decreasing density has no minimum after its lobe: no cut.
    decreasing = [v for v in range(1, 21) for _ in range(21 - v)]
    assert kde_threshold(decreasing) is None
    freqs = ImageFrequencies()
    assert freqs.threshold is None
    assert freqs.common(["a.png"]) == set()


def test_bandwidth_normal_reference_rule():
    x = np.array([1.0, 2.0, 3.0, 4.0, 10.0])
    mad = np.median(np.abs(x - 3.0))  # 1
    assert normal_reference_bandwidth(x) == pytest.approx(mad / 0.6745 * (4 / 15) ** 0.2)
    # More than half equal: the MAD is 0 and the standard deviation is used.
    y = np.array([1.0, 1.0, 1.0, 5.0])
    assert normal_reference_bandwidth(y) == pytest.approx(np.std(y, ddof=1) * (4 / 12) ** 0.2)
    assert normal_reference_bandwidth(np.array([2.0, 2.0])) == 0.0


def test_gaussian_kde_integrates_to_one():
    x = np.array([1.0, 1.0, 2.0, 8.0])
    grid = np.linspace(-20, 30, 5001)
    d = gaussian_kde(x, grid, 1.3)
    assert float(np.sum(d) * (grid[1] - grid[0])) == pytest.approx(1.0, abs=1e-6)


def test_image_jaccard():
    assert image_jaccard(set(), set()) is None
    assert image_jaccard({"a"}, set()) == 0.0
    assert image_jaccard({"a", "b", "c"}, {"b", "c", "d"}) == pytest.approx(2 / 4)
    assert image_jaccard(frozenset({"a"}), {"a"}) == 1.0


def test_depth_as_the_paper_defines_it():
    assert depth("http://domain.org/d1/d2/d3/page.html") == 4
    assert depth("http://domain.org/page.html?lang=de#top") == 1
    assert depth("http://domain.org/") == 1
    assert depth("http://domain.org") == 1
    assert depth("http://domain.org/d1/") == 2  # the index page of d1
    assert depth("http://domain.org//d1//page.html") == 2
    assert depth_ok("http://d.org/en/a/page.html", "http://d.org/a/page.html")
    assert not depth_ok("http://d.org/en/a/b/page.html", "http://d.org/a/page.html")
    assert depth_ok("http://d.org/en/a/b/page.html", "http://d.org/a/page.html", max_diff=2)


def test_ratio():
    assert ratio(10, 8) == pytest.approx(0.8)
    assert ratio(8, 10) == pytest.approx(0.8)
    assert ratio(0, 0) == 1.0
    assert ratio(0, 5) == 0.0
