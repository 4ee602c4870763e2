"""Each evidence source alone and the combined decision, on one crawl database, against a gold
standard (the per-source tables of docs/evaluation.md).

    python benchmarks/evidence_table.py --db sqlite:///crawl.db --gold SITE/gold.tsv [--label NAME]

Every candidate the crawl stored (page-level filters, URL keys, links) carries its evidence under
``scores["decision"]["evidence"]``.  A source "alone" accepts the candidates where it is positive
(below), ranks them by its own value, and goes through the same one-to-one rule and scoring as
``bitext eval`` (score.py's rules); "combined" is the crawl's final pairs.  The candidate pool is
the crawl's, so a source alone is measured on the pairs the crawl proposed, not on all page pairs.
"""

from __future__ import annotations

import argparse
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from bitext_spider.commands.evaluation import LinkedPair, read_gold_pairs, score_pairs  # noqa: E402
from bitext_spider.store.database import Store  # noqa: E402

Rule = Callable[[dict[str, Any]], float | None]  # evidence -> ranking value, None if not positive


def _positive(key: str, minimum: float) -> Rule:
    def rule(ev: dict[str, Any]) -> float | None:
        v = ev.get(key)
        return float(v) if v is not None and v >= minimum else None

    return rule


def _structure(ev: dict[str, Any]) -> float | None:
    return None if ev.get("structure") is None or ev.get("structure_failed") else float(ev["structure"])


def _fingerprint(ev: dict[str, Any]) -> float | None:
    r = ev.get("fingerprint_ratio")
    return 1.0 - r if r is not None and r <= 0.45 else None


SOURCES: dict[str, tuple[str, Rule]] = {
    "structure (size + edit distance + correlation, or Algorithm 1)": ("structure", _structure),
    "content share >= 0.5 (sentence alignment, IBM-1 model)": ("content", _positive("content_share", 0.5)),
    "URL pairing keys (Kit & Ng)": ("url_key", _positive("url_key", 1e-9)),
    "links (hreflang, switcher, mutual)": ("link", _positive("link", 1e-9)),
    "image Jaccard >= 0.5 (critical images)": ("images", _positive("images", 0.5)),
    "fingerprint distance ratio <= 0.45": ("fingerprint", _fingerprint),
}


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--db", required=True)
    ap.add_argument("--gold", required=True, type=Path)
    ap.add_argument("--label", default="")
    a = ap.parse_args()
    gold = read_gold_pairs(a.gold)
    store = Store(a.db, create=False)
    cands = [(r.lang1, r.url1, r.lang2, r.url2, (r.scores or {}).get("decision", {}).get("evidence", {}))
             for r in store.candidates()]
    final = [LinkedPair(r.lang1, r.url1, r.lang2, r.url2, r.score) for r in store.pairs()]
    store.close()
    print(f"{a.label or a.db}: {len(cands)} candidates")
    print("| evidence | pairs proposed | P | R | F1 |")
    print("|---|---|---|---|---|")
    for name, (_key, rule) in SOURCES.items():
        preds = []
        for l1, u1, l2, u2, ev in cands:
            v = rule(ev)
            if v is not None:
                preds.append(LinkedPair(l1, u1, l2, u2, v))
        t = score_pairs(gold, preds).total.as_dict()
        print(f"| {name} | {len(preds)} | {t['precision']:.3f} | {t['recall']:.3f} | {t['f1']:.3f} |")
    t = score_pairs(gold, final).total.as_dict()
    print(f"| **combined decision (final pairs)** | {len(final)} | **{t['precision']:.3f}** | **{t['recall']:.3f}** "
          f"| **{t['f1']:.3f}** |")


if __name__ == "__main__":
    main()
