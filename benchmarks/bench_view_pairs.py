"""Speed of the viewer's pair list on a large database, through a real HTTP server.

    python benchmarks/bench_view_pairs.py [--pairs 100000] [--repeat 15] [--db PATH]

Builds a SQLite database of synthetic rows (through the models, bulk inserts): three sites, two
pages per final pair, the final pairs, their candidates and a fifth as many candidates more that
lost or were rejected, over six language pairs and five kinds of deciding evidence.  Starts
``bitext view`` on a free loopback port and times, over ``--repeat`` requests each after one
warm-up, the pair list's first page, a filtered page (language pair and deciding evidence), a
page deep in the list (keyset cursor at 99% of the pairs), the worst-first sort, and the first
page of the lost candidates.  Prints the median and the slowest time of each in milliseconds.
docs/viewer.md gives the figures.
"""

from __future__ import annotations

import argparse
import http.client
import random
import re
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from urllib.parse import urlencode

from sqlalchemy import insert, select
from sqlalchemy.orm import Session

from bitext_spider.store.models import CandidateRow, PageRow, PairRow, SiteRow, make_engine

LANG_PAIRS = [("en", "fr"), ("de", "en"), ("en", "es"), ("es", "fr"), ("de", "fr"), ("en", "it")]
DECIDING = ["structure", "content", "url_key", "link", "pivot"]


def build(url: str, n_pairs: int, seed: int = 0) -> None:
    rnd = random.Random(seed)
    engine = make_engine(url)
    n_extra = n_pairs // 5
    n_pages = 2 * n_pairs + n_extra
    with engine.begin() as conn:
        conn.execute(insert(SiteRow), [dict(id=i, key=f"site{i}.example", start_urls=[f"http://site{i}.example/"])
                                       for i in (1, 2, 3)])
        langs_of: list[str] = []
        pages = []
        for pid in range(1, n_pages + 1):
            if pid <= 2 * n_pairs:
                pair = LANG_PAIRS[((pid - 1) // 2) % len(LANG_PAIRS)]
                lang = pair[(pid - 1) % 2]
            else:
                lang = rnd.choice(["en", "fr", "de", "es", "it"])
            langs_of.append(lang)
            site = 1 + (pid // 2) % 3
            pages.append(dict(id=pid, site_id=site, url=f"http://site{site}.example/{lang}/doc{pid}.html", lang=lang,
                              eligible=True, fetched_at=1_700_000_000.0 + pid * 0.05, n_words=300))
            if len(pages) == 20000:
                conn.execute(insert(PageRow), pages)
                pages = []
        if pages:
            conn.execute(insert(PageRow), pages)
        cands, pairs = [], []
        for i in range(n_pairs):
            a, b = 2 * i + 1, 2 * i + 2
            score = round(rnd.uniform(0.4, 1.8), 6)
            site = 1 + (a // 2) % 3
            row = dict(site_id=site, page1_id=a, page2_id=b, lang1=langs_of[a - 1], lang2=langs_of[b - 1],
                       score=score)
            deciding = rnd.choice(DECIDING)
            cands.append(dict(row, scores={"structure": 0.9, "decision": {"score": score, "accepted": True,
                                                                          "terms": {deciding: 0.5}, "veto": ""}},
                              accepted=True, deciding=deciding))
            pairs.append(row)
        for j in range(n_extra):
            a = 2 * n_pairs + 1 + j
            b = rnd.randrange(1, 2 * n_pairs + 1)
            if langs_of[a - 1] == langs_of[b - 1]:
                continue
            lo, hi = min(a, b), max(a, b)
            accepted = j % 2 == 0
            cands.append(dict(site_id=1 + (b // 2) % 3, page1_id=lo, page2_id=hi, lang1=langs_of[lo - 1],
                              lang2=langs_of[hi - 1], score=round(rnd.uniform(0.0, 1.0), 6), scores={},
                              accepted=accepted, deciding="veto" if not accepted else rnd.choice(DECIDING)))
        for k in range(0, len(cands), 20000):
            conn.execute(insert(CandidateRow), cands[k : k + 20000])
        for k in range(0, len(pairs), 20000):
            conn.execute(insert(PairRow), pairs[k : k + 20000])
    engine.dispose()


def deep_cursor(url: str, share: float) -> str:
    """The keyset cursor of the row at ``share`` of the final pairs in the default sort."""
    engine = make_engine(url, create=False)
    with Session(engine) as s:
        n = s.execute(select(PairRow.id).order_by(PairRow.id.desc()).limit(1)).scalar_one()
        score, ident = s.execute(select(PairRow.score, PairRow.id).order_by(PairRow.score.desc(), PairRow.id)
                                 .offset(int(n * share)).limit(1)).one()
    engine.dispose()
    return f"{score!r}_{ident}"


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--pairs", type=int, default=100_000)
    ap.add_argument("--repeat", type=int, default=15)
    ap.add_argument("--db", type=Path, help="where to build the database (a temporary file otherwise)")
    a = ap.parse_args()
    tmp = tempfile.TemporaryDirectory()
    path = a.db or Path(tmp.name) / "view-bench.db"
    url = f"sqlite:///{path}"
    t0 = time.perf_counter()
    build(url, a.pairs)
    print(f"built {a.pairs} pairs in {time.perf_counter() - t0:.1f} s ({path.stat().st_size / 1e6:.0f} MB)")
    queries = {
        "first page": {},
        "filtered (de-en, deciding content)": {"langs": "de-en", "deciding": "content"},
        "deep page (99%)": {"after": deep_cursor(url, 0.99)},
        "sort worst first": {"sort": "score_asc"},
        "lost candidates": {"status": "lost"},
        "site and score range": {"site": "2", "min": "0.9", "max": "1.1"},
    }
    proc = subprocess.Popen([sys.executable, "-m", "bitext_spider.commands.cli", "view", "--db", url, "--port", "0"],
                            stderr=subprocess.PIPE, text=True)
    try:
        assert proc.stderr is not None
        line = proc.stderr.readline()
        m = re.search(r"http://127\.0\.0\.1:(\d+)/", line)
        if not m:
            raise SystemExit(f"bitext view did not start: {line}")
        conn = http.client.HTTPConnection("127.0.0.1", int(m.group(1)), timeout=60)
        print(f"{'request':<38} {'median ms':>10} {'max ms':>8}  rows")
        for name, params in queries.items():
            target = "/pairs" + ("?" + urlencode(params) if params else "")
            times = []
            for i in range(a.repeat + 1):
                t = time.perf_counter()
                conn.request("GET", target)
                resp = conn.getresponse()
                body = resp.read().decode()
                if i:
                    times.append((time.perf_counter() - t) * 1000)
                assert resp.status == 200, (target, resp.status, body[:200])
            rows = body.count('class="open"')
            print(f"{name:<38} {statistics.median(times):>10.1f} {max(times):>8.1f}  {rows}")
        conn.close()
    finally:
        proc.terminate()
        proc.wait(timeout=10)
        tmp.cleanup()


if __name__ == "__main__":
    main()
