"""Measure the URL pairing-key matcher (Kit & Ng, sections 3-4) on a site with a gold standard.

    python benchmarks/url_keys_eval.py DATA_DIR [--top 15] [--timing 10000,100000]

DATA_DIR has pages.tsv (url TAB lang) and gold.tsv (lang1 url1 lang2 url2), e.g.
../shared/data/w3c-i18n.  The index is built from pages.tsv twice, without and with the page
languages; for each run the top keys are printed and the pairs are scored with
../shared/bench/score.py (pairs written best score first, languages taken from pages.tsv because
score.py needs them).  --timing also times add() and recompute() on synthetic sites of the given
sizes: "mixed" (ten languages in path, file and query slots, 10% random paths) and "dense" (a
bilingual blog whose month directories are 25-member slug slots).
"""

from __future__ import annotations

import argparse
import random
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from matchers.site.url_keys import UrlKeyIndex  # noqa: E402

SCORE = ROOT.parent / "shared" / "bench" / "score.py"


def read_pages(path: Path) -> list[tuple[str, str]]:
    rows = []
    for line in path.read_text(encoding="utf-8").splitlines():
        parts = line.split("\t")
        if len(parts) >= 2 and not parts[0].lower().startswith("url"):
            rows.append((parts[0], parts[1]))
    return rows


def evaluate(pages: list[tuple[str, str]], gold: Path, with_langs: bool, top: int) -> None:
    index = UrlKeyIndex()
    t0 = time.perf_counter()
    for url, lang in pages:
        index.add(url, lang if with_langs else None)
    t1 = time.perf_counter()
    index.recompute()
    t2 = time.perf_counter()
    print(f"== {'with' if with_langs else 'without'} languages: {len(pages)} URLs, threshold "
          f"{index.threshold():.1f}, add {1000 * (t1 - t0):.1f} ms, recompute {1000 * (t2 - t1):.1f} ms")
    for row in index.rows()[:top]:
        text = row.key if len(row.key) <= 70 else row.key[:67] + "..."
        print(f"  {text:72s} {row.field:5s} power {row.power:5d}  generalized {row.generalized}")
    print("  strongest plain keys: " + ", ".join(f"{k.text} ({k.power})" for k in index.candidate_keys()[:top]))
    rejected = index.rejected_keys()
    print(f"  {len(rejected)} keys dropped by competition, strongest: "
          + ", ".join(f"{r.key.text} ({r.key.power}, {r.reason})" for r in rejected[:5]))
    lang_of = dict(pages)
    scored = sorted(((index.key_score(a, b), a, b) for a, b, _ in index.pairs()), key=lambda s: (-s[0], s[1], s[2]))
    with tempfile.TemporaryDirectory() as tmp:
        pred = Path(tmp) / "pred.tsv"
        pred.write_text("".join(f"{lang_of[a]}\t{a}\t{lang_of[b]}\t{b}\t{s:.6f}\n" for s, a, b in scored),
                        encoding="utf-8")
        report = subprocess.run([sys.executable, str(SCORE), str(gold), str(pred)],
                                check=True, capture_output=True, text=True).stdout
    print(f"  {len(scored)} pairs; " + report.strip().splitlines()[-1])


def synthetic_site(n: int, seed: int = 0) -> list[str]:
    """A multilingual site: language as a path segment, a file suffix or a query value; 10% of the
    URLs are random paths.  Every page exists in a random subset of the languages."""
    rnd = random.Random(seed)
    langs = ["en", "fr", "de", "es", "it", "nl", "pt", "pl", "ru", "zh"]
    words = [f"w{i}" for i in range(2000)]
    urls: list[str] = []
    while len(urls) < n:
        if rnd.random() < 0.1:
            urls.append("https://example.org/" + "/".join(f"{rnd.getrandbits(40):x}" for _ in range(3)))
            continue
        slug = "-".join(rnd.sample(words, 3))
        section = rnd.choice(["news", "docs", "about", "blog"])
        shape, page_id = rnd.randrange(3), rnd.getrandbits(20)
        for lang in rnd.sample(langs, rnd.randint(1, len(langs))):
            if shape == 0:
                urls.append(f"https://example.org/{lang}/{section}/{slug}.html")
            elif shape == 1:
                urls.append(f"https://example.org/{section}/{slug}.{lang}.html")
            else:
                urls.append(f"https://example.org/{section}/page.php?id={page_id}&lang={lang}")
    return urls[:n]


def dense_blog(n: int, seed: int = 0) -> list[str]:
    """A bilingual blog, /lang/year/month/slug.html with 25 posts a month: every month directory is
    a 25-member slug slot, so about 6 slug pairs per URL are enumerated (a costly shape)."""
    rnd = random.Random(seed)
    urls: list[str] = []
    month = 0
    while len(urls) < n:
        month += 1
        for _ in range(25):
            slug = f"{rnd.choice(['alpha', 'beta', 'gamma', 'delta'])}-{rnd.getrandbits(24):x}"
            urls += [f"https://blog.example.com/{lang}/{2000 + month // 12}/{month % 12 + 1}/{slug}.html"
                     for lang in ("en", "fr")]
    return urls[:n]


def timing(sizes: list[int]) -> None:
    for name, make in (("mixed", synthetic_site), ("dense", dense_blog)):
        for n in sizes:
            urls = make(n)
            index = UrlKeyIndex()
            t0 = time.perf_counter()
            for url in urls:
                index.add(url)
            t1 = time.perf_counter()
            index.recompute()
            t2 = time.perf_counter()
            print(f"timing {name} {n:7d} URLs: add {t1 - t0:6.2f} s ({1e6 * (t1 - t0) / n:.1f} us/URL), "
                  f"recompute {t2 - t1:6.2f} s, {len(index.candidate_keys())} keys counted, "
                  f"{len(index.rows())} accepted, {len(index.pairs())} pairs")


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("data", type=Path)
    ap.add_argument("--top", type=int, default=15)
    ap.add_argument("--timing", default="", help="comma-separated synthetic site sizes, e.g. 10000,100000")
    a = ap.parse_args()
    pages = read_pages(a.data / "pages.tsv")
    for with_langs in (False, True):
        evaluate(pages, a.data / "gold.tsv", with_langs, a.top)
    if a.timing:
        timing([int(x) for x in a.timing.split(",")])


if __name__ == "__main__":
    main()
