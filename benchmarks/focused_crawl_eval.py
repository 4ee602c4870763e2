"""Focused against breadth-first crawling of a mixed-domain site at a fixed page budget.

    python benchmarks/focused_crawl_eval.py SITE --domain FILE --budget N [--runs K] [-s SETTING=VALUE ...] [--full]

SITE is a folder made by benchmarks/make_mixed_domain_site.py (pages.tsv with each page's
subject, gold.tsv, gold-in-domain.tsv, hosts.tsv, seeds.txt), served here with
../shared/bench/serve.py.  Two crawls with ``BITEXT_MAX_PAGES_PER_SITE=N``: the default crawl (no
domain: breadth first) and the focused crawl (``-a domain=FILE``).  For each it prints the pages
fetched, the harvest rate (pages on the domain's subject / pages fetched, from pages.tsv), the
in-domain pairs found (final pairs that are gold pairs of the in-domain site) and the precision
of all its pairs; for the focused crawl also the crawler's own harvest rate (pages it judged
relevant / pages fetched) and its page classification against the known subjects (precision and
recall of "relevant" over the fetched pages that pages.tsv lists).  ``--full`` adds a focused crawl
without a budget, whose classification covers every page of the site.  ``--runs K`` crawls each
budgeted case K times (the order in which equally ranked pages are fetched follows the arrival
of responses, so figures vary from run to run) and reports the median.
"""

from __future__ import annotations

import argparse
import json
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from sqlalchemy import select
from sqlalchemy.orm import Session

from bitext_spider.store.database import Store
from bitext_spider.store.models import PageRow

ROOT = Path(__file__).resolve().parents[1]
BENCH = ROOT.parent / "shared" / "bench"


def _tsv(path: Path) -> list[list[str]]:
    return [line.split("\t") for line in path.read_text(encoding="utf-8").splitlines() if line.strip()]


def crawl(site: Path, db: str, budget: int, domain: Path | None, settings: list[str]) -> float:
    cmd = [sys.executable, "-m", "scrapy", "crawl", "site", "-a", f"seeds={site / 'seeds.txt'}",
           "-s", f"BITEXT_DB_URL={db}", "-s", "AUTOTHROTTLE_START_DELAY=0", "-s", "LOG_LEVEL=WARNING"]
    if budget:
        cmd += ["-s", f"BITEXT_MAX_PAGES_PER_SITE={budget}"]
    if domain is not None:
        cmd += ["-a", f"domain={domain}"]
    for s in settings:
        cmd += ["-s", s]
    t0 = time.perf_counter()
    subprocess.run(cmd, cwd=ROOT, check=True)
    return time.perf_counter() - t0


def measure(site: Path, db: str) -> dict[str, float]:
    subjects = {url: subject for url, _lang, subject in _tsv(site / "pages.tsv")}
    gold = {frozenset((r[1], r[3])) for r in _tsv(site / "gold.tsv")}
    gold_in = {frozenset((r[1], r[3])) for r in _tsv(site / "gold-in-domain.tsv")}
    store = Store(db, create=False)
    try:
        with Session(store.engine) as s:
            pages = s.execute(select(PageRow.url, PageRow.topic)).all()
        pairs = {frozenset((r.url1, r.url2)) for r in store.pairs()}
    finally:
        store.close()
    fetched = len(pages)
    on_subject = sum(1 for url, _ in pages if subjects.get(url) == "in")
    judged = [(bool(topic.get("relevant")), subjects[url] == "in") for url, topic in pages
              if topic is not None and url in subjects]
    tp = sum(1 for pred, true in judged if pred and true)
    out = {
        "fetched": fetched,
        "on_subject": on_subject,
        "harvest": on_subject / fetched if fetched else 0.0,
        "pairs": len(pairs),
        "in_domain_pairs": len(pairs & gold_in),
        "pair_precision": len(pairs & gold) / len(pairs) if pairs else 0.0,
    }
    if judged:
        predicted = sum(1 for pred, _ in judged if pred)
        actual = sum(1 for _, true in judged if true)
        out.update({
            "judged_relevant": sum(1 for _, topic in pages if topic and topic.get("relevant")),
            "crawler_harvest": sum(1 for _, topic in pages if topic and topic.get("relevant")) / fetched,
            "class_precision": tp / predicted if predicted else 0.0,
            "class_recall": tp / actual if actual else 0.0,
            "classified": len(judged),
        })
    return out


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("site", type=Path)
    ap.add_argument("--domain", type=Path, required=True)
    ap.add_argument("--budget", type=int, required=True)
    ap.add_argument("-s", dest="settings", action="append", default=[], help="Scrapy setting NAME=VALUE")
    ap.add_argument("--full", action="store_true", help="also a focused crawl of the whole site")
    ap.add_argument("--runs", type=int, default=1, help="crawls of each budgeted case (median reported)")
    ap.add_argument("--keep", type=Path, help="keep the databases in this folder")
    a = ap.parse_args()
    site, domain = a.site.resolve(), a.domain.resolve()
    server = subprocess.Popen([sys.executable, str(BENCH / "serve.py"), str(site), "--for", "3600"],
                              stdout=subprocess.DEVNULL)
    results = {}
    try:
        time.sleep(1.0)
        with tempfile.TemporaryDirectory() as tmp:
            folder = a.keep or Path(tmp)
            folder.mkdir(parents=True, exist_ok=True)
            runs = [("breadth-first", a.budget, None, a.runs), ("focused", a.budget, domain, a.runs)]
            if a.full:
                runs.append(("focused, no budget", 0, domain, 1))
            for label, budget, dom, times in runs:
                each = []
                for i in range(times):
                    name = label.split(",")[0].replace(" ", "-") + ("-full" if not budget else "") + f"-{i + 1}.db"
                    db = f"sqlite:///{folder / name}"
                    Path(db.removeprefix("sqlite:///")).unlink(missing_ok=True)
                    seconds = crawl(site, db, budget, dom, a.settings)
                    each.append({**measure(site, db), "seconds": round(seconds, 1)})
                    print(label, json.dumps(each[-1]), flush=True)
                each.sort(key=lambda r: r["in_domain_pairs"])
                results[label] = each[len(each) // 2]
    finally:
        server.terminate()
        server.wait()
    base, focus = results["breadth-first"], results["focused"]
    ratio = focus["in_domain_pairs"] / base["in_domain_pairs"] if base["in_domain_pairs"] else float("inf")
    print(f"\nbudget {a.budget} pages (median of {a.runs}); in-domain pairs: focused {focus['in_domain_pairs']}, breadth-first "
          f"{base['in_domain_pairs']} ({ratio:.2f}x); harvest rate: focused {focus['harvest']:.3f}, "
          f"breadth-first {base['harvest']:.3f}")


if __name__ == "__main__":
    main()
