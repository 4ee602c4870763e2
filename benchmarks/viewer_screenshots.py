"""Screenshots of the viewer's pages (overview, pairs, a pair, plots) for the documentation.

    python benchmarks/viewer_screenshots.py DB OUTDIR [--width 1400] [--chromium /usr/bin/chromium]

Starts ``bitext view`` on a free loopback port against the database DB, opens each page in
headless Chromium (the system's, driven by Playwright) and writes OUTDIR/viewer-overview.png,
viewer-pairs.png, viewer-pair.png and viewer-plots.png.  The pair shown is the final pair with the
most aligned sentences, up to twenty, among the best-scored five hundred; its screenshot is
of the whole page down to the evidence and decision.  docs/images/ holds the ones made on a crawl
of the W3C Internationalization site (benchmarks/evaluate_site.py --keep DB).
"""

from __future__ import annotations

import argparse
import re
import sqlite3
import subprocess
import sys
from pathlib import Path

from PIL import Image
from playwright.sync_api import sync_playwright

CHROMIUM_ARGS = ["--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
                 "--disable-background-networking", "--disable-component-update", "--disable-sync"]


def start_viewer(db: str, *extra: str) -> tuple[subprocess.Popen[str], str]:
    """``bitext view`` on a free loopback port; returns the process and its base URL."""
    proc = subprocess.Popen([sys.executable, "-m", "bitext_spider.commands.cli", "view", "--db", db, "--port", "0",
                             *extra], stderr=subprocess.PIPE, text=True)
    assert proc.stderr is not None
    line = proc.stderr.readline()
    m = re.search(r"at (http://\S+/)", line)
    if not m:
        proc.kill()
        raise SystemExit(f"bitext view did not start: {line}{proc.stderr.read()}")
    return proc, m.group(1)


def showcase_pair(db: str) -> tuple[int, int]:
    path = db.removeprefix("sqlite:///")
    with sqlite3.connect(path) as c:
        row = c.execute(
            "SELECT p.page1_id, p.page2_id, (SELECT count(*) FROM sentences s WHERE s.page1_id = p.page1_id "
            "AND s.page2_id = p.page2_id) AS n FROM (SELECT * FROM pairs ORDER BY score DESC LIMIT 500) p "
            "WHERE n BETWEEN 5 AND 20 ORDER BY n DESC LIMIT 1").fetchone()
    if row is None:
        raise SystemExit("the database has no final pair")
    return row[0], row[1]


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("db")
    ap.add_argument("outdir", type=Path)
    ap.add_argument("--width", type=int, default=1400)
    ap.add_argument("--height", type=int, default=1000)
    ap.add_argument("--chromium", default="/usr/bin/chromium")
    a = ap.parse_args()
    db = a.db if "://" in a.db else f"sqlite:///{a.db}"
    a.outdir.mkdir(parents=True, exist_ok=True)
    one, two = showcase_pair(db)
    proc, base = start_viewer(db)
    try:
        with sync_playwright() as pw:
            browser = pw.chromium.launch(executable_path=a.chromium, args=CHROMIUM_ARGS)
            page = browser.new_page(viewport={"width": a.width, "height": a.height})
            shots = {"overview": "", "pairs": "pairs", "pair": f"pair/{one}/{two}", "plots": "plots"}
            for name, path in shots.items():
                response = page.goto(base + path, wait_until="networkidle")
                if response is None or response.status != 200:
                    raise SystemExit(f"{base + path}: status {response.status if response else 'none'}")
                out = a.outdir / f"viewer-{name}.png"
                if name == "pair":
                    height = page.evaluate("document.querySelector('.grid2').getBoundingClientRect().bottom")
                    page.screenshot(path=str(out), full_page=True,
                                    clip={"x": 0, "y": 0, "width": a.width, "height": height + 16})
                else:
                    page.screenshot(path=str(out))
                # 256 colours are plenty for flat pages and keep the files small.
                Image.open(out).convert("RGB").quantize(colors=256).save(out, optimize=True)
                print(out)
            browser.close()
    finally:
        proc.terminate()
        proc.wait(timeout=10)


if __name__ == "__main__":
    main()
