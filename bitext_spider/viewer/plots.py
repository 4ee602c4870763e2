"""The viewer's plots of a crawl database, drawn with matplotlib as inline SVG.

:func:`build_plots` returns one :class:`Plot` per figure: the score distributions of accepted and
rejected candidates, the unsupervised structure threshold (Jangeldin & Assylbekov, Algorithm 1),
the image-frequency KDE and its cut (ILSP-FC 3.9), the translation model's learning curve and the
pairs found as pages arrive.  The numbers come from bitext_spider.viewer.plot_data; a plot with
nothing to show says so inside its figure.

Figures are ``matplotlib.figure.Figure`` objects on the SVG backend (no pyplot global state);
text stays text (``svg.fonttype`` none) and the element ids of each SVG are prefixed with its
plot's key, so several plots inlined in one HTML page do not share ids.
"""

from __future__ import annotations

import io
import math
import re
import threading
from dataclasses import dataclass

import matplotlib
import numpy as np
from matplotlib.axes import Axes
from matplotlib.figure import Figure
from matplotlib.patches import Patch
from matplotlib.ticker import FuncFormatter, LogLocator, MaxNLocator, NullLocator
from sqlalchemy.orm import Session

from bitext_spider.config import BitextConfig
from bitext_spider.viewer.plot_data import (
    ImageSample,
    LearningCurve,
    PairGrowth,
    ScoreSample,
    StructureSample,
    image_samples,
    learning_curves,
    load_candidates,
    load_pages,
    pair_growth,
    score_samples,
    site_keys,
    structure_samples,
)


@dataclass(frozen=True)
class Plot:
    key: str  # stable id, e.g. "score-distributions"
    title: str
    caption: str  # what is plotted and how it was computed
    svg: str  # a complete inline <svg>...</svg> element, no XML declaration, no external refs


# 640 x 360 px (matplotlib writes SVG sizes in points, 72 an inch; browsers draw 96 px an inch).
WIDTH, HEIGHT = 6.67, 3.75
_RC = {
    "svg.fonttype": "none",
    "font.sans-serif": ["DejaVu Sans", "Arial", "Helvetica", "sans-serif"],
    "font.size": 8,
    "axes.titlesize": 8,
    "axes.labelsize": 8,
    "xtick.labelsize": 7,
    "ytick.labelsize": 7,
    "legend.fontsize": 7,
    "figure.titlesize": 10,
    "axes.spines.top": False,
    "axes.spines.right": False,
}
# Okabe & Ito's colour-blind safe palette.
ACCEPTED, REJECTED, GREY, BLACK = "#0072B2", "#D55E00", "#999999", "#000000"
CURVES = ("#0072B2", "#D55E00", "#009E73", "#CC79A7", "#E69F00")
# rc_context changes matplotlib's global parameters: two requests drawing at once must not
# restore each other's.
_LOCK = threading.Lock()
_REF = re.compile(r'(\bid="|url\(#|href="#)([^")]+)')


def build_plots(session: Session, site_id: int | None = None, *, config: BitextConfig | None = None) -> list[Plot]:
    """Every plot of one site (``site_id``) or of all sites of the database.

    ``config`` gives the settings the crawl ran with where a plot needs them (the content
    filter's sentence threshold, Algorithm 1's step and minimum sample); the defaults otherwise.
    """
    cfg = config or BitextConfig()
    keys = site_keys(session, site_id)
    candidates = load_candidates(session, site_id)
    pages = load_pages(session, site_id)
    structure = structure_samples(session, candidates, keys, cfg.threshold_min_pairs, cfg.threshold_step,
                                  cfg.threshold_delta)
    curves = learning_curves(session, site_id, pages, candidates, cfg.content_sentence_threshold)
    growth = pair_growth(session, site_id, pages, candidates)
    with _LOCK, matplotlib.rc_context(_RC):
        return [
            _score_plot(score_samples(candidates)),
            _structure_plot(structure, cfg),
            _image_plot(image_samples(pages, keys)),
            _learning_plot(curves, cfg),
            _growth_plot(growth),
        ]


# -- rendering helpers ----------------------------------------------------------------------------
def to_svg(fig: Figure, key: str) -> str:
    """The figure as an ``<svg>`` element: no prolog, no metadata, ids prefixed with ``key``."""
    buf = io.StringIO()
    with matplotlib.rc_context({"svg.fonttype": "none", "svg.hashsalt": key}):
        fig.savefig(buf, format="svg", metadata={"Creator": None, "Date": None, "Format": None, "Type": None})
    text = buf.getvalue()
    svg = _REF.sub(lambda m: f"{m.group(1)}{key}-{m.group(2)}", text[text.index("<svg"):])
    # matplotlib's stylesheet selects every element ("*"): in an HTML page it would reach the
    # page's other SVGs, so it is scoped to this one.
    svg = svg.replace("<svg ", f'<svg id="plot-{key}" class="bitext-plot" ', 1)
    return svg.replace("*{stroke-linejoin", f"#plot-{key} *{{stroke-linejoin", 1).strip()


def _figure(height: float = HEIGHT, width: float = WIDTH) -> Figure:
    return Figure(figsize=(width, height))


def _axes(fig: Figure, rows: int = 1, cols: int = 1, top: float = 0.45, bottom: float = 0.5,
          left: float = 0.6, right: float = 0.15, hspace: float = 0.6, wspace: float = 0.3) -> list[Axes]:
    """Axes in a grid with fixed margins in inches (matplotlib's layout engines measure every
    tick label twice, which costs more than all the rest of a plot)."""
    w, h = fig.get_size_inches()
    axes = fig.subplots(rows, cols, squeeze=False, gridspec_kw=dict(
        left=left / w, right=1 - right / w, top=1 - top / h, bottom=bottom / h, hspace=hspace, wspace=wspace))
    return axes.ravel().tolist()


def _log_counts(ax: Axes, bottom: float, top: float) -> None:
    """A logarithmic count axis up to ``top`` (at least 10) with few, plain tick labels (1, 10, 100)."""
    ax.set_yscale("log")
    ax.set_ylim(bottom, max(10.0, top))
    ax.yaxis.set_major_locator(LogLocator(base=10, numticks=5))
    ax.yaxis.set_major_formatter(FuncFormatter(lambda v, _pos: f"{v:,.0f}" if v >= 1 else ""))
    ax.yaxis.set_minor_locator(NullLocator())


def _empty(key: str, title: str, caption: str, message: str) -> Plot:
    fig = _figure(HEIGHT * 0.5)
    fig.suptitle(title)
    fig.text(0.5, 0.45, message, ha="center", va="center", color=GREY, fontsize=9, gid="no-data")
    return Plot(key, title, caption, to_svg(fig, key))


def _fmt(x: float) -> str:
    return f"{x:.3g}".replace("-", "\u2212")


def _grid(n: int, cols: int, width: float, row_height: float, top: float = 0.55) -> tuple[Figure, list[Axes]]:
    rows = math.ceil(n / cols)
    fig = _figure(0.4 + top + row_height * rows, width)
    axes = _axes(fig, rows, cols, top=top, hspace=0.75 if rows > 1 else 0.2)
    for ax in axes[n:]:
        ax.set_visible(False)
    return fig, axes[:n]


def _bars(ax: Axes, values: np.ndarray, edges: np.ndarray, color: str, label: str, gid: str,
          alpha: float = 0.6) -> np.ndarray:
    """A histogram drawn bin by bin, only the bins with values (each bar has the id
    ``<gid>-<bin>``); returns the counts."""
    counts, _ = np.histogram(values, edges)
    bins = np.flatnonzero(counts)
    if bins.size:
        bars = ax.bar(edges[bins], counts[bins], width=np.diff(edges)[bins], align="edge", color=color,
                      alpha=alpha, label=label, linewidth=0)
        for i, patch in zip(bins.tolist(), bars.patches, strict=True):
            patch.set_gid(f"{gid}-{i}")
    return counts


# -- 1. score distributions -----------------------------------------------------------------------
SCORES_KEY, SCORES_TITLE = "score-distributions", "Evidence of accepted and rejected candidates"
SCORES_CAPTION = (
    "One panel per piece of evidence stored in candidates.scores, a histogram (20 bins, "
    "logarithmic counts) of its values on the candidates the site decision accepted and on "
    "those it rejected (candidates.accepted); a candidate without that evidence is not counted "
    "in its panel. Structure is the similarity 1 \u2212 edit distance / longer tag sequence.")


def _score_plot(samples: list[ScoreSample]) -> Plot:
    if not samples:
        return _empty(SCORES_KEY, SCORES_TITLE, SCORES_CAPTION, "No candidate pairs with scores stored.")
    cols = 3 if len(samples) > 4 else max(1, min(2, len(samples)))
    fig, axes = _grid(len(samples), cols, WIDTH + 0.8, 1.55)
    fig.suptitle(SCORES_TITLE)
    for ax, s in zip(axes, samples, strict=True):
        both = np.concatenate((s.accepted, s.rejected))
        lo, hi = float(both.min()), float(both.max())
        if lo >= 0.0 and hi <= 1.0:
            lo, hi = 0.0, 1.0
        elif hi <= lo:
            lo, hi = lo - 0.5, hi + 0.5
        edges = np.linspace(lo, hi, 21)
        top = max(_bars(ax, s.accepted, edges, ACCEPTED, "accepted", f"{s.name}-accepted").max(),
                  _bars(ax, s.rejected, edges, REJECTED, "rejected", f"{s.name}-rejected", alpha=0.5).max())
        _log_counts(ax, 0.7, top * 1.5)
        ax.set_xlim(lo, hi)
        ax.xaxis.set_major_locator(MaxNLocator(4))
        ax.set_title(f"{s.label} ({s.accepted.size} / {s.rejected.size})")
    axes[0].set_ylabel("candidates")
    handles = [Patch(color=ACCEPTED, alpha=0.6, label="accepted"),
               Patch(color=REJECTED, alpha=0.5, label="rejected")]
    fig.legend(handles=handles, loc="upper left", ncols=2, frameon=False)
    return Plot(SCORES_KEY, SCORES_TITLE, SCORES_CAPTION, to_svg(fig, SCORES_KEY))


# -- 2. the unsupervised structure threshold ------------------------------------------------------
STRUCTURE_KEY, STRUCTURE_TITLE = "structure-threshold", "Unsupervised structure threshold (L_d)"


def _structure_caption(cfg: BitextConfig) -> str:
    return (
        "Jangeldin & Assylbekov's Algorithm 1 per language pair (the pairs with the most candidates): "
        "histogram of L_d = (L1 \u2212 L2) / (L1 + L2) over the candidates with P_d < 0.2 (S), those "
        "with P_d = 0 (D) darker, \u03bc = mean L_d over D and the threshold on |L_d \u2212 \u03bc| "
        "as dashed lines. Where the crawl estimated the threshold at close the stored p_d, l_d and "
        "l_d_threshold are shown; elsewhere P_d and L_d are recomputed from the stored tag sequences "
        f"with the matcher's functions (the crawl then kept its fixed thresholds: it needs "
        f"{cfg.threshold_min_pairs} pairs in S, BITEXT_THRESHOLD_MIN_PAIRS).")


def _structure_plot(samples: list[StructureSample], cfg: BitextConfig) -> Plot:
    caption = _structure_caption(cfg)
    if not samples:
        return _empty(STRUCTURE_KEY, STRUCTURE_TITLE, caption,
                      "No candidate pairs of two languages with stored tag sequences.")
    cols = 1 if len(samples) == 1 else 2
    fig, axes = _grid(len(samples), cols, WIDTH, 1.75 if len(samples) > 2 else 3.1, top=0.7)
    fig.suptitle(STRUCTURE_TITLE)
    sites = {s.site for s in samples}
    for n, (ax, s) in enumerate(zip(axes, samples, strict=True)):
        _structure_panel(ax, s, cfg, f"pair{n}", show_site=len(sites) > 1)
    axes[0].legend(loc="upper left", frameon=False, fontsize=6.5)
    return Plot(STRUCTURE_KEY, STRUCTURE_TITLE, caption, to_svg(fig, STRUCTURE_KEY))


def _structure_panel(ax: Axes, s: StructureSample, cfg: BitextConfig, gid: str, show_site: bool) -> None:
    in_s, in_d = s.s, s.d
    title = f"{s.lang1}\u2013{s.lang2}" + (f" ({s.site})" if show_site else "")
    ax.set_title(f"{title}: |S| = {in_s.size}, |D| = {in_d.size}", fontsize=7.5)
    ax.set_xlabel(f"L_d ({s.lang1} first)")
    ax.set_ylabel("pairs")
    if in_s.size == 0:
        ax.text(0.5, 0.5, "no pair with P_d < 0.2", transform=ax.transAxes, ha="center", color=GREY)
        return
    lo, hi = float(in_s.min()), float(in_s.max())
    width = max(cfg.threshold_step, (hi - lo) / 60)
    edges = np.arange(math.floor(lo / width) * width, hi + 1.5 * width, width)
    top = _bars(ax, in_s, edges, GREY, "S: P_d < 0.2", f"{gid}-s", alpha=0.7).max()
    _bars(ax, in_d, edges, ACCEPTED, "D: P_d = 0", f"{gid}-d", alpha=0.8)
    ax.set_ylim(0, top * 1.4)
    ax.xaxis.set_major_locator(MaxNLocator(5))
    ax.yaxis.set_major_locator(MaxNLocator(4, integer=True))
    if s.result is None:
        ax.text(0.98, 0.95, "no pair with P_d = 0:\n\u03bc undefined", transform=ax.transAxes,
                ha="right", va="top", color=REJECTED)
        return
    mu = s.result.mu
    threshold = s.stored_threshold if s.stored_threshold is not None else s.result.threshold
    ax.axvline(mu, color=BLACK, linewidth=1, gid=f"{gid}-mu")
    for side in (-1, 1):
        ax.axvline(mu + side * threshold, color=REJECTED, linewidth=1, linestyle="--",
                   gid=f"{gid}-threshold-{'low' if side < 0 else 'high'}")
    if s.used:
        status = "the crawl's"
    elif not s.enough:
        status = f"not used: |S| < {cfg.threshold_min_pairs}"
    else:
        status = "not used by the crawl"
    ax.set_title(f"{title}: |S| = {in_s.size}, |D| = {in_d.size}\n\u03bc = {_fmt(mu)}, threshold "
                 f"\u00b1{_fmt(threshold)} ({status})", fontsize=7.5)


# -- 3. image frequencies -------------------------------------------------------------------------
IMAGES_KEY, IMAGES_TITLE = "image-frequencies", "Image frequencies and the common-image cut"
IMAGES_CAPTION = (
    "ILSP-FC 3.9 as the crawl computes it at close: for each distinct image file name of a site "
    "its frequency, the most pages of one language that use it (eligible pages with a language), as "
    "a histogram (logarithmic counts); the Gaussian KDE with Bowman & Azzalini's bandwidth h, scaled "
    "to image counts; and the cut after its first lobe: images above it, or on more than 10% of "
    "the pages, are common and left out of the image evidence.")


def _image_plot(samples: list[ImageSample]) -> Plot:
    if not samples:
        return _empty(IMAGES_KEY, IMAGES_TITLE, IMAGES_CAPTION, "No images on the eligible pages.")
    cols = 1 if len(samples) == 1 else 2
    fig, axes = _grid(len(samples), cols, WIDTH, 1.6 if len(samples) > 2 else 3.1)
    fig.suptitle(IMAGES_TITLE)
    for n, (ax, s) in enumerate(zip(axes, samples, strict=True)):
        _image_panel(ax, s, f"site{n}")
    axes[0].legend(loc="upper right", frameon=False)
    return Plot(IMAGES_KEY, IMAGES_TITLE, IMAGES_CAPTION, to_svg(fig, IMAGES_KEY))


def _image_panel(ax: Axes, s: ImageSample, gid: str) -> None:
    x = s.frequencies
    lo, hi = float(x.min()), float(x.max())
    # One bar per frequency (they are page counts) unless there are too many.
    edges = np.arange(lo - 0.5, hi + 1.0, 1.0) if hi - lo <= 120 else np.linspace(lo, hi, 61)
    _bars(ax, x, edges, GREY, "images", f"{gid}-bar", alpha=0.8)
    if s.bandwidth > 0:
        grid, density = s.density()
        expected = density * x.size * (edges[1] - edges[0])
        ax.plot(grid, expected, color=ACCEPTED, linewidth=1.2, label=f"KDE, h = {_fmt(s.bandwidth)}",
                gid=f"{gid}-kde")
    if s.threshold is not None:
        ax.axvline(s.threshold, color=REJECTED, linestyle="--", linewidth=1.2, gid=f"{gid}-cut",
                   label=f"KDE cut {_fmt(s.threshold)}")
    _log_counts(ax, 0.5, ax.get_ylim()[1] * 1.3)
    note = "no KDE cut" if s.threshold is None else f"common above {_fmt(s.threshold)}"
    note += f"\n{s.over_share} images on > 10% of the {s.pages} pages"
    ax.text(0.98, 0.6, note, transform=ax.transAxes, ha="right", va="top", gid=f"{gid}-label")
    ax.set_title(f"{s.site}: {x.size} images on {s.pages} pages")
    ax.set_xlabel("frequency: most pages of one language using the image")
    ax.set_ylabel("images")


# -- 4. learning curve ----------------------------------------------------------------------------
LEARNING_KEY, LEARNING_TITLE = "learning-curve", "Translation model: sentence pairs seen vs share aligned"


def _learning_caption(cfg: BitextConfig) -> str:
    return (
        "Per language pair (the five with the most), the final pairs' stored sentence pairs in crawl "
        "order (a page pair counts from its later page's fetch time): x is the running number of "
        "sentence pairs, the line the share of the last 250 whose translation probability is above "
        f"BITEXT_CONTENT_SENTENCE_THRESHOLD ({_fmt(cfg.content_sentence_threshold)}), each dot a page "
        "pair's stored content_share. The young model's judgements are not stored: pairs that arrived "
        "before the model had seen BITEXT_CONTENT_MATURE_SENTENCES were aligned again at close by the "
        "final model, so the curve shows the alignment the crawl kept, not a replay of training.")


def _learning_plot(curves: list[LearningCurve], cfg: BitextConfig) -> Plot:
    caption = _learning_caption(cfg)
    if not curves:
        return _empty(LEARNING_KEY, LEARNING_TITLE, caption,
                      "No aligned sentences stored (no final pairs, or no content filter).")
    fig = _figure()
    ax = _axes(fig)[0]
    fig.suptitle(LEARNING_TITLE)
    for n, (c, color) in enumerate(zip(curves, CURVES, strict=False)):
        ax.scatter(c.seen, c.pair_share, s=6, color=color, alpha=0.35, linewidths=0, gid=f"curve{n}-pairs")
        ax.plot(c.seen, c.rolling, color=color, linewidth=1.4, gid=f"curve{n}-line",
                label=f"{c.lang1}\u2013{c.lang2}: {c.total:,} sentence pairs, {c.aligned / max(c.total, 1):.0%} aligned")
    ax.axvline(cfg.content_mature_sentences, color=GREY, linestyle=":", linewidth=1, gid="mature")
    ax.text(cfg.content_mature_sentences, 0.02, f" model trained ({cfg.content_mature_sentences})",
            color=GREY, fontsize=7, va="bottom", transform=ax.get_xaxis_transform())
    lows = [float(np.nanquantile(np.concatenate((c.rolling, c.pair_share)), 0.02)) for c in curves]
    ax.set_ylim(max(0.0, math.floor(min(lows) * 10 - 0.5) / 10), 1.02)
    ax.set_xlim(left=0)
    ax.set_xlabel("sentence pairs of the language pair's page pairs, in crawl order")
    ax.set_ylabel("share aligned")
    ax.legend(loc="lower right", frameon=False)
    return Plot(LEARNING_KEY, LEARNING_TITLE, caption, to_svg(fig, LEARNING_KEY))


# -- 5. pairs found vs pages crawled --------------------------------------------------------------
GROWTH_KEY, GROWTH_TITLE = "pairs-vs-pages", "Pairs found as pages were crawled"
GROWTH_CAPTION = (
    "Pages in the order they were fetched (pages.fetched_at) against the final pairs, and the "
    "candidates the site decision accepted, whose later page had arrived by then. Pairs carry no "
    "time of their own, so a pair is counted from the arrival of its second page: the earliest it "
    "could be found (some are only found when the crawl closes).")


def _growth_plot(g: PairGrowth) -> Plot:
    if g.pages == 0:
        return _empty(GROWTH_KEY, GROWTH_TITLE, GROWTH_CAPTION, "No pages stored.")
    fig = _figure()
    ax = _axes(fig)[0]
    fig.suptitle(GROWTH_TITLE)
    x = np.arange(1, g.pages + 1)
    ax.step(x, g.accepted_at, where="post", color=GREY, linewidth=1.2, linestyle="--", gid="accepted",
            label=f"accepted candidates ({int(g.accepted_at[-1]):,})")
    ax.step(x, g.pairs_at, where="post", color=ACCEPTED, linewidth=1.6, gid="pairs",
            label=f"final pairs ({g.pairs:,})")
    ax.set_xlim(0, g.pages)
    ax.set_ylim(bottom=0)
    ax.set_xlabel("pages stored, in fetch order")
    ax.set_ylabel("pairs whose pages have both arrived")
    ax.legend(loc="upper left", frameon=False)
    ax.text(0.98, 0.04, f"{g.pairs:,} pairs after {g.pages:,} pages", transform=ax.transAxes, ha="right",
            gid="total")
    return Plot(GROWTH_KEY, GROWTH_TITLE, GROWTH_CAPTION, to_svg(fig, GROWTH_KEY))


PLOT_KEYS: tuple[str, ...] = (SCORES_KEY, STRUCTURE_KEY, IMAGES_KEY, LEARNING_KEY, GROWTH_KEY)
