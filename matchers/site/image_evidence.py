"""Image and size evidence of the ILSP-FC pair detector: shared image file names, site depth,
paragraph-count and text-length ratios.

Papavassiliou et al., *ILSP-FC*, section 3.9 ("Pair Detector"):

* each document is represented by the file names of its images; images that are frequent on the
  site (logos, social icons) are discarded, the rest ("critical" images) are compared with the
  Jaccard coefficient: "if a web page in L1 contains image(s) then the web page with its
  translation in L2 will contain more or less the same images";
* "common" images are those above a threshold read off a Gaussian kernel density estimate of the
  image frequencies, "the minimum just after" the density's first lobe, with the bandwidth of
  Bowman and Azzalini (1997); images in "more than 10% of the total HTML files" are discarded too;
* pages whose depths differ by more than 1 are not compared, and pairs must have close paragraph
  counts and close clean-text lengths in tokens (``ratio``).

The KDE (:func:`kde_threshold`):

* the sample is one value per distinct image, its frequency ("M is the amount of images"): the
  number of pages it occurs on, counted within one language (:class:`ImageFrequencies` says why);
* bandwidth: Bowman and Azzalini's normal reference rule ``h = sigma * (4 / (3 n)) ** (1/5)``, with
  their robust ``sigma = MAD / 0.6745`` (MATLAB's ``ksdensity`` default, which cites the same
  book).  Image frequencies are very skewed (most images are on one page or on the few pages of
  one article's translations), so the MAD is often 0; the sample standard deviation is used then;
* the density is evaluated on a grid from the smallest to the largest frequency with a step of
  ``h / 8``; from the first grid point the density is followed up to its first local maximum (the
  first lobe; often at the first point already) and then down while it strictly decreases; the
  point where it stops decreasing is the threshold, and images with a higher frequency are
  common.  A density that decreases to the last grid point has no minimum after its first lobe:
  no KDE cut (the 10% rule still applies).  Fewer than three distinct frequencies give no cut
  either: two values make at most two lobes, nothing to tell apart reliably.  Frequencies are
  integers: when the bandwidth is well under 1 (most images at frequency 1, few elsewhere) the
  first lobe is the spike at the lowest frequency alone, and the cut falls just after it (1.57 on
  the W3C i18n site: an image on two pages of one language is common there).

Nothing is cached between sites; :class:`ImageFrequencies` is one site's state.
"""

from __future__ import annotations

import functools
import math
from collections.abc import Iterable
from typing import Any
from urllib.parse import unquote, urljoin, urlsplit

import lxml.etree
import lxml.html
import numpy as np

# Section 3.9: "we discard images that exist in more than 10% of the total HTML files".
MAX_PAGE_SHARE = 0.1
# Grid step of the density, as a fraction of the bandwidth: fine enough that a minimum between
# two lobes a few bandwidths apart is not stepped over.
_GRID_PER_BANDWIDTH = 8
# A site with thousands of distinct frequencies does not need a finer curve than this.
_MAX_GRID = 8192
# Normal consistency constant of the median absolute deviation (Bowman and Azzalini, 1997).
_MAD_TO_SIGMA = 0.6745

# Attributes holding one image URL / a srcset list.  data-src / data-srcset are the de facto
# lazy-loading convention: the real image is there and src holds a placeholder (which, being on
# every page, is then a common image).
_SRC_ATTRS = ("src", "data-src")
_SRCSET_ATTRS = ("srcset", "data-srcset")


def _srcset_urls(value: str) -> list[str]:
    """The URLs of a ``srcset`` value, by the HTML standard's parsing rules (simplified).

    A candidate is a run of non-space characters (trailing commas stripped) and optional
    descriptors up to the next comma outside parentheses; a URL may contain commas
    ("w_100,h_80/a.jpg"), so splitting on commas would cut it.
    """
    urls: list[str] = []
    pos, n = 0, len(value)
    while pos < n:
        while pos < n and (value[pos].isspace() or value[pos] == ","):
            pos += 1
        start = pos
        while pos < n and not value[pos].isspace():
            pos += 1
        url = value[start:pos]
        if url.endswith(","):
            url = url.rstrip(",")
        else:
            depth = 0
            while pos < n:
                c = value[pos]
                pos += 1
                if c == "(":
                    depth += 1
                elif c == ")":
                    depth = max(0, depth - 1)
                elif c == "," and depth == 0:
                    break
        if url:
            urls.append(url)
    return urls


def image_file_name(url: str, base_url: str = "") -> str | None:
    """Last path segment of the resolved URL, percent-decoded, lower-cased; None if there is none.

    Query and fragment are dropped (``logo.png?v=3`` is ``logo.png``); ``data:`` URIs have no
    file name.
    """
    url = url.strip()
    if not url or url[:5].lower() == "data:":
        return None
    try:
        path = urlsplit(urljoin(base_url, url) if base_url else url).path
    except ValueError:  # an invalid IPv6 host and the like
        return None
    name = unquote(path.rsplit("/", 1)[-1]).strip().lower()
    return name or None


def _tree(html: Any) -> Any:
    if isinstance(html, (str, bytes)):
        if not html.strip():
            return None
        try:
            return lxml.html.document_fromstring(html)
        except ValueError:
            # A str with an XML encoding declaration (XHTML pages): lxml wants bytes for it.
            if isinstance(html, bytes):
                return None
            parser = lxml.html.HTMLParser(encoding="utf-8")
            try:
                return lxml.html.document_fromstring(html.encode("utf-8", "replace"), parser=parser)
            except (ValueError, lxml.etree.ParserError):
                return None
        except lxml.etree.ParserError:
            return None
    return html


def image_names(html: Any, base_url: str = "") -> list[str]:
    """File names of the page's images, in document order, each once.

    ``html`` is the page source or an already parsed lxml tree or element.  Read: ``<img>`` (src,
    srcset and their lazy-loading ``data-`` forms), ``<source srcset>`` inside ``<picture>``, and
    ``<input type="image" src>``.  Relative URLs resolve against ``<base href>`` when the page
    has one, otherwise against ``base_url``.
    """
    root = _tree(html)
    if root is None:
        return []
    if hasattr(root, "getroot"):
        root = root.getroot()
    base = base_url
    for el in root.iter("base"):
        href = el.get("href")
        if href:
            base = urljoin(base_url, href.strip())
            break
    names: dict[str, None] = {}
    for el in root.iter("img", "source", "input"):
        tag = el.tag
        if tag == "input" and (el.get("type") or "").strip().lower() != "image":
            continue
        if tag == "source":
            parent = el.getparent()
            if parent is None or parent.tag != "picture":
                continue  # <video>/<audio> sources are not images
        urls: list[str] = []
        if tag != "source":
            urls += [v for a in _SRC_ATTRS if (v := el.get(a))]
        if tag != "input":
            for a in _SRCSET_ATTRS:
                if v := el.get(a):
                    urls += _srcset_urls(v)
        for u in urls:
            name = image_file_name(u, base)
            if name:
                names[name] = None
    return list(names)


def normal_reference_bandwidth(sample: np.ndarray) -> float:
    """Bowman and Azzalini's normal optimal bandwidth ``sigma * (4 / (3 n)) ** 0.2``; 0 if degenerate.

    ``sigma`` is the robust MAD / 0.6745, or the sample standard deviation when the MAD is 0
    (more than half of the values equal).
    """
    x = np.asarray(sample, dtype=np.float64)
    n = x.size
    if n < 2:
        return 0.0
    sigma = float(np.median(np.abs(x - np.median(x)))) / _MAD_TO_SIGMA
    if sigma <= 0:
        sigma = float(np.std(x, ddof=1))
    if sigma <= 0:
        return 0.0
    return sigma * (4.0 / (3.0 * n)) ** 0.2


def gaussian_kde(sample: np.ndarray, grid: np.ndarray, bandwidth: float) -> np.ndarray:
    """``p(x) = 1/(M h) * sum_t K((x - x_t) / h)`` with the normal kernel, at each grid point.

    Equal sample values are summed once with their multiplicity, so the cost is grid x distinct
    values (image frequencies take few distinct values).
    """
    x = np.asarray(sample, dtype=np.float64)
    values, counts = np.unique(x, return_counts=True)
    z = (np.asarray(grid, dtype=np.float64)[:, None] - values[None, :]) / bandwidth
    kernel = np.exp(-0.5 * z * z) / math.sqrt(2.0 * math.pi)
    return (kernel @ counts.astype(np.float64)) / (x.size * bandwidth)


def kde_threshold(frequencies: Iterable[int]) -> float | None:
    """The density minimum just after its first lobe (module docstring), or None for no cut."""
    x = np.fromiter(frequencies, dtype=np.float64)
    if np.unique(x).size < 3:
        return None
    h = normal_reference_bandwidth(x)
    if h <= 0:
        return None
    lo, hi = float(x.min()), float(x.max())
    points = min(_MAX_GRID, int(math.ceil((hi - lo) * _GRID_PER_BANDWIDTH / h)) + 1)
    grid = np.linspace(lo, hi, max(points, 3))
    d = gaussian_kde(x, grid, h)
    i, last = 0, d.size - 1
    while i < last and d[i + 1] >= d[i]:  # up the first lobe (flat counts as up)
        i += 1
    while i < last and d[i + 1] < d[i]:  # down its far side
        i += 1
    if i >= last:
        return None
    return float(grid[i])


class ImageFrequencies:
    """One site's image counts: on how many pages each image file name occurs.

    ``add`` one page's names as it arrives (with its language); ``common`` tells which of a
    page's images to ignore.

    The paper's frequency is the number of pages an image is on, in a bilingual crawl, where a
    translated pair puts a critical image on two pages.  On a site translated into many languages
    an article's figure is on every translation: 13 pages for a W3C article in 13 languages,
    beyond the first lobe of the raw counts, so the KDE cut removed most critical images.  The
    frequency used for the KDE is therefore the largest number of pages *of one language* that
    use the image: a figure repeated in each translation scores 1, a template icon on every
    English page scores the English page count.  With no language given (or one) it is the
    paper's page count.  On the W3C i18n site (``benchmarks/ilsp_evidence_eval.py``; image
    Jaccard alone, best page per language one-to-one): paper's frequency, cut at 5.1 pages, AUC
    0.835, P 0.966 R 0.037; per-language frequency, cut at 1.57, AUC 0.962, P 1.000 R 0.165; no
    image removed, AUC 0.975, P 0.912 R 0.187.  The 10% rule stays on the share of all pages, as in the paper: a
    per-language share would make every image of a language with few pages common.

    The KDE threshold is recomputed only after new pages were added.  Early in a crawl the page
    count is small and the 10% rule strict (an image on 3 of 20 pages is common): the answer is
    the one for the pages seen so far, and comparisons made later see the settled counts.
    """

    def __init__(self, max_share: float = MAX_PAGE_SHARE) -> None:
        self.max_share = max_share
        self.pages = 0
        self._pages_with: dict[str, int] = {}  # name -> pages
        self._lang_pages: dict[tuple[str, str], int] = {}  # (name, lang) -> pages
        self._frequency: dict[str, int] = {}  # name -> max over languages of pages
        self._threshold: float | None = None
        self._stale = False

    def add(self, names: Iterable[str], lang: str | None = None) -> None:
        """Count one page (each distinct name once) of language ``lang``."""
        self.pages += 1
        key = (lang or "").strip().lower().replace("_", "-")
        pages_with, lang_pages, frequency = self._pages_with, self._lang_pages, self._frequency
        for name in set(names):
            pages_with[name] = pages_with.get(name, 0) + 1
            n = lang_pages.get((name, key), 0) + 1
            lang_pages[(name, key)] = n
            if n > frequency.get(name, 0):
                frequency[name] = n
        self._stale = True

    def count(self, name: str) -> int:
        """Pages (all languages) that use the image."""
        return self._pages_with.get(name, 0)

    def frequency(self, name: str) -> int:
        """The KDE's frequency: the most pages of one language that use the image."""
        return self._frequency.get(name, 0)

    def __len__(self) -> int:
        return len(self._pages_with)

    @property
    def threshold(self) -> float | None:
        """The KDE threshold on the current frequencies (None: no KDE cut)."""
        if self._stale:
            self._threshold = kde_threshold(self._frequency.values())
            self._stale = False
        return self._threshold

    def is_common(self, name: str) -> bool:
        if self._pages_with.get(name, 0) > self.max_share * self.pages:
            return True
        t = self.threshold
        return t is not None and self._frequency.get(name, 0) > t

    def common(self, names: Iterable[str]) -> set[str]:
        """The names among ``names`` to ignore: on > ``max_share`` of the pages, or above the KDE cut."""
        return {name for name in names if self.is_common(name)}

    def critical(self, names: Iterable[str]) -> set[str]:
        """The names among ``names`` that are kept as evidence (the complement of ``common``)."""
        return {name for name in names if not self.is_common(name)}


def image_jaccard(a: set[str] | frozenset[str], b: set[str] | frozenset[str]) -> float | None:
    """``|a & b| / |a | b|``; None when both are empty (no images: no evidence either way)."""
    if not a and not b:
        return None
    return len(a & b) / len(a | b)


@functools.lru_cache(maxsize=1 << 16)  # the decision asks for every candidate's two pages
def depth(url: str) -> int:
    """Path segments of the URL, the page included: ``http://domain.org/d1/d2/d3/page.html`` is 4.

    A URL ending in ``/`` names a directory's index page and counts it (``/d1/`` is 2, like
    ``/d1/index.html``; the root ``/`` is 1); empty segments (``//``), query and fragment do not
    count.
    """
    path = urlsplit(url).path
    segments = [s for s in path.split("/") if s]
    if not segments or path.endswith("/"):
        return len(segments) + 1
    return len(segments)


def depth_ok(a: str, b: str, max_diff: int = 1) -> bool:
    """Section 3.9: pages whose depths differ by more than ``max_diff`` are not compared."""
    return abs(depth(a) - depth(b)) <= max_diff


def ratio(a: float, b: float) -> float:
    """``min / max`` of two non-negative sizes: 1 when equal (both 0 included), 0 when one is 0."""
    hi = max(a, b)
    if hi <= 0:
        return 1.0
    return min(a, b) / hi
