"""CPU of the page parse (matchers.page.page_parse, what a parse worker does for each page), step
by step.

Reads every HTML page of a site folder (``www/`` of the layout ``serve.py`` serves) or of a
generated two-language site like the one of ``bench_crawl_overhead.py``, parses them in the
batches a worker gets (16 pages), and reports the wall time a page of the whole parse and of
each step (decoding and tree, page language, links, jusText's paragraphs, their languages, their
sentences, the content draft ...), each step's time measured around its call.  The pages are
parsed once before timing (fastText's model loaded, numba compiled, caches warm).  No timing is
asserted.

    .venv/bin/python benchmarks/bench_page_parse.py ../shared/data/w3c-i18n
    .venv/bin/python benchmarks/bench_page_parse.py --generated 500 [--repeat 3]
"""

from __future__ import annotations

import argparse
import statistics
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

import matchers.page.page_parse as page_parse  # noqa: E402
from bitext_spider.demo.site import generate_site  # noqa: E402
from matchers.page.language_id import LanguageIdentifier  # noqa: E402
from matchers.page.page_parse import ParseOptions  # noqa: E402

# The functions parse_pages calls, by the name page_parse imports them under.
STEPS = ("_markup", "page_language", "outlinks", "image_names", "follow_links", "canonical_link",
         "publication_day", "extract_paragraphs", "paragraph_language", "split_paragraph", "paragraph_keys",
         "draft_content")
BATCH = 16


def site_pages(root: Path) -> list[tuple[bytes, str, str]]:
    files = sorted(p for p in root.rglob("*") if p.is_file() and p.suffix in (".html", ".htm", ""))
    pages = [(p.read_bytes(), "text/html", "http://127.0.0.1:8000/" + p.relative_to(root).as_posix()) for p in files]
    return [p for p in pages if b"<" in p[0][:4096]]  # text files without markup are no pages


def timed_steps(spent: dict[str, float]) -> Callable[[], None]:
    """Wrap each step of page_parse to add its wall time to ``spent``; returns the undo."""
    originals = {name: getattr(page_parse, name) for name in STEPS}

    def wrap(name: str, f: Callable[..., Any]) -> Callable[..., Any]:
        def timed(*args: Any, **kwargs: Any) -> Any:
            t0 = time.perf_counter()
            try:
                return f(*args, **kwargs)
            finally:
                spent[name] += time.perf_counter() - t0
        return timed

    for name, f in originals.items():
        setattr(page_parse, name, wrap(name, f))

    def undo() -> None:
        for name, f in originals.items():
            setattr(page_parse, name, f)
    return undo


def run(pages: list[tuple[bytes, str, str]], repeat: int) -> tuple[list[float], dict[str, list[float]]]:
    language, options = LanguageIdentifier(), ParseOptions()
    page_parse.parse_pages(pages, options, language)  # warm-up
    totals: list[float] = []
    steps: dict[str, list[float]] = {name: [] for name in STEPS}
    for _ in range(repeat):
        spent = dict.fromkeys(STEPS, 0.0)
        undo = timed_steps(spent)
        try:
            t0 = time.perf_counter()
            for i in range(0, len(pages), BATCH):
                page_parse.parse_pages(pages[i:i + BATCH], options, language)
            totals.append((time.perf_counter() - t0) / len(pages) * 1e3)
        finally:
            undo()
        for name in STEPS:
            steps[name].append(spent[name] / len(pages) * 1e3)
    return totals, steps


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("site", nargs="?", type=Path, help="a site folder (its www/ is read)")
    ap.add_argument("--generated", type=int, default=0, help="documents per language of a generated en/fr site")
    ap.add_argument("--repeat", type=int, default=3)
    a = ap.parse_args()
    if (a.site is None) == (a.generated <= 0):
        raise SystemExit("give a site folder or --generated N")
    with tempfile.TemporaryDirectory() as tmp:
        if a.site is not None:
            www = a.site / "www" if (a.site / "www").is_dir() else a.site
            name = a.site.name
        else:
            generate_site(Path(tmp) / "site", base_url="http://127.0.0.1:8000", n_docs=a.generated,
                          langs=("en", "fr"), coverage=1.0, extras=False, seed=21)
            www, name = Path(tmp) / "site" / "www", f"generated en/fr, {a.generated} documents a language"
        pages = site_pages(www)
        if not pages:
            raise SystemExit(f"no HTML pages under {www}")
        totals, steps = run(pages, a.repeat)
    total = statistics.median(totals)
    print(f"{name}: {len(pages)} pages, {a.repeat} timed passes; ms a page (median of the passes)")
    print(f"| step | ms a page | share |\n|---|---|---|\n| **whole parse** | **{total:.2f}** "
          f"({', '.join(f'{t:.2f}' for t in totals)}) | 100% |")
    for step, values in sorted(steps.items(), key=lambda kv: -statistics.median(kv[1])):
        ms = statistics.median(values)
        print(f"| {step} | {ms:.3f} | {ms / total:.1%} |")


if __name__ == "__main__":
    main()
