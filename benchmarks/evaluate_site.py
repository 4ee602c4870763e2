"""Serve a test site, crawl it with the current code, score the pairs against its gold standard.

    python benchmarks/evaluate_site.py ../shared/data/w3c-i18n [-s SETTING=VALUE ...] [--label NAME] [--keep DB]

Uses ../shared/bench/serve.py and score.py (the site folder must have hosts.tsv, seeds.txt and
gold.tsv), the scorer of docs/evaluation.md; a site marked by ``query-files.tsv`` is served by
benchmarks/serve_site.py instead. Prints score.py's report and the crawl's wall time;
``--keep`` keeps the crawl's SQLite database at that path (for ``evidence_table.py``).
"""

from __future__ import annotations

import argparse
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
BENCH = ROOT.parent / "shared" / "bench"


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("site", type=Path)
    ap.add_argument("-s", dest="settings", action="append", default=[], help="Scrapy setting NAME=VALUE")
    ap.add_argument("--label", default="")
    ap.add_argument("--keep", type=Path, help="keep the database here")
    a = ap.parse_args()
    site = a.site.resolve()
    # A site whose pages are addressed by their query needs serve_site.py (serve.py ignores queries).
    serve = ROOT / "benchmarks" / "serve_site.py" if (site / "query-files.tsv").is_file() else BENCH / "serve.py"
    server = subprocess.Popen([sys.executable, str(serve), str(site), "--for", "1800"],
                              stdout=subprocess.DEVNULL)
    try:
        time.sleep(1.0)
        with tempfile.TemporaryDirectory() as tmp:
            db = a.keep or Path(tmp) / "eval.db"
            url = f"sqlite:///{db}"
            cmd = [sys.executable, "-m", "scrapy", "crawl", "site", "-a", f"seeds={site / 'seeds.txt'}",
                   "-s", f"BITEXT_DB_URL={url}", "-s", "AUTOTHROTTLE_START_DELAY=0", "-s", "LOG_LEVEL=WARNING"]
            for s in a.settings:
                cmd += ["-s", s]
            t0 = time.perf_counter()
            subprocess.run(cmd, cwd=ROOT, check=True)
            crawl_s = time.perf_counter() - t0
            pairs = Path(tmp) / "pairs.tsv"
            subprocess.run([sys.executable, "-m", "bitext_spider.commands.cli", "export", "pairs", "--db", url, "-o", str(pairs)],
                           cwd=ROOT, check=True, stderr=subprocess.DEVNULL)
            report = subprocess.run([sys.executable, str(BENCH / "score.py"), str(site / "gold.tsv"), str(pairs)],
                                    check=True, capture_output=True, text=True).stdout
    finally:
        server.terminate()
        server.wait()
    print(report, end="")
    print(f"[{a.label or 'default'}] settings: {' '.join(a.settings) or '(defaults)'}; crawl {crawl_s:.1f} s")


if __name__ == "__main__":
    main()
