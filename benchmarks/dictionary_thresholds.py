"""PCB dictionary filter on a real site: score distributions, variants and default thresholds.

Tsvetkov and Wintner, *Automatic Acquisition of Parallel Corpora from Websites with Dynamic
Content*, section 3.2.2 (thresholds "determined empirically ... to maximize precision").

For each language pair with a dictionary (en-de, en-es, en-fr), every page of the first language
is scored against every page of the second with ``matchers.content.dictionary_filter``; the gold pairs are
the positives, every other page pair of the same two languages a negative.  Page text is taken
with lxml from ``<body>`` less scripts and styles (``--extract body``), or also less
``header``/``nav``/``footer``/``aside`` (``--extract main``, nearer to main-content text).

A negative whose page has a near-duplicate (bag Jaccard >= 0.45) that is the gold partner of the
other page, a draft ``-TEST`` copy of an article on the W3C site, is a translation as far as
content goes: no content filter can reject it, and PCB's ``drop_ambiguous`` is what removes it.
Such near-duplicate negatives are counted apart ("nd").

    python benchmarks/dictionary_thresholds.py ../shared/data/w3c-i18n [--dics ../shared/data/dics]
        [--extract body|main] [--threshold 0.3 0.3] [--dictionary-share 0.3]
        [--all-variants | --default-only]

``--dictionary-share F`` keeps a fixed random share of each dictionary's pairs, standing for a
user's smaller dictionary: the defaults must not depend on the shipped ones being large.  Exits
with status 2 and a message, measuring nothing, when the data folder or the dictionaries are
missing.  Takes about a minute for all variants, ten seconds with ``--default-only``.
"""

from __future__ import annotations

import argparse
import bisect
import csv
import random
import statistics
import sys
import time
from dataclasses import dataclass
from pathlib import Path
from urllib.parse import urlsplit

import lxml.html

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from matchers.content.dictionary_filter import (  # noqa: E402
    DEFAULT_IDENTICAL,
    DEFAULT_MAX_SUFFIX,
    DEFAULT_MIN_PREFIX,
    DEFAULT_T1,
    DEFAULT_T2,
    BilingualDictionary,
    bag_of_words,
    drop_ambiguous,
    load_dictionary,
    pcb_accept,
    scores_from_translations,
    stopwords,
    translate_bag,
)
from matchers.page.word_tokens import word_tokens  # noqa: E402

PAIRS = (("en", "de"), ("en", "es"), ("en", "fr"))
NEAR_DUPLICATE = 0.45
_NON_CONTENT = ("script", "style", "noscript", "template")
_LAYOUT = ("header", "nav", "footer", "aside")


@dataclass(frozen=True)
class Variant:
    name: str
    min_prefix: int | None
    max_suffix: int
    judged_only: bool
    identical: bool


# The paper's definition with exact look-up first, then each departure alone and combined.
VARIANTS = (
    Variant("paper (exact)", None, None, False, False),
    Variant("prefix 5/4", 5, 4, False, False),
    Variant("prefix 6/any", 6, None, False, False),
    Variant("judged", None, None, True, False),
    Variant("identical", None, None, False, True),
    Variant("identical+judged", None, None, True, True),
    Variant("prefix 5/4+identical", 5, 4, False, True),
    Variant("prefix 5/any+identical", 5, None, False, True),
    Variant("prefix 7/any+identical", 7, None, False, True),
    Variant("prefix 6/any+identical+judged", 6, None, True, True),
)
DEFAULT = Variant(
    "default (prefix 6/any+identical)", DEFAULT_MIN_PREFIX, DEFAULT_MAX_SUFFIX, False, DEFAULT_IDENTICAL
)


@dataclass(frozen=True)
class Scored:
    lang_pair: str
    url1: str
    url2: str
    scores: tuple[float, float]
    gold: bool
    near_duplicate: bool


def page_text(path: Path, extract: str) -> str:
    root = lxml.html.parse(str(path)).getroot()
    body = root.find("body")
    if body is None:
        body = root
    drop = _NON_CONTENT + (_LAYOUT if extract == "main" else ())
    for el in body.xpath(" | ".join(f".//{t}" for t in drop)):
        el.drop_tree()
    return body.text_content()


def load_site(data: Path) -> tuple[dict[str, str], set[tuple[str, str]], dict[str, Path]]:
    """(url -> lang, gold pairs as (url, url) both ways, url -> file)."""
    hosts = {}
    with open(data / "hosts.tsv", encoding="utf-8") as f:
        for folder, base in csv.reader(f, delimiter="\t"):
            hosts[urlsplit(base).netloc] = data / folder
    langs, files = {}, {}
    with open(data / "pages.tsv", encoding="utf-8") as f:
        for url, lang in csv.reader(f, delimiter="\t"):
            parts = urlsplit(url)
            langs[url] = lang
            files[url] = hosts[parts.netloc] / parts.path.lstrip("/")
    gold = set()
    with open(data / "gold.tsv", encoding="utf-8") as f:
        for _l1, u1, _l2, u2 in csv.reader(f, delimiter="\t"):
            gold |= {(u1, u2), (u2, u1)}
    return langs, gold, files


def jaccard(a: frozenset[str], b: frozenset[str]) -> float:
    return len(a & b) / len(a | b) if a or b else 0.0


def near_duplicates(pages: list[str], bags: dict[str, frozenset[str]]) -> dict[str, set[str]]:
    dup: dict[str, set[str]] = {u: set() for u in pages}
    for i, u in enumerate(pages):
        for v in pages[i + 1 :]:
            if jaccard(bags[u], bags[v]) >= NEAR_DUPLICATE:
                dup[u].add(v)
                dup[v].add(u)
    return dup


def score_pair(
    dic: BilingualDictionary,
    l1: str,
    l2: str,
    langs: dict[str, str],
    gold: set[tuple[str, str]],
    bags: dict[str, frozenset[str]],
    variant: Variant,
) -> tuple[list[Scored], float]:
    """Every page pair of l1 x l2 scored, and the cost in ms per pair (bags translated once a page)."""
    pages1 = sorted(u for u, lang in langs.items() if lang == l1)
    pages2 = sorted(u for u, lang in langs.items() if lang == l2)
    dup1, dup2 = near_duplicates(pages1, bags), near_duplicates(pages2, bags)
    t0 = time.perf_counter()
    tr1 = {u: translate_bag(bags[u], dic, l1, variant.min_prefix, variant.max_suffix) for u in pages1}
    tr2 = {v: translate_bag(bags[v], dic, l2, variant.min_prefix, variant.max_suffix) for v in pages2}
    scores = {
        (u, v): scores_from_translations(tr1[u], tr2[v], variant.judged_only, variant.identical)
        for u in pages1
        for v in pages2
    }
    ms = (time.perf_counter() - t0) * 1000 / len(scores)
    out = []
    for (u, v), s in scores.items():
        is_gold = (u, v) in gold
        nd = not is_gold and (any((d, v) in gold for d in dup1[u]) or any((u, d) in gold for d in dup2[v]))
        out.append(Scored(f"{l1}-{l2}", u, v, s, is_gold, nd))
    return out, ms


def subsample(dic: BilingualDictionary, share: float) -> BilingualDictionary:
    """A dictionary of a fixed random ``share`` of ``dic``'s word pairs."""
    rng = random.Random(0)
    pairs = sorted((w1, w2) for w1, ts in dic.forward.items() for w2 in ts)
    kept = rng.sample(pairs, round(share * len(pairs)))
    forward: dict[str, set[str]] = {}
    backward: dict[str, set[str]] = {}
    for w1, w2 in kept:
        forward.setdefault(w1, set()).add(w2)
        backward.setdefault(w2, set()).add(w1)
    return BilingualDictionary(
        dic.lang1, dic.lang2,
        {w: frozenset(t) for w, t in forward.items()},
        {w: frozenset(t) for w, t in backward.items()},
    )  # fmt: skip


def quantiles(xs: list[float]) -> str:
    if len(xs) < 2:
        return " ".join(f"{x:.3f}" for x in xs) or "-"
    q = statistics.quantiles(xs, n=20, method="inclusive")
    return (
        f"min {min(xs):.3f} p5 {q[0]:.3f} p25 {q[4]:.3f} p50 {q[9]:.3f} p75 {q[14]:.3f} p95 {q[18]:.3f} "
        f"max {max(xs):.3f}"
    )


def auc(pos: list[float], neg: list[float]) -> float:
    """Probability that a gold pair outscores a non-pair, ties counting half."""
    neg = sorted(neg)
    wins = 0.0
    for p in pos:
        below, upto = bisect.bisect_left(neg, p), bisect.bisect_right(neg, p)
        wins += below + 0.5 * (upto - below)
    return wins / (len(pos) * len(neg))


@dataclass(frozen=True)
class Outcome:
    tp: int
    fp: int  # false acceptances that are not near-duplicates
    fp_nd: int  # near-duplicate false acceptances
    kept_tp: int
    kept_fp: int
    kept_fp_nd: int  # of kept_fp, near-duplicates


def outcome(scored: list[Scored], t1: float, t2: float) -> Outcome:
    accepted = [s for s in scored if pcb_accept(s.scores, t1, t2)]
    by_pair: dict[str, list[tuple[str, str]]] = {}
    for s in accepted:
        by_pair.setdefault(s.lang_pair, []).append((s.url1, s.url2))
    gold = {(s.url1, s.url2) for s in scored if s.gold}
    kept = {k for ks in by_pair.values() for k in drop_ambiguous(ks)[0]}
    near_dup = {(s.url1, s.url2) for s in scored if s.near_duplicate}
    return Outcome(
        tp=sum(s.gold for s in accepted),
        fp=sum(not s.gold and not s.near_duplicate for s in accepted),
        fp_nd=sum(s.near_duplicate for s in accepted),
        kept_tp=len(kept & gold),
        kept_fp=len(kept - gold),
        kept_fp_nd=len(kept & near_dup),
    )


def describe(o: Outcome, n_pos: int, n_neg: int) -> str:
    return (
        f"accepted {o.tp}/{n_pos} gold ({o.tp / n_pos:.1%}), {o.fp}/{n_neg} non-pairs "
        f"({o.fp / n_neg:.2%}) + {o.fp_nd} nd; after drop_ambiguous {o.kept_tp} gold "
        f"({o.kept_tp / n_pos:.1%}) + {o.kept_fp} false ({o.kept_fp_nd} nd)"
    )


def summarize(name: str, scored: list[Scored], threshold: tuple[float, float], detail: bool) -> None:
    pos = [s.scores for s in scored if s.gold]
    neg = [s.scores for s in scored if not s.gold and not s.near_duplicate]
    n_nd = sum(s.near_duplicate for s in scored)
    grid = [t / 100 for t in range(10, 71)]
    rows = [(t, outcome(scored, t, t)) for t in grid]
    # Recall at a false-acceptance budget: the lowest T (same for both scores) within it.
    budget = []
    for limit in (0, 0.001, 0.005):
        ok = [(t, o) for t, o in rows if o.fp <= limit * len(neg)]
        if ok:
            t, o = ok[0]
            budget.append(f"FA<={limit:.1%}: T={t:.2f} TA {o.tp / len(pos):.1%}")
    best_t, best = max(
        rows, key=lambda r: (2 * r[1].kept_tp / (len(pos) + r[1].kept_tp + r[1].kept_fp), r[0])
    )
    print(
        f"-- {name}: AUC(min) {auc([min(s) for s in pos], [min(s) for s in neg]):.4f}; "
        + "; ".join(budget)
        + f"; best F1 after drop_ambiguous T={best_t:.2f}: kept {best.kept_tp} + {best.kept_fp} false"
    )
    if detail:
        for i in (0, 1):
            print(f"     gold       score{i + 1}: {quantiles([s[i] for s in pos])}")
            print(f"     non-pairs  score{i + 1}: {quantiles([s[i] for s in neg])}")
        print(f"     ({len(pos)} gold, {len(neg)} non-pairs, {n_nd} near-duplicate non-pairs)")
    at = describe(outcome(scored, *threshold), len(pos), len(neg))
    print(f"     at T=({threshold[0]}, {threshold[1]}): {at}")
    if detail:
        for t in (0.2, 0.25, 0.28, 0.3, 0.32, 0.35, 0.4, 0.45):
            print(f"     T={t:.2f}: {describe(outcome(scored, t, t), len(pos), len(neg))}")
        missed = [s for s in scored if s.gold and not pcb_accept(s.scores, *threshold)]
        for s in missed:
            names = " ".join(u.rsplit("/", 1)[-1] for u in (s.url1, s.url2))
            print(f"     missed gold {names}: {s.scores[0]:.3f} {s.scores[1]:.3f}")


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument(
        "data", type=Path, help="site folder with pages.tsv, gold.tsv, hosts.tsv (shared/data/w3c-i18n)"
    )
    ap.add_argument("--dics", type=Path, help="folder of <l1>-<l2>.dic files (default: DATA/../dics)")
    ap.add_argument("--extract", choices=("body", "main"), default="body")
    ap.add_argument(
        "--threshold", type=float, nargs=2, default=(DEFAULT_T1, DEFAULT_T2), metavar=("T1", "T2")
    )
    ap.add_argument("--all-variants", action="store_true", help="also score every variant per language pair")
    ap.add_argument("--default-only", action="store_true", help="score only the module's defaults")
    ap.add_argument("--no-stopwords", action="store_true", help="keep stop words in the bags")
    ap.add_argument(
        "--dictionary-share", type=float, default=1.0, metavar="F",
        help="keep only this share of each dictionary's word pairs (fixed sample), to see how the scores "
        "depend on the dictionary's coverage",
    )  # fmt: skip
    a = ap.parse_args()
    dics = a.dics or a.data.parent / "dics"
    if not (a.data / "gold.tsv").is_file() or not dics.is_dir():
        print(f"data not found: need {a.data}/gold.tsv and {dics}/; nothing measured", file=sys.stderr)
        return 2
    langs, gold, files = load_site(a.data)
    stop = {lang: frozenset() if a.no_stopwords else stopwords(lang) for pair in PAIRS for lang in pair}
    bags = {
        url: bag_of_words(word_tokens(page_text(files[url], a.extract)), stop[lang])
        for url, lang in langs.items()
        if lang in stop
    }
    print(
        f"extract={a.extract}; dictionary share {a.dictionary_share}; stop words {not a.no_stopwords}; "
        f"T1={a.threshold[0]} T2={a.threshold[1]}; TA/FA = true/false acceptance, nd = near-duplicate"
    )
    variants = (DEFAULT,) if a.default_only else (DEFAULT, *VARIANTS)
    pooled: dict[str, list[Scored]] = {v.name: [] for v in variants}
    for l1, l2 in PAIRS:
        path = dics / f"{l1}-{l2}.dic"
        if not path.is_file():
            print(f"{l1}-{l2}: no {path}, skipped")
            continue
        t0 = time.perf_counter()
        dic = load_dictionary(path)
        if a.dictionary_share < 1:
            dic = subsample(dic, a.dictionary_share)
        print(f"\n== {l1}-{l2}: dictionary {len(dic)} pairs, loaded in {time.perf_counter() - t0:.2f} s")
        for v in variants:
            scored, ms = score_pair(dic, l1, l2, langs, gold, bags, v)
            pooled[v.name] += scored
            if v is DEFAULT or a.all_variants:
                summarize(f"{v.name} ({ms:.3f} ms/pair)", scored, a.threshold, detail=v is DEFAULT)
    print("\n== all three language pairs pooled, T1 = T2 = T")
    for v in variants:
        summarize(v.name, pooled[v.name], a.threshold, detail=v is DEFAULT)
    return 0


if __name__ == "__main__":
    sys.exit(main())
