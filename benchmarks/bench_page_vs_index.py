"""(b) One new page against 5,000 earlier pages: the per-page cost of the matching stages.

Builds a site index of N earlier pages of one language from a generated two-language site (one
template for every page, the hard case for the size filter), then times, for each of M new pages
of the other language, exactly what the pipelines do: registration + size filter
(pipelines.size_filter.size_filter) and the structure filter (pipelines.structure_filter).

    python benchmarks/bench_page_vs_index.py [--earlier 5000] [--new 200] [--json]
"""

from __future__ import annotations

import argparse
import json
import statistics
import sys
import tempfile
import time
from pathlib import Path

import numba

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from bitext_spider.config import BitextConfig  # noqa: E402
from bitext_spider.demo.site import generate_site, iter_page_files  # noqa: E402
from matchers.page.decoding import decode_html  # noqa: E402
from matchers.page.linearize import linearize  # noqa: E402
from matchers.site.page_index import PageFeatures, SiteIndex  # noqa: E402
from matchers.structure.structure_filter import structure_filter  # noqa: E402
from pipelines.size_filter import size_filter  # noqa: E402


def features(url: str, lang: str, path: Path) -> PageFeatures:
    body = path.read_bytes()
    text = decode_html(body).text
    lin = linearize(text)
    return PageFeatures(url, lang, len(body), len(text), lin.n_tags, lin.n_paragraphs, lin.tokens)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--earlier", type=int, default=5000)
    ap.add_argument("--new", type=int, default=200)
    ap.add_argument("--threads", type=int, default=1, help="numba threads (the crawl uses 1)")
    ap.add_argument("--json", action="store_true")
    a = ap.parse_args()
    cfg = BitextConfig()
    with tempfile.TemporaryDirectory() as tmp:
        t0 = time.perf_counter()
        info = generate_site(Path(tmp), base_url="http://127.0.0.1:1", n_docs=a.earlier, langs=("en", "fr"),
                             coverage=1.0, extras=False, seed=11)
        en, fr = [], []
        for url, lang, path in iter_page_files(info):
            (en if lang == "en" else fr).append((url, lang, path))
        en = [features(*p) for p in en[: a.earlier]]
        fr = [features(*p) for p in fr[: a.new]]
        prep = time.perf_counter() - t0
    index = SiteIndex("bench")
    for page in en:
        index.register(page)
    # As in a crawl: the kernels run on one numba thread beside the reactor's core.
    numba.set_num_threads(a.threads)
    # Warm the JIT on one page outside the timing.
    warm = SiteIndex("warm")
    warm.register(en[0])
    cands, _ = size_filter(warm, fr[0], cfg)
    structure_filter(warm, fr[0].tokens, cands, cfg.structure_max_ratio, cfg.structure_min_correlation)

    t_size, t_struct, n_size, n_struct = [], [], [], []
    for page in fr:
        t0 = time.perf_counter()
        cands, compared = size_filter(index, page, cfg)
        t1 = time.perf_counter()
        n_size.append(sum(len(c) for c in cands))
        structure_filter(index, page.tokens, cands, cfg.structure_max_ratio, cfg.structure_min_correlation,
                         cfg.max_candidates_per_lang)
        t2 = time.perf_counter()
        t_size.append((t1 - t0) * 1e3)
        t_struct.append((t2 - t1) * 1e3)
        n_struct.append(sum(len(c) for c in cands))
    total = [s + t for s, t in zip(t_size, t_struct, strict=True)]

    def q(v: list[float], p: float) -> float:
        return sorted(v)[min(len(v) - 1, int(p * len(v)))]

    res = {
        "earlier_pages": len(en),
        "new_pages": len(fr),
        "mean_tokens": statistics.mean(len(p.tokens) for p in en),
        "size_ms_median": statistics.median(t_size),
        "structure_ms_median": statistics.median(t_struct),
        "total_ms_median": statistics.median(total),
        "total_ms_p90": q(total, 0.9),
        "total_ms_max": max(total),
        "structure_comparisons_median": statistics.median(n_size),
        "candidates_left_median": statistics.median(n_struct),
        "prep_seconds": prep,
    }
    if a.json:
        print(json.dumps(res, indent=1))
        return
    print(f"numba threads: {a.threads}; one new page against {res['earlier_pages']} earlier pages (mean {res['mean_tokens']:.0f} tokens), "
          f"{res['new_pages']} new pages timed")
    print("| stage | median ms |")
    print("|---|---|")
    print(f"| register + size filter | {res['size_ms_median']:.2f} |")
    print(f"| structure filter (bounds + banded DP + correlation) | {res['structure_ms_median']:.2f} |")
    print(f"| total | {res['total_ms_median']:.2f} (p90 {res['total_ms_p90']:.2f}, max {res['total_ms_max']:.2f}) |")
    print(f"pages left after the size filter (median): {res['structure_comparisons_median']:.0f}; "
          f"after the structure filter: {res['candidates_left_median']:.0f}")


if __name__ == "__main__":
    main()
