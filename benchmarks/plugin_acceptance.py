"""Pairs from the item flow, from a user's own project, and after a kill -9, scored on a real site.

    python benchmarks/plugin_acceptance.py ../shared/data/w3c-i18n [--kill-after 150]

Serves the site with ../shared/bench/serve.py, then:

1. ``scrapy crawl site -a seeds=SITE/seeds.txt -O pairs.jsonl``: the final pair items of the feed;
2. the example project of docs/examples/addon_project (a plain ``CrawlSpider`` with the add-on),
   copied to a temporary directory, ``scrapy crawl pages -a start=<seed URLs> -O pairs.jsonl``;
3. the ``site`` crawl killed with SIGKILL once ``--kill-after`` pages are stored, then
   ``bitext resolve``, then the same crawl command again until it ends.

Each result is scored with ../shared/bench/score.py against SITE/gold.tsv; the feed's final pairs
are also compared with ``bitext export pairs`` of the same database, and step 3 counts duplicate
page URLs.  Prints one line per result.
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import signal
import sqlite3
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
BENCH = ROOT.parent / "shared" / "bench"
FAST = ["-s", "AUTOTHROTTLE_ENABLED=False", "-s", "LOG_LEVEL=WARNING"]


def final_pairs_tsv(feed: Path, out: Path) -> int:
    rows = [json.loads(line) for line in feed.read_text(encoding="utf-8").splitlines() if line.strip()]
    final = [r for r in rows if r.get("status") == "final"]
    final.sort(key=lambda r: -r["score"])
    with out.open("w", encoding="utf-8") as f:
        f.write("lang1\turl1\tlang2\turl2\tscore\n")
        for r in final:
            f.write(f"{r['lang1']}\t{r['url1']}\t{r['lang2']}\t{r['url2']}\t{r['score']}\n")
    return len(final)


def export_pairs(db: str, out: Path) -> set[tuple[str, str]]:
    subprocess.run([sys.executable, "-m", "bitext_spider.commands.cli", "export", "pairs", "--db", db, "-o", str(out)],
                   cwd=ROOT, check=True, stderr=subprocess.DEVNULL)
    return pair_set(out)


def pair_set(tsv: Path) -> set[tuple[str, str]]:
    lines = tsv.read_text(encoding="utf-8").splitlines()[1:]
    return {tuple(sorted((p[1], p[3]))) for p in (line.split("\t") for line in lines)}  # type: ignore[misc]


def score(site: Path, pairs: Path) -> str:
    report = subprocess.run([sys.executable, str(BENCH / "score.py"), str(site / "gold.tsv"), str(pairs), "--json"],
                            check=True, capture_output=True, text=True).stdout
    total = json.loads(report)
    return f"P {total['precision']:.3f} R {total['recall']:.3f} (tp {total['tp']}, fp {total['fp']})"


def stored_pages(db_path: Path) -> tuple[int, int]:
    with sqlite3.connect(db_path) as con:
        n, distinct = con.execute("select count(*), count(distinct url) from pages").fetchone()
    return n, distinct


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("site", type=Path)
    ap.add_argument("--kill-after", type=int, default=150, help="stored pages before the SIGKILL")
    a = ap.parse_args()
    site = a.site.resolve()
    seeds = site / "seeds.txt"
    starts = ",".join(line.split()[0] for line in seeds.read_text().splitlines() if line.strip() and not line.startswith("#"))
    server = subprocess.Popen([sys.executable, str(BENCH / "serve.py"), str(site), "--for", "3600"], stdout=subprocess.DEVNULL)
    tmp = Path(tempfile.mkdtemp(prefix="bitext-acceptance-"))
    try:
        time.sleep(1.0)
        # 1. the site spider, pairs from its feed
        db1 = tmp / "site.db"
        feed1 = tmp / "site.jsonl"
        subprocess.run([sys.executable, "-m", "scrapy", "crawl", "site", "-a", f"seeds={seeds}", "-s", f"BITEXT_DB_URL=sqlite:///{db1}",
                        "-O", str(feed1), *FAST], cwd=ROOT, check=True)
        n = final_pairs_tsv(feed1, tmp / "site.tsv")
        same = pair_set(tmp / "site.tsv") == export_pairs(f"sqlite:///{db1}", tmp / "site-export.tsv")
        print(f"site spider, -O feed: {n} final pairs, {score(site, tmp / 'site.tsv')}; feed == export pairs: {same}")

        # 2. a user's own CrawlSpider project with the add-on
        project = tmp / "project"
        shutil.copytree(ROOT / "docs" / "examples" / "addon_project", project)
        db2 = tmp / "addon.db"
        feed2 = tmp / "addon.jsonl"
        env = {**os.environ, "PYTHONPATH": os.pathsep.join([str(ROOT), os.environ.get("PYTHONPATH", "")])}
        env.pop("SCRAPY_SETTINGS_MODULE", None)
        subprocess.run([sys.executable, "-m", "scrapy", "crawl", "pages", "-a", f"start={starts}",
                        "-s", f"BITEXT_DB_URL=sqlite:///{db2}", "-O", str(feed2), *FAST], cwd=project, check=True, env=env)
        n = final_pairs_tsv(feed2, tmp / "addon.tsv")
        same = pair_set(tmp / "addon.tsv") == export_pairs(f"sqlite:///{db2}", tmp / "addon-export.tsv")
        print(f"CrawlSpider + add-on, -O feed: {n} final pairs, {score(site, tmp / 'addon.tsv')}; feed == export pairs: {same}")

        # 3. kill -9, resolve, resume
        db3 = tmp / "killed.db"
        cmd = [sys.executable, "-m", "scrapy", "crawl", "site", "-a", f"seeds={seeds}", "-s", f"BITEXT_DB_URL=sqlite:///{db3}", *FAST]
        proc = subprocess.Popen(cmd, cwd=ROOT, start_new_session=True)
        stored = 0
        while proc.poll() is None:
            time.sleep(0.2)
            if db3.exists():
                try:
                    stored = stored_pages(db3)[0]
                except sqlite3.Error:
                    continue
                if stored >= a.kill_after:
                    os.killpg(proc.pid, signal.SIGKILL)
                    break
        proc.wait()
        print(f"killed with SIGKILL at {stored} stored pages (exit {proc.returncode})")
        subprocess.run([sys.executable, "-m", "bitext_spider.commands.cli", "resolve", "--db", f"sqlite:///{db3}"],
                       cwd=ROOT, check=True, stdout=subprocess.DEVNULL)
        export_pairs(f"sqlite:///{db3}", tmp / "resolved.tsv")
        print(f"bitext resolve after the kill: {len(pair_set(tmp / 'resolved.tsv'))} pairs, {score(site, tmp / 'resolved.tsv')}")
        subprocess.run(cmd, cwd=ROOT, check=True)
        export_pairs(f"sqlite:///{db3}", tmp / "resumed.tsv")
        n, distinct = stored_pages(db3)
        print(f"resumed to the end: {n} pages stored, {n - distinct} duplicate URLs; {score(site, tmp / 'resumed.tsv')}")
    finally:
        server.terminate()
        server.wait()
        shutil.rmtree(tmp, ignore_errors=True)


if __name__ == "__main__":
    main()
