"""Throughput of `bitext schedule` on one Scrapyd node against two, sharing one PostgreSQL database.

Generates ``--sites`` demo sites of ``--docs`` documents each (en, fr), serves them on 127.0.0.1,
starts a throw-away PostgreSQL server and two Scrapyd nodes (as the tests do: tests/pg_server.py,
tests/scrapyd_server.py), builds and uploads the egg, then runs the same seeds on one node and on
two, one after the other, and prints wall time and pages/s for each. Both nodes run on this
machine, so they share its cores: the figure says what a second node buys when the machine has
cores to spare, not what two machines do.

    python benchmarks/bench_scale_out.py [--sites 4] [--docs 300]
"""

from __future__ import annotations

import argparse
import sys
import tempfile
import time
from contextlib import ExitStack
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "tests"))

from pg_server import create_database, postgres_server  # noqa: E402
from scrapyd_server import scrapyd_server  # noqa: E402

from bitext_spider import cli  # noqa: E402
from bitext_spider.demo.loopback_server import free_port, serve_site  # noqa: E402
from bitext_spider.demo.site import generate_site  # noqa: E402
from bitext_spider.store.database import Store  # noqa: E402

SETTINGS = ["-s", "AUTOTHROTTLE_ENABLED=False", "-s", "CONCURRENT_REQUESTS=32", "-s", "LOG_LEVEL=WARNING"]


def build_egg(tmp: Path) -> Path:
    import shutil
    import subprocess

    src = tmp / "project"
    shutil.copytree(ROOT, src, ignore=shutil.ignore_patterns(".git", ".venv", "build", "*.egg-info", "__pycache__",
                                                              "*.db", "tests", "benchmarks", "docs"))
    out = tmp / "bitext_spider.egg"
    subprocess.run([sys.executable, "-m", "scrapyd_client.deploy", "--build-egg", str(out)], cwd=src, check=True,
                   capture_output=True)
    return out


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--sites", type=int, default=4)
    ap.add_argument("--docs", type=int, default=300)
    a = ap.parse_args()
    with tempfile.TemporaryDirectory() as tmpdir, ExitStack() as stack:
        tmp = Path(tmpdir)
        seeds = tmp / "seeds.txt"
        lines = []
        gold: set[frozenset[str]] = set()
        for i in range(a.sites):
            port = free_port()
            info = generate_site(tmp / f"site{i}", base_url=f"http://127.0.0.1:{port}", n_docs=a.docs,
                                 langs=("en", "fr"), seed=100 + i, coverage=1.0, extras=False)
            stack.enter_context(serve_site(tmp / f"site{i}", port=port))
            lines.append(f"{info.base_url}/")
            gold |= {frozenset((g[1], g[3])) for g in info.gold}
        seeds.write_text("\n".join(lines) + "\n", encoding="utf-8")
        egg = build_egg(tmp)
        server = stack.enter_context(postgres_server())
        nodes = [stack.enter_context(scrapyd_server(tmp / f"node{i}")) for i in range(2)]
        for node in nodes:
            node.post("addversion.json", [("project", "bitext_spider"), ("version", "1")],
                      files={"egg": ("project.egg", egg.read_bytes())})
        print(f"{a.sites} sites x {a.docs} documents (en, fr); one PostgreSQL; nodes on this machine")
        print("| nodes | wall s | pages | pages/s | pairs | pairs in the gold | pairs not in the one-node run "
              "| model sentence pairs stored |")
        print("|---|---|---|---|---|---|---|---|")
        first: set[frozenset[str]] | None = None
        for n in (1, 2):
            db = create_database(server)
            t0 = time.perf_counter()
            code = cli.main(["schedule", "--nodes", ",".join(node.url for node in nodes[:n]), "--seeds", str(seeds),
                             "--langs", "en,fr", "--db", db, *SETTINGS])
            wall = time.perf_counter() - t0
            store = Store(db, create=False)
            pages = sum(1 for _ in store.pages())
            pairs = {frozenset((r.url1, r.url2)) for r in store.pairs()}
            with store.engine.connect() as con:
                seen = con.exec_driver_sql("select coalesce(sum(sentences_seen), 0) from translation_models").scalar()
            store.close()
            first = pairs if first is None else first
            print(f"| {n} | {wall:.1f} | {pages} | {pages / wall:.1f} | {len(pairs)} | {len(pairs & gold)} "
                  f"| {len(pairs - first)} | {seen} |{'' if code == 0 else ' (a job failed)'}")


if __name__ == "__main__":
    main()
