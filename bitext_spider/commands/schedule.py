"""``bitext schedule``: shard a seeds file's sites over Scrapyd nodes, schedule, wait, report.

    bitext schedule --nodes http://n1:6800,http://n2:6800 --seeds list.txt [--langs en,fr]
                    [--db postgresql+psycopg://...] [--project bitext_spider] [-s NAME=VALUE ...]

A site is never split across nodes (its pages are compared with each other), so the unit of work
is the site: sites go to the node with the fewest sites so far, in seeds-file order. Each node
gets one job whose ``seeds`` argument lists its sites inline (``;`` between sites, spaces between
one site's hosts). All jobs write to the same database (``--db``; PostgreSQL for several nodes).
A site's pairs depend only on its own pages and the translation models stored when its job first
read them (``bitext_spider.store.model_registry``), so the result is the single-node run's: with
``--db`` the jobs keep their sites' training apart (``BITEXT_CONTENT_MODEL_FOLD=False``) and this
command folds it into the stored models once every job has ended, so that no job reads a model
another job of the same run has already changed. While the jobs run a progress line is printed; at the end
one line per node: its job, sites, pages and pairs (counted in the database when ``--db`` is
given, else read from the job's log) and whether the job failed (the spider's ``bitext job failed``
error line or ``bitext/failed`` stat, or a finish reason other than ``finished``; docs/deploy.md).
"""

from __future__ import annotations

import json
import re
import sys
import time
import urllib.error
import urllib.parse
import urllib.request
from dataclasses import dataclass, field
from typing import IO, Any

from bitext_spider.crawl.seeds import Site, load_seeds


class ScheduleError(RuntimeError):
    pass


@dataclass
class Shard:
    node: str
    sites: list[Site] = field(default_factory=list)
    job: str = ""
    state: str = "not scheduled"
    stats: dict[str, Any] = field(default_factory=dict)

    @property
    def seeds(self) -> str:
        return ";".join(" ".join(site.start_urls) for site in self.sites)


def shard_sites(sites: list[Site], nodes: list[str]) -> list[Shard]:
    """Whole sites to nodes, the next site to the node with the fewest so far (ties: node order)."""
    if not nodes:
        raise ScheduleError("no Scrapyd node given")
    shards = [Shard(node) for node in nodes]
    for site in sites:
        min(shards, key=lambda s: len(s.sites)).sites.append(site)
    return shards


def _call(node: str, endpoint: str, data: list[tuple[str, str]] | None = None, timeout: float = 30) -> Any:
    url = f"{node.rstrip('/')}/{endpoint}"
    body = urllib.parse.urlencode(data).encode() if data is not None else None
    try:
        with urllib.request.urlopen(url, data=body, timeout=timeout) as resp:  # noqa: S310 - user's node URL
            raw = resp.read()
    except (urllib.error.URLError, OSError) as exc:
        raise ScheduleError(f"{url}: {exc}") from exc
    if endpoint.split("?", 1)[0].endswith(".json"):
        answer = json.loads(raw)
        if answer.get("status") != "ok":
            raise ScheduleError(f"{url}: {answer.get('message', answer)}")
        return answer
    return raw.decode("utf-8", "replace")


_STAT = re.compile(r"'(bitext/(?:pages|pairs|failed)|finish_reason)': ('?[^,'\n}]*'?)")


def job_stats(log: str) -> dict[str, Any]:
    """The bitext stats Scrapy dumps at the end of a job's log."""
    stats: dict[str, Any] = {}
    for name, value in _STAT.findall(log):
        stats[name] = value.strip("'")
    return stats


def schedule(
    nodes: list[str],
    seeds_path: str,
    project: str = "bitext_spider",
    langs: str | None = None,
    db: str | None = None,
    settings: list[str] | None = None,
    poll: float = 2.0,
    timeout: float = 0,
    out: IO[str] | None = None,
) -> list[Shard]:
    out = out or sys.stderr
    report = load_seeds(seeds_path)
    for problem in report.problems:
        print(f"bitext: {problem}", file=out)
    shards = [s for s in shard_sites(report.sites, nodes) if s.sites]
    for shard in shards:
        fields = [("project", project), ("spider", "site"), ("seeds", shard.seeds)]
        if langs:
            fields.append(("langs", langs))
        if db:
            fields.append(("setting", f"BITEXT_DB_URL={db}"))
            fields.append(("setting", "BITEXT_CONTENT_MODEL_FOLD=False"))
        fields += [("setting", s) for s in settings or []]
        shard.job = _call(shard.node, "schedule.json", fields)["jobid"]
        shard.state = "pending"
        print(f"bitext: {shard.node}: job {shard.job}, {len(shard.sites)} sites", file=out)
    started = time.monotonic()
    while any(s.state != "finished" for s in shards):
        for node in {s.node for s in shards}:
            jobs = _call(node, f"listjobs.json?project={urllib.parse.quote(project)}")
            for shard in (s for s in shards if s.node == node):
                for state in ("pending", "running", "finished"):
                    if any(j.get("id") == shard.job for j in jobs.get(state, [])):
                        shard.state = state
        counts = {st: sum(s.state == st for s in shards) for st in ("pending", "running", "finished")}
        print(f"bitext: jobs {counts['pending']} pending, {counts['running']} running, "
              f"{counts['finished']} finished ({time.monotonic() - started:.0f} s)", file=out)
        if counts["finished"] == len(shards):
            break
        if timeout and time.monotonic() - started > timeout:
            raise ScheduleError(f"jobs not finished after {timeout:.0f} s")
        time.sleep(poll)
    for shard in shards:
        log = _call(shard.node, f"logs/{urllib.parse.quote(project)}/site/{shard.job}.log")
        shard.stats = job_stats(log)
        shard.stats["failed"] = "bitext job failed" in log or shard.stats.get("bitext/failed") not in (None, "0")
    if db:
        # The database is the record whatever the jobs' LOG_LEVEL: pages and pairs of each shard's sites.
        _counts_from_db(db, shards)
        folded = fold_models(db)
        print(f"bitext: folded {folded} site models into the translation models", file=out)
    return shards


def fold_models(db: str) -> int:
    """Fold every site's saved training into the stored translation models (``bitext db fold``)."""
    from bitext_spider.store.database import Store
    from bitext_spider.store.model_registry import ModelRegistry

    store = Store(db)
    try:
        return ModelRegistry(store).fold()
    finally:
        store.close()


def _counts_from_db(db: str, shards: list[Shard]) -> None:
    from sqlalchemy import func, select
    from sqlalchemy.orm import Session

    from bitext_spider.store.database import Store
    from bitext_spider.store.models import PageRow, PairRow, SiteRow

    store = Store(db, create=False)
    try:
        with Session(store.engine) as s:
            ids = dict(s.execute(select(SiteRow.key, SiteRow.id)).all())
            pages = dict(s.execute(select(PageRow.site_id, func.count()).group_by(PageRow.site_id)).all())
            pairs = dict(s.execute(select(PairRow.site_id, func.count()).group_by(PairRow.site_id)).all())
    finally:
        store.close()
    for shard in shards:
        site_ids = [ids[site.key] for site in shard.sites if site.key in ids]
        shard.stats["bitext/pages"] = sum(pages.get(i, 0) for i in site_ids)
        shard.stats["bitext/pairs"] = sum(pairs.get(i, 0) for i in site_ids)


def report(shards: list[Shard], out: IO[str]) -> int:
    """One line per node; 1 when a job failed."""
    failed = 0
    for s in shards:
        reason = s.stats.get("finish_reason")
        bad = bool(s.stats.get("failed")) or (reason is not None and not str(reason).startswith("finished"))
        failed += bad
        print(
            f"{s.node}\tjob {s.job}\t{len(s.sites)} sites\tpages {s.stats.get('bitext/pages', 0)}\t"
            f"pairs {s.stats.get('bitext/pairs', 0)}\t{'FAILED: ' + str(s.stats.get('finish_reason')) if bad else 'ok'}",
            file=out,
        )
    return 1 if failed else 0
