"""A lower bound measured here and not used by the crawl: the edit distance of the text subsequences.

Restricting an optimal edit script of two tag sequences to their ``<text_n>`` tokens gives an
alignment of the two text-length sequences in which every text not matched to a text costs a full
10 (it was deleted or replaced by a tag) and matched texts cost what they cost in the script, so
the weighted distance of the text subsequences alone (same costs) is a lower bound of the full
distance.  It is cheaper than the full banded DP (texts are about a quarter of the tokens), and on
a one-template site, where the tag histogram bound is zero for most pairs, it could reject
unrelated pages before the full DP.  This script measures whether it does, on the same
set-up as ``bench_page_vs_index.py`` (5,000 earlier English pages of the generated one-template
site, new French pages, the size filter's survivors, the default threshold):

* how many size-passing pairs the bound rejects, against how many are within the threshold;
* the time of the bound against the time of the full batched distance, per new page;
* as a ranking for a best-first search that stops once ``keep`` candidates are found: how many
  exact distances such a search would still have to compute.

    python benchmarks/bench_text_bound.py [--earlier 5000] [--new 100]
"""

from __future__ import annotations

import argparse
import sys
import tempfile
import time
from pathlib import Path

import numba
import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from bench_page_vs_index import features  # noqa: E402

from bitext_spider.config import BitextConfig  # noqa: E402
from bitext_spider.demo.site import generate_site, iter_page_files  # noqa: E402
from matchers.site.page_index import SiteIndex  # noqa: E402
from matchers.structure.edit_distance import _banded_rev, lower_bound  # noqa: E402
from matchers.structure.structure_threshold import scaled_limits, similarity  # noqa: E402
from matchers.structure.tag_store import TagSequenceStore  # noqa: E402
from pipelines.size_filter import size_filter  # noqa: E402


@numba.njit(nogil=True)
def text_bounds(query, q_hist, flat, offsets, hists, tflat, toffsets, rows, limits):  # pragma: no cover
    """The histogram bound, then the banded distance of the text subsequences, per row."""
    tq = query[query > 0]
    tqr = tq[::-1].copy()
    out = np.empty(rows.shape[0], np.int32)
    for k in range(rows.shape[0]):
        r = rows[k]
        lim = limits[k]
        s = flat[offsets[r] : offsets[r + 1]]
        if lower_bound(s.shape[0], query.shape[0], hists[r], q_hist) > lim:
            out[k] = lim + 1
        else:
            out[k] = _banded_rev(tflat[toffsets[r] : toffsets[r + 1]], tqr, lim)
    return out


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--earlier", type=int, default=5000)
    ap.add_argument("--new", type=int, default=100)
    a = ap.parse_args()
    cfg = BitextConfig()
    with tempfile.TemporaryDirectory() as tmp:
        info = generate_site(Path(tmp), base_url="http://127.0.0.1:1", n_docs=a.earlier, langs=("en", "fr"),
                             coverage=1.0, extras=False, seed=11)
        en, fr = [], []
        for url, lang, path in iter_page_files(info):
            (en if lang == "en" else fr).append((url, lang, path))
        en = [features(*p) for p in en[: a.earlier]]
        fr = [features(*p) for p in fr[: a.new]]
    numba.set_num_threads(1)
    index = SiteIndex("bench")
    texts = TagSequenceStore()
    for page in en:
        index.register(page)
        texts.add(page.tokens[page.tokens > 0])
    store = index.index("en").tags
    flat, offsets = store.arrays()
    tflat, toffsets = texts.arrays()
    hists = store.histograms()
    pairs = within = passed = needed = 0
    t_full = t_text = 0.0
    for i, page in enumerate(fr):
        cands, _ = size_filter(index, page, cfg)
        rows = next((c.rows for c in cands if c.lang == "en"), np.zeros(0, np.int64))
        if not len(rows):
            continue
        q = page.tokens
        lens = store.lengths[rows]
        lim = scaled_limits(len(q), lens, cfg.structure_max_ratio).astype(np.int32)
        t0 = time.perf_counter()
        d = store.distances(q, rows, lim)
        t1 = time.perf_counter()
        qc = store.encode(q)  # the stores' codes
        tb = text_bounds(qc, store.query_histogram(qc, encoded=True), flat, offsets, hists, tflat, toffsets, rows, lim)
        t2 = time.perf_counter()
        if i == 0:
            continue  # JIT warm-up
        ok = d <= lim
        assert np.all(tb[ok] <= d[ok]) and np.all(ok <= (tb <= lim)), "not a lower bound"
        t_full += t1 - t0
        t_text += t2 - t1
        pairs += len(rows)
        within += int(ok.sum())
        passed += int((tb <= lim).sum())
        # Best-first by the bound's similarity ceiling: every pair whose ceiling reaches the
        # keep-th best exact similarity must still get its exact distance.
        sims = similarity(np.where(ok, d, 0), len(q), lens)
        kth = np.sort(sims[ok])[-cfg.max_candidates_per_lang] if ok.sum() >= cfg.max_candidates_per_lang else -1.0
        ceiling = similarity(np.minimum(tb, lim + 1), len(q), lens)
        needed += int((ceiling >= kth).sum())
    n = max(1, len(fr) - 1)
    print(f"{len(en)} earlier pages, {n} new pages timed, threshold ratio {cfg.structure_max_ratio}")
    print("| size-passing pairs | within the threshold | pass the text bound | exact distances a best-first "
          "search would still need | full distances, ms/page | text bound, ms/page |")
    print("|---|---|---|---|---|---|")
    print(f"| {pairs} | {within} | {passed} ({passed / max(pairs, 1):.0%}) | {needed} ({needed / max(pairs, 1):.0%}) "
          f"| {t_full * 1e3 / n:.2f} | {t_text * 1e3 / n:.2f} |")


if __name__ == "__main__":
    main()
