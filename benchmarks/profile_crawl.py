"""Where the time of a default crawl goes, per stage and per process, sampled with py-spy.

    pip install py-spy     # the sampling profiler (not a dependency of the project)
    python benchmarks/profile_crawl.py [--docs 4750] [--rate 50] [--out DIR] [-s SETTING=VALUE ...]
    python benchmarks/profile_crawl.py --langs en,fr,de,es,ja,ko,it,pt,nl,pl --docs 98 --seed 5
    python benchmarks/profile_crawl.py --site ../shared/data/w3c-i18n

Generates the benchmark site of docs/benchmarks.md (c) (``--docs`` documents in English and French,
seed 21: 10,076 pages at 4,750; ``--langs`` and ``--seed`` for another generated site, such as
the 10-language site of (h)), or takes a site folder (``--site``, served by
../shared/bench/serve.py), serves it from a separate process on 127.0.0.1, and runs
``scrapy crawl site`` with the default settings (plus ``-s`` ones) under
``py-spy record --subprocesses --format raw``, so the crawl process and its worker processes are
sampled alike (idle threads are not sampled: a sample is a thread running Python or waiting in a
C call).  Each sampled stack is put in the first category its frames match (the close-time steps,
then the stage whose pipeline module is on the stack, the writer thread, the page-parse and
structure workers, the rest of the crawl process), and the table gives samples, their share and
the CPU-seconds they stand for (samples / rate).  The crawl's own stats (``memusage/max``, the
stages' CPU-time stats) are printed below it.  ``--out`` keeps the raw stacks for a flame graph
(``flamegraph.pl stacks.txt``).

``--gil`` samples only the thread that holds its process's interpreter lock (``py-spy --gil``):
the crawl process's samples then add up to the time its lock was held, which, set against the
crawl's wall time, says whether that lock paces the crawl and which thread holds it.
"""

from __future__ import annotations

import argparse
import re
import shutil
import subprocess
import sys
import tempfile
import time
from collections import Counter
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
BENCH = ROOT.parent / "shared" / "bench"
sys.path.insert(0, str(ROOT))

from bitext_spider.demo.loopback_server import free_port  # noqa: E402
from bitext_spider.demo.site import generate_site  # noqa: E402

CRAWL_SETTINGS = [
    "-s", "AUTOTHROTTLE_ENABLED=False", "-s", "CONCURRENT_REQUESTS=32", "-s", "CONCURRENT_REQUESTS_PER_DOMAIN=32",
    "-s", "LOG_LEVEL=INFO", "-s", "BITEXT_LOGSTATS_INTERVAL=0",
]

# (category, substring of a frame's file): the first category any frame of a stack matches wins.
CATEGORIES: tuple[tuple[str, str], ...] = (
    ("close: decision", "matchers/site/site_decision.py"),
    ("close: content re-judging, sweep, sentences", "resolution.py"),
    ("close: one-to-one and final pairs", "crawl/pair_flow.py"),
    ("worker: structure filter", "workers/structure_worker.py"),
    ("worker: page parse", "workers/parse_worker.py"),
    ("stage: content filter", "matchers/content/content_filter.py"),
    ("stage: dictionary filter", "matchers/content/dictionary_judge.py"),
    ("stage: structure filter (crawl process)", "matchers/structure/structure_filter.py"),
    ("writer thread (database)", "store/writer.py"),
    ("stage: page parse (crawl process)", "matchers/page/page_parse.py"),
)
STAGE_FILE = re.compile(r"\((pipelines/\w+\.py):")


def categorize(stack: str) -> str:
    for name, needle in CATEGORIES:
        if needle in stack:
            return name
    # A worker process's stack starts in the channel's _worker_main (py-spy names every process
    # of the tree by the crawl's pid): what is left there is the channel pickling the answers.
    if "_worker_main" in stack:
        return "worker: other (the channel's pickling)"
    # The innermost pipeline module: base.py's wrapper (pages_only) is on every stage's stack.
    stages = [f for f in STAGE_FILE.findall(stack) if f != "pipelines/base.py"]
    if stages:
        return f"stage: {stages[-1]}"
    return "crawl process: Scrapy, Twisted, the spider"


def tabulate(stacks: Path) -> Counter[str]:
    samples: Counter[str] = Counter()
    for line in stacks.read_text(encoding="utf-8", errors="replace").splitlines():
        stack, _, count = line.rpartition(" ")
        if count.isdigit():
            samples[categorize(stack)] += int(count)
    return samples


def print_table(samples: Counter[str], rate: int) -> None:
    total = sum(samples.values()) or 1
    print(f"{total} samples at {rate}/s ({total / rate:.1f} s of running threads)")
    print("| where | samples | share | CPU-s |")
    print("|---|---|---|---|")
    for name, n in samples.most_common():
        print(f"| {name} | {n} | {n / total:.1%} | {n / rate:.1f} |")
    crawl = sum(n for name, n in samples.items() if not name.startswith("worker:"))
    print(f"crawl process: {crawl} samples ({crawl / rate:.1f} s; with --gil, the time its GIL was held)")


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--docs", type=int, default=4750, help="documents per language of the generated site")
    ap.add_argument("--langs", default="en,fr", help="comma-separated languages of the generated site")
    ap.add_argument("--seed", type=int, default=21, help="the generated site's seed")
    ap.add_argument("--site", type=Path, help="a site folder (hosts.tsv, seeds.txt) instead of a generated site")
    ap.add_argument("--rate", type=int, default=50, help="samples per second per thread")
    ap.add_argument("--out", type=Path, help="keep the raw stacks and the crawl log here")
    ap.add_argument("-s", dest="settings", action="append", default=[], help="Scrapy setting NAME=VALUE")
    ap.add_argument("--stacks", type=Path, help="only tabulate a kept stacks.txt (no crawl)")
    ap.add_argument("--gil", action="store_true", help="sample only the thread holding each process's GIL")
    a = ap.parse_args()
    if a.stacks:
        samples = tabulate(a.stacks)
        print_table(samples, a.rate)
        return
    py_spy = shutil.which("py-spy") or str(Path(sys.executable).with_name("py-spy"))
    if not Path(py_spy).exists():
        raise SystemExit("py-spy is not installed: pip install py-spy")
    with tempfile.TemporaryDirectory() as tmp:
        tmp_path = Path(tmp)
        out = a.out or tmp_path
        out.mkdir(parents=True, exist_ok=True)
        if a.site is not None:
            site = a.site.resolve()
            seeds = site / "seeds.txt"
            server = subprocess.Popen([sys.executable, str(BENCH / "serve.py"), str(site), "--for", "7200"],
                                      cwd=ROOT, stdout=subprocess.DEVNULL)
            label = site.name
        else:
            port = free_port()
            langs = tuple(a.langs.split(","))
            info = generate_site(tmp_path / "site", base_url=f"http://127.0.0.1:{port}", n_docs=a.docs,
                                 langs=langs, coverage=1.0, extras=False, seed=a.seed)
            seeds = info.seeds_path
            server = subprocess.Popen([sys.executable, "-m", "bitext_spider.demo.loopback_server",
                                       str(tmp_path / "site"), "--port", str(port), "--for", "7200"],
                                      cwd=ROOT, stdout=subprocess.DEVNULL)
            label = f"{info.page_count} pages ({', '.join(langs)})"
        time.sleep(1.0)
        stacks, log = out / "stacks.txt", out / "crawl.log"
        extra = [x for s in a.settings for x in ("-s", s)]
        cmd = [py_spy, "record", "--subprocesses", "--format", "raw", "-r", str(a.rate), "-o", str(stacks),
               *(["--gil"] if a.gil else []), "--",
               sys.executable, "-m", "scrapy", "crawl", "site", "-a", f"seeds={seeds}",
               "-s", f"BITEXT_DB_URL=sqlite:///{tmp_path / 'crawl.db'}", *CRAWL_SETTINGS, *extra]
        try:
            t0 = time.perf_counter()
            with log.open("w") as fh:
                subprocess.run(cmd, cwd=ROOT, stdout=fh, stderr=subprocess.STDOUT, check=True)
            wall = time.perf_counter() - t0
        finally:
            server.terminate()
            server.wait()
        samples = tabulate(stacks)
        text = log.read_text(encoding="utf-8", errors="replace")
    print(f"site: {label}; crawl under py-spy: {wall:.1f} s wall")
    print_table(samples, a.rate)
    for key in ("memusage/max", "memusage/startup", "bitext/pages", "bitext/pairs", "bitext/time/structure_cpu_ms",
                "bitext/time/content_cpu_ms", "elapsed_time_seconds"):
        m = re.search(rf"'{re.escape(key)}': ([\d.]+)", text)
        if m:
            value = float(m.group(1))
            shown = f"{value / 2**20:.0f} MB" if key.startswith("memusage") else f"{value:g}"
            print(f"{key}: {shown}")


if __name__ == "__main__":
    main()
