"""Measure the ILSP-FC pair-detector evidence on a test site, each evidence alone.

    python benchmarks/ilsp_evidence_eval.py ../shared/data/w3c-i18n [--repeated] [--out DIR]

Papavassiliou et al., *ILSP-FC*, sections 3.8-3.9.  The site folder has ``hosts.tsv`` (folder ->
base URL), ``pages.tsv`` (url, lang) and ``gold.tsv`` (lang1, url1, lang2, url2).  Each page is
read from disk, its main content extracted with :func:`matchers.page.main_content.extract_paragraphs`
(boilerplate dropped; ``--repeated`` also drops text repeated across the site, as the crawl's
``RepeatedBlocks`` does), and for every pair of pages in different languages the script computes:

* ``img``: Jaccard of the critical image names (common ones removed: > 10% of pages or above the
  KDE threshold); pairs where neither page has a critical image have no value;
* ``img_paper``: the same with the paper's frequency (pages, all languages) for the KDE;
* ``img_all``: the same without removing common images (what the removal buys);
* ``fp_paper``: 1 - fingerprint distance ratio, lengths compared exactly (the paper's definition);
* ``fp_b<base>`` / ``fp_wb<base>``: the same with lengths in log buckets, plain or
  script-weighted characters;
* ``fp_wt<tol>``: a variant measured here only, a Levenshtein DP (numba, here only) where two lengths match when the
  larger is at most ``tol`` times the smaller (script-weighted characters), no bucket edges;
* ``para``: paragraph-count ratio; ``tok``: clean-text token-length ratio; ``fplen``: fingerprint
  length ratio (the SVM's first feature).

Reported: quantiles of each score on gold vs non-gold pairs, the ROC AUC (probability that a gold
pair scores above a non-gold one, ties counting half), and P/R/F1 when pairs above a threshold
are taken best score first, one partner per page and other language (the rule of
``../shared/bench/score.py``; ties broken by URL, never by the gold standard).  The best threshold's
predictions are written to ``--out`` and scored by ``score.py`` as a cross-check.  Finally the
near-duplicate groups of :class:`matchers.site.near_duplicates.NearDuplicateIndex` per language
(with ``--dedup`` the pages it drops are not counted in the image frequencies).
"""

from __future__ import annotations

import argparse
import csv
import subprocess
import sys
import time
from collections import Counter, defaultdict
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from urllib.parse import urlsplit

import numba
import numpy as np

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from matchers.page.decoding import decode_html  # noqa: E402
from matchers.page.lang_codes import primary_subtag  # noqa: E402
from matchers.page.main_content import Paragraph, RepeatedBlocks, extract_paragraphs  # noqa: E402
from matchers.page.word_tokens import word_tokens  # noqa: E402
from matchers.site.image_evidence import (  # noqa: E402
    ImageFrequencies,
    depth,
    depth_ok,
    image_jaccard,
    image_names,
    ratio,
)
from matchers.site.near_duplicates import NearDuplicateIndex, paragraph_hashes  # noqa: E402
from matchers.structure.fingerprint import fingerprint, fingerprint_distance_ratio  # noqa: E402

SCORE_PY = ROOT.parent / "shared" / "bench" / "score.py"
BASES = (1.25, 1.5, 2.0, 3.0)
TOLERANCES = (1.25, 1.5, 2.0)
QUANTILES = (0.05, 0.25, 0.5, 0.75, 0.95)
FILTER_THRESHOLDS = (0.3, 0.5, 0.6, 0.7, 0.8, 0.9)
THRESHOLDS = tuple(round(x, 2) for x in np.arange(0.0, 1.0001, 0.05))




@dataclass
class Page:
    url: str
    lang: str
    paragraphs: list[Paragraph]
    images: list[str]
    depth: int
    tokens: int
    fp: list[int]
    fp_weighted: list[int]


def load_site(
    data: Path,
) -> tuple[dict[str, str], dict[str, Path], set[frozenset[str]], list[tuple[str, ...]]]:
    hosts = {}
    with open(data / "hosts.tsv", encoding="utf-8") as f:
        for folder, base in csv.reader(f, delimiter="\t"):
            hosts[urlsplit(base).netloc] = data / folder
    langs: dict[str, str] = {}
    files: dict[str, Path] = {}
    with open(data / "pages.tsv", encoding="utf-8") as f:
        for url, lang in csv.reader(f, delimiter="\t"):
            parts = urlsplit(url)
            langs[url] = lang
            path = parts.path.lstrip("/")
            files[url] = hosts[parts.netloc] / (
                path + "index.html" if path.endswith("/") or not path else path
            )
    gold: set[frozenset[str]] = set()
    rows = []
    with open(data / "gold.tsv", encoding="utf-8") as f:
        for row in csv.reader(f, delimiter="\t"):
            gold.add(frozenset((row[1], row[3])))
            rows.append(tuple(row))
    return langs, files, gold, rows


def load_pages(langs: dict[str, str], files: dict[str, Path], repeated: bool) -> list[Page]:
    raw: list[tuple[str, str, list[Paragraph], list[str]]] = []
    for url, lang in langs.items():
        html = decode_html(files[url].read_bytes()).text
        raw.append((url, lang, extract_paragraphs(html, lang), image_names(html, url)))
    blocks = RepeatedBlocks()
    if repeated:
        for _url, lang, paragraphs, _images in raw:
            blocks.observe(paragraphs, lang)
    pages = []
    for url, lang, paragraphs, images in raw:
        if repeated:
            paragraphs = blocks.mark(paragraphs, lang)
        content = [p for p in paragraphs if not p.boilerplate]
        pages.append(
            Page(
                url=url,
                lang=lang,
                paragraphs=content,
                images=images,
                depth=depth(url),
                tokens=sum(len(word_tokens(p.text)) for p in content),
                fp=fingerprint(content, weighted=False),
                fp_weighted=fingerprint(content, weighted=True),
            )
        )
    return pages


@numba.njit(cache=True)
def tolerant_distance(a: np.ndarray, b: np.ndarray, tol: float) -> int:
    """Levenshtein with a length matching a length when max/min <= tol (measured here, not used by the crawl)."""
    n, m = a.size, b.size
    prev = np.arange(m + 1)
    cur = np.empty(m + 1, dtype=prev.dtype)
    for i in range(1, n + 1):
        cur[0] = i
        x = a[i - 1]
        for j in range(1, m + 1):
            y = b[j - 1]
            same = x == y or (x > 0 and y > 0 and max(x, y) <= tol * min(x, y))
            sub = 0 if same else 1
            cur[j] = min(prev[j] + 1, cur[j - 1] + 1, prev[j - 1] + sub)
        prev, cur = cur, prev
    return int(prev[m])


def tolerant_ratio(a: list[int], b: list[int], tol: float) -> float:
    longest = max(len(a), len(b))
    if not longest:
        return 1.0
    return tolerant_distance(np.asarray(a, dtype=np.int64), np.asarray(b, dtype=np.int64), tol) / longest


def evidence_functions(
    freqs: ImageFrequencies, freqs_paper: ImageFrequencies
) -> dict[str, Callable[[Page, Page], float | None]]:
    critical: dict[tuple[int, str], frozenset[str]] = {}

    def crit(p: Page, f: ImageFrequencies = freqs) -> frozenset[str]:
        key = (id(f), p.url)
        if key not in critical:
            critical[key] = frozenset(f.critical(p.images))
        return critical[key]

    fns: dict[str, Callable[[Page, Page], float | None]] = {
        "img": lambda a, b: image_jaccard(crit(a), crit(b)),
        "img_paper": lambda a, b: image_jaccard(crit(a, freqs_paper), crit(b, freqs_paper)),
        "img_all": lambda a, b: image_jaccard(set(a.images), set(b.images)),
        "fp_paper": lambda a, b: 1.0 - fingerprint_distance_ratio(a.fp, b.fp, None),
    }
    for base in BASES:
        fns[f"fp_b{base:g}"] = lambda a, b, base=base: 1.0 - fingerprint_distance_ratio(a.fp, b.fp, base)
        fns[f"fp_wb{base:g}"] = lambda a, b, base=base: (
            1.0 - fingerprint_distance_ratio(a.fp_weighted, b.fp_weighted, base)
        )
    for tol in TOLERANCES:
        fns[f"fp_wt{tol:g}"] = lambda a, b, tol=tol: 1.0 - tolerant_ratio(a.fp_weighted, b.fp_weighted, tol)
    fns["para"] = lambda a, b: ratio(len(a.paragraphs), len(b.paragraphs))
    fns["tok"] = lambda a, b: ratio(a.tokens, b.tokens)
    fns["fplen"] = lambda a, b: ratio(len(a.fp), len(b.fp))
    return fns


def auc(pos: np.ndarray, neg: np.ndarray) -> float:
    """P(score of a gold pair > score of a non-gold pair), ties half (Mann-Whitney U / n1 n2)."""
    if not len(pos) or not len(neg):
        return float("nan")
    allv = np.concatenate([pos, neg])
    order = allv.argsort(kind="mergesort")
    ranks = np.empty(len(allv))
    sorted_v = allv[order]
    # Average ranks for ties.
    i = 0
    while i < len(sorted_v):
        j = i
        while j + 1 < len(sorted_v) and sorted_v[j + 1] == sorted_v[i]:
            j += 1
        ranks[order[i : j + 1]] = (i + j) / 2 + 1
        i = j + 1
    u = ranks[: len(pos)].sum() - len(pos) * (len(pos) + 1) / 2
    return float(u / (len(pos) * len(neg)))


def one_to_one(
    pairs: list[tuple[float, str, str, str, str]], threshold: float
) -> list[tuple[float, str, str, str, str]]:
    """score.py's rule: best score first, a URL pairs once per other (base) language."""
    taken: set[tuple[str, str]] = set()
    kept = []
    for s, l1, u1, l2, u2 in pairs:  # pre-sorted by (-score, u1, u2)
        if s < threshold:
            break
        b1, b2 = primary_subtag(l1), primary_subtag(l2)
        if (u1, b2) in taken or (u2, b1) in taken:
            continue
        taken.add((u1, b2))
        taken.add((u2, b1))
        kept.append((s, l1, u1, l2, u2))
    return kept


def prf(
    kept: list[tuple[float, str, str, str, str]], gold: set[frozenset[str]]
) -> tuple[float, float, float, int]:
    tp = sum(1 for _s, _l1, u1, _l2, u2 in kept if frozenset((u1, u2)) in gold)
    p = tp / len(kept) if kept else 0.0
    r = tp / len(gold) if gold else 0.0
    f = 2 * p * r / (p + r) if p + r else 0.0
    return p, r, f, tp


def fmt_q(values: np.ndarray) -> str:
    if not len(values):
        return "(none)"
    return " ".join(f"{q:.2f}" for q in np.quantile(values, QUANTILES))


def near_duplicates(pages: list[Page]) -> tuple[dict[str, str], list[str]]:
    """Dropped URL -> kept URL, per language in URL order, and a report line per decision."""
    by_lang: dict[str, list[Page]] = defaultdict(list)
    for p in pages:
        by_lang[primary_subtag(p.lang)].append(p)
    dropped: dict[str, str] = {}
    lines = []
    for lang, group in sorted(by_lang.items()):
        index = NearDuplicateIndex()
        for p in sorted(group, key=lambda p: p.url):
            for d in index.add(p.url, paragraph_hashes(p.paragraphs)):
                lines.append(f"  {lang}: dropped {d.dropped}  kept {d.kept}  share {d.share:.2f}")
        dropped.update(index.duplicates())
    return dropped, lines


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("data", type=Path)
    ap.add_argument("--repeated", action="store_true", help="also drop text repeated across the site")
    ap.add_argument(
        "--dedup", action="store_true", help="near-duplicates found are not counted in the image frequencies"
    )
    ap.add_argument("--out", type=Path, help="write the best-threshold predictions here and score them")
    a = ap.parse_args()

    t0 = time.perf_counter()
    langs, files, gold, _rows = load_site(a.data)
    pages = load_pages(langs, files, a.repeated)
    t_load = time.perf_counter() - t0
    dropped, dup_lines = near_duplicates(pages)
    freqs, freqs_paper = ImageFrequencies(), ImageFrequencies()
    for p in pages:
        if a.dedup and p.url in dropped:
            continue
        freqs.add(p.images, p.lang)
        freqs_paper.add(p.images)
    names = sorted({n for p in pages for n in p.images})
    print(f"{len(pages)} pages, {len(gold)} gold pairs; extraction {t_load:.1f} s")
    print(
        f"images: {len(freqs)} distinct, pages with images {sum(1 for p in pages if p.images)}; "
        f"10% cut > {freqs.max_share * freqs.pages:.1f} pages"
    )
    for label, f, freq in (
        ("paper (pages)", freqs_paper, freqs_paper.count),
        ("per language (max pages of one language)", freqs, freqs.frequency),
    ):
        hist = np.bincount([freq(n) for n in names])
        common = [n for n in names if f.is_common(n)]
        print(
            f"  frequency {label}: KDE threshold {f.threshold}; histogram (frequency: images) "
            + ", ".join(f"{k}: {v}" for k, v in enumerate(hist) if v)
        )
        print(f"    common images ({len(common)}): " + ", ".join(f"{n} ({freq(n)})" for n in common))
        print(f"    pages with critical images: {sum(1 for p in pages if f.critical(p.images))}")

    by_url = {p.url: p for p in pages}
    gold_depth_bad = [g for g in gold if all(u in by_url for u in g) and not depth_ok(*g)]
    depths = Counter(p.depth for p in pages)
    print(
        f"depths (depth: pages): {dict(sorted(depths.items()))}; "
        f"gold pairs failing depth_ok: {len(gold_depth_bad)}"
    )
    missing = [g for g in gold if not all(u in by_url for u in g)]
    if missing:
        print(f"gold pairs with a page not in pages.tsv: {len(missing)}")

    fns = evidence_functions(freqs, freqs_paper)
    t0 = time.perf_counter()
    scores: dict[str, list[tuple[float, str, str, str, str]]] = {name: [] for name in fns}
    labels: dict[str, list[bool]] = {name: [] for name in fns}
    ordered = sorted(pages, key=lambda p: p.url)
    n_pairs = 0
    for i, pa in enumerate(ordered):
        for pb in ordered[i + 1 :]:
            if primary_subtag(pa.lang) == primary_subtag(pb.lang):
                continue
            n_pairs += 1
            is_gold = frozenset((pa.url, pb.url)) in gold
            for name, fn in fns.items():
                s = fn(pa, pb)
                if s is None:
                    continue
                scores[name].append((s, pa.lang, pa.url, pb.lang, pb.url))
                labels[name].append(is_gold)
    t_pairs = time.perf_counter() - t0
    print(f"{n_pairs} cross-language pairs scored with {len(fns)} evidences in {t_pairs:.1f} s")
    print()
    print(
        f"{'evidence':10s} {'AUC':>5s} {'pairs':>6s} {'gold':>5s}  gold q05 q25 q50 q75 q95"
        f"         | non-gold q05 q25 q50 q75 q95"
    )
    for name in fns:
        v = np.array([s for s, *_ in scores[name]])
        lab = np.array(labels[name], dtype=bool)
        print(
            f"{name:10s} {auc(v[lab], v[~lab]):5.3f} {len(v):6d} {lab.sum():5d}  {fmt_q(v[lab]):28s} | "
            f"{fmt_q(v[~lab])}"
        )
    print()
    print("as a filter (ILSP-FC's use of the ratios): share of gold / non-gold pairs with score >= t")
    for name in ("para", "tok", "fplen", "img", "fp_paper", "fp_wb2"):
        v = np.array([s for s, *_ in scores[name]])
        lab = np.array(labels[name], dtype=bool)
        cells = "  ".join(
            f"{t:.1f}: {np.mean(v[lab] >= t):.3f}/{np.mean(v[~lab] >= t):.3f}" for t in FILTER_THRESHOLDS
        )
        print(f"  {name:10s} {cells}")
    print()
    print("each evidence alone, one-to-one best first, pairs with score >= t:")
    best_rows = {}
    for name in fns:
        pairs = sorted(scores[name], key=lambda r: (-r[0], r[2], r[4]))
        results = []
        for t in THRESHOLDS:
            kept = one_to_one(pairs, t)
            p, r, f, tp = prf(kept, gold)
            results.append((f, t, p, r, tp, len(kept), kept))
        best = max(results, key=lambda x: (x[0], x[1]))
        best_rows[name] = best
        sweep = "  ".join(
            f"{t:.2f}:{p:.2f}/{r:.2f}" for f, t, p, r, *_ in results if t in (0.0, 0.5, 0.7, 0.8, 0.9)
        )
        print(
            f"  {name:10s} best t {best[1]:.2f}: P {best[2]:.3f} R {best[3]:.3f} F1 {best[0]:.3f} "
            f"(tp {best[4]}, pred {best[5]})   P/R at {sweep}"
        )

    if a.out:
        a.out.mkdir(parents=True, exist_ok=True)
        print()
        print("cross-check with score.py (best threshold):")
        for name, best in best_rows.items():
            path = a.out / f"pred_{name}.tsv"
            with open(path, "w", encoding="utf-8") as f:
                for s, l1, u1, l2, u2 in best[6]:
                    f.write(f"{l1}\t{u1}\t{l2}\t{u2}\t{s:.6f}\n")
            out = (
                subprocess.run(
                    [sys.executable, str(SCORE_PY), str(a.data / "gold.tsv"), str(path)],
                    capture_output=True,
                    text=True,
                    check=True,
                )
                .stdout.strip()
                .splitlines()[-1]
            )
            print(f"  {name:10s} {out}")

    print()
    print(f"near-duplicates (NearDuplicateIndex per language, URL order): {len(dup_lines)}")
    print("\n".join(dup_lines))


if __name__ == "__main__":
    main()
