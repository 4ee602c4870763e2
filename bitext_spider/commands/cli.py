"""The ``bitext`` command: read the crawl database, evaluate it, and run the bundled offline demo.

    bitext export pairs|candidates|pages|keys [--db URL] [--format tsv|jsonl] [-o FILE[.gz]]
    bitext export sentences [--db URL] [--format tsv|jsonl|bitextor|tmx|moses] [--langs L1-L2]
                            [--min-score X] [-o PATH[.gz]]
    bitext export documents [--db URL] --format cesdoc [-o DIR | -o FILE.xml[.gz]]
    bitext eval --db URL --gold GOLD.tsv [--crawled] [--gold-sentences FILE] [--langs en,fr] [--json]
    bitext resolve --db URL [--set NAME=VALUE ...]
    bitext demo [--dir DIR] [--docs N] [--langs en,fr,de,es]
    bitext mine-warc FILE.warc.gz [FILE ...] --db URL [--seeds FILE] [--langs en,fr] [-s NAME=VALUE ...]
    bitext view --db URL [--host 127.0.0.1] [--port 8088] [--annotate]
    bitext export gold --db URL [-o FILE]
"""

from __future__ import annotations

import argparse
import json
import os
import re
import sys
from collections.abc import Sequence
from pathlib import Path
from urllib.parse import urlsplit

from sqlalchemy import inspect, select
from sqlalchemy.exc import SQLAlchemyError
from sqlalchemy.orm import Session

from bitext_spider.commands import evaluation
from bitext_spider.commands.db_cli import DEFAULT_DB
from bitext_spider.store import corpus_export
from bitext_spider.store.database import Store
from bitext_spider.store.models import PageRow, current_revision, head_revision
from bitext_spider.store.open_errors import describe as describe_database_error
from bitext_spider.store.open_errors import safe_url
from bitext_spider.store.output import open_output
from bitext_spider.store.table_export import export
from bitext_spider.user_errors import UserError
from matchers.page.lang_codes import primary_subtag


def db_url(value: str) -> str:
    """Accept a SQLAlchemy URL or a plain path to a SQLite file."""
    return value if "://" in value else f"sqlite:///{value}"


def _fail(message: str) -> int:
    print(f"bitext: {message}", file=sys.stderr)
    return 2


def _open_store(db: str) -> Store | None:
    """The store at ``db``, or None (after one stderr line) when a SQLite file does not exist."""
    url = db_url(db)
    if url.startswith("sqlite:///") and not Path(url.removeprefix("sqlite:///")).exists():
        _fail(f"no database at {url}")
        return None
    try:
        store = Store(url, create=False)
    except Exception as exc:  # a URL SQLAlchemy cannot read, a driver that is not installed
        _fail(describe_database_error(url, exc))
        return None
    try:
        tables = inspect(store.engine).get_table_names()  # fails now, not after a header was printed
        with store.engine.connect() as conn:
            current = current_revision(conn) if "alembic_version" in tables else None
    except SQLAlchemyError as exc:
        store.close()
        _fail(describe_database_error(url, exc))
        return None
    head = head_revision()
    if current is not None and current != head:
        # An older schema lacks columns the readers select: say so instead of an SQL error.
        store.close()
        _fail(f"the database {safe_url(url)} has schema revision {current}; this version reads {head}: "
              f"run 'bitext db upgrade --db {safe_url(url)}' first (a crawl on it upgrades it too)")
        return None
    return store


def cmd_export(args: argparse.Namespace) -> int:
    if args.what == "sentences":
        return cmd_export_sentences(args)
    if args.what == "documents":
        return cmd_export_documents(args)
    if args.what == "dictionary":
        return cmd_export_dictionary(args)
    if args.what == "gold":
        return cmd_export_gold(args)
    if args.langs:
        return _fail("--langs is only for sentences")
    if args.format not in ("tsv", "jsonl"):
        return _fail(f"--format {args.format} is only for sentences; {args.what} take tsv or jsonl")
    if args.min_score is not None:
        return _fail("--min-score is only for sentences")
    store = _open_store(args.db)
    if store is None:
        return 2
    try:
        with open_output(args.output) as fh:
            n = export(store, args.what, args.format, fh)
    except BrokenPipeError:
        raise  # the reader went away: main() ends quietly
    except Exception as exc:  # an unreadable database gets one clear line, not a traceback
        return _fail(describe_database_error(store.url, exc))
    finally:
        store.close()
    print(f"bitext: {n} {args.what} exported", file=sys.stderr)
    return 0


def _write_sentences(store: Store, args: argparse.Namespace) -> int:
    pairs = corpus_export.read_sentence_pairs(store.engine, args.min_score)
    if args.langs:
        lang1, lang2 = args.langs.split("-")
        pairs = corpus_export.select_langs(pairs, lang1, lang2)
    if args.format == "moses":
        written = corpus_export.write_moses(pairs, args.output)
        for path, _lines in written:
            print(path)
        return sum(n for _path, n in written) // 2  # two files per language pair, one line per pair each
    if args.format == "tmx":
        with open_output(args.output, binary=True) as fh:
            return corpus_export.write_tmx(pairs, fh)
    write = {
        "tsv": corpus_export.write_tsv,
        "jsonl": corpus_export.write_jsonl,
        "bitextor": corpus_export.write_bitextor,
    }[args.format]
    with open_output(args.output) as fh:
        return write(pairs, fh)


def cmd_export_gold(args: argparse.Namespace) -> int:
    """The viewer's corrections as a gold standard (bitext_spider.commands.view)."""
    from bitext_spider.commands.view import export_gold

    if args.format != "tsv" or args.langs or args.min_score is not None:
        return _fail("gold is written as TSV: --format, --langs and --min-score do not apply")
    store = _open_store(args.db)
    if store is None:
        return 2
    try:
        with open_output(args.output) as fh:
            n = export_gold(store, fh)
    except BrokenPipeError:
        raise
    except Exception as exc:  # an unreadable database gets one clear line, not a traceback
        return _fail(describe_database_error(store.url, exc))
    finally:
        store.close()
    print(f"bitext: {n} gold pairs exported", file=sys.stderr)
    return 0


def cmd_view(args: argparse.Namespace) -> int:
    from bitext_spider.commands.view import serve

    store = _open_store(args.db)
    if store is None:
        return 2
    try:
        return serve(store, args.host, args.port, args.annotate)
    finally:
        store.close()


def cmd_export_documents(args: argparse.Namespace) -> int:
    """ILSP-FC's per-document XML (bitext_spider.store.cesdoc_export)."""
    if args.format not in ("cesdoc", "tsv"):  # tsv: --format left out
        return _fail("documents are exported as --format cesdoc")
    if args.langs or args.min_score is not None:
        return _fail("--langs and --min-score are only for sentences")
    from bitext_spider.store import cesdoc_export

    store = _open_store(args.db)
    if store is None:
        return 2
    try:
        docs, pairs = cesdoc_export.write_documents(store, args.output)
    except BrokenPipeError:
        raise
    except Exception as exc:  # an unreadable database gets one clear line, not a traceback
        return _fail(describe_database_error(store.url, exc))
    finally:
        store.close()
    print(f"bitext: {docs} documents and {pairs} pairs exported", file=sys.stderr)
    return 0


def cmd_export_dictionary(args: argparse.Namespace) -> int:
    """The word translations the stored model of ``--langs`` learnt, in Bitextor's format."""
    # numba-compiled code: only this subcommand pays for loading it.
    from matchers.content.learned_dictionary import write_dictionary
    from matchers.content.translation_model import TranslationModel

    if not args.langs or not _LANG_PAIR.fullmatch(args.langs):
        return _fail("export dictionary needs --langs L1-L2 (the dictionary's header order), e.g. en-fi")
    if args.format != "tsv":
        return _fail("a dictionary is written in Bitextor's format (tab-separated): leave --format out")
    lang1, lang2 = args.langs.split("-")
    store = _open_store(args.db)
    if store is None:
        return 2
    try:
        row = store.model_row(*sorted((lang1, lang2)))
        if row is None or not row.state:
            return _fail(f"no stored {lang1}-{lang2} translation model in {safe_url(store.url)}: a crawl "
                         f"stores one once it pairs pages of those languages")
        model = TranslationModel.from_bytes(row.state)
        with open_output(args.output) as fh:
            n = write_dictionary(model, lang1 if lang1 in (model.lang1, model.lang2) else model.lang1, fh,
                                 min_prob=args.min_prob)
    except SQLAlchemyError as exc:
        return _fail(describe_database_error(store.url, exc))
    except OSError as exc:
        return _fail(f"cannot write: {exc}")
    finally:
        store.close()
    print(f"bitext: {n} word pairs exported (model of {model.sentences_seen} sentence pairs)", file=sys.stderr)
    return 0


# Two codes joined by "-"; a code's own subtags take "_" (pt_BR-en), as a hyphen would make the
# split ambiguous (pt-br-en: Portuguese-English or Portuguese-Breton?).
_LANG_PAIR = re.compile(r"[A-Za-z]{2,3}(?:_[A-Za-z0-9]+)*-[A-Za-z]{2,3}(?:_[A-Za-z0-9]+)*")


def cmd_export_sentences(args: argparse.Namespace) -> int:
    if args.langs:
        if not _LANG_PAIR.fullmatch(args.langs):
            return _fail(f"--langs takes a language pair: two codes joined by '-', such as en-fr or pt_BR-en, "
                         f"got {args.langs!r}")
        lang1, lang2 = args.langs.split("-")
        if primary_subtag(lang1) == primary_subtag(lang2):
            return _fail(f"--langs takes a language pair of two different languages, got {args.langs!r}")
    if args.format == "moses" and not args.output:
        return _fail("--format moses needs -o PREFIX (files PREFIX.<l1>-<l2>.<l1> and .<l2> are written)")
    store = _open_store(args.db)
    if store is None:
        return 2
    try:
        n = _write_sentences(store, args)
    except SQLAlchemyError as exc:
        return _fail(describe_database_error(store.url, exc))
    except BrokenPipeError:
        raise  # the reader went away: main() ends quietly
    except OSError as exc:
        return _fail(f"cannot write: {exc}")
    finally:
        store.close()
    print(f"bitext: {n} sentence pairs exported", file=sys.stderr)
    return 0


def _evaluate(
    store: Store, args: argparse.Namespace, langs: frozenset[str] | None
) -> tuple[evaluation.PairScores, evaluation.SentenceScores | None]:
    gold = evaluation.read_gold_pairs(args.gold)
    gold_sentences = evaluation.read_gold_sentences(args.gold_sentences) if args.gold_sentences else None
    predicted = [evaluation.LinkedPair(r.lang1, r.url1, r.lang2, r.url2, r.score) for r in store.pairs()]
    crawled = None
    if args.crawled:
        with Session(store.engine) as s:
            crawled = set(s.scalars(select(PageRow.url)))
    pair_scores = evaluation.score_pairs(gold, predicted, langs=langs, crawled=crawled)
    if gold_sentences is None:
        return pair_scores, None
    exported = (
        (p.text1, p.text2)
        for p in corpus_export.read_sentence_pairs(store.engine)
        if not langs or frozenset((primary_subtag(p.lang1), primary_subtag(p.lang2))) == langs
    )
    return pair_scores, evaluation.score_sentences(gold_sentences, exported)


def cmd_eval(args: argparse.Namespace) -> int:
    try:
        langs = evaluation.parse_langs(args.langs) if args.langs else None
    except ValueError as exc:
        return _fail(str(exc))
    for path in (args.gold, args.gold_sentences):
        if path and not Path(path).is_file():
            return _fail(f"no gold file at {path}")
    store = _open_store(args.db)
    if store is None:
        return 2
    try:
        pair_scores, sentence_scores = _evaluate(store, args, langs)
    except evaluation.GoldFormatError as exc:
        return _fail(str(exc))
    except (OSError, UnicodeDecodeError) as exc:
        return _fail(f"cannot read the gold file: {exc}")
    except SQLAlchemyError as exc:
        return _fail(describe_database_error(store.url, exc))
    finally:
        store.close()
    if not args.json:
        print(evaluation.format_report(pair_scores, sentence_scores))
        return 0
    result = pair_scores.as_dict()
    if sentence_scores is not None:
        result["sentences"] = sentence_scores.as_dict()
    print(json.dumps(result, indent=1))
    return 0


def cmd_explain(args: argparse.Namespace) -> int:
    from bitext_spider.commands.explain import explain

    store = _open_store(args.db)
    if store is None:
        return 2
    try:
        return explain(store, args.url1, args.url2, sys.stdout)
    except Exception as exc:  # an unreadable database gets one clear line, not a traceback
        return _fail(describe_database_error(store.url, exc))
    finally:
        store.close()


def cmd_resolve(args: argparse.Namespace) -> int:
    """Resolve the stored candidates of every site into final pairs, as a crawl's close does."""
    from scrapy.utils.project import get_project_settings

    from bitext_spider.config import BitextConfig
    from bitext_spider.crawl.seeds import Site
    from bitext_spider.resolution import DictionaryConfigError
    from bitext_spider.runtime import BitextRuntime, Stats

    url = db_url(args.db)
    if url.startswith("sqlite:///") and not Path(url.removeprefix("sqlite:///")).exists():
        return _fail(f"no database at {url}")
    # The settings a crawl from here would have (the project's, then -s style overrides), so
    # the same steps run with the same values.
    settings = get_project_settings().copy()
    # Where the add-on is not named by the project (the settings of a checkout outside a project
    # included), the stages it would turn on are the ones a crawl would have.
    from bitext_spider.addon import BitextAddon

    BitextAddon().update_settings(settings)
    for item in args.set:
        name, sep, value = item.partition("=")
        if not sep or not name:
            return _fail(f"--set takes NAME=VALUE, got {item!r}")
        settings.set(name, value, priority="cmdline")
    settings.set("BITEXT_DB_URL", url, priority="cmdline")
    try:
        config = BitextConfig.from_settings(settings)
    except ValueError as exc:
        return _fail(str(exc))
    stats = Stats()
    try:
        runtime = BitextRuntime(None, config=config, stats=stats)
    except UserError as exc:  # the database cannot be opened, or a crawl is writing it
        return _fail(str(exc))
    try:
        # The close-time steps the settings turn on (loading BITEXT_DICTIONARY may fail).
        resolver = runtime.resolver
        for _site_id, key, start_urls in runtime.store.sites():
            hosts = frozenset(urlsplit(u).netloc.lower() for u in start_urls)
            runtime.open_site(Site(key, tuple(start_urls), hosts))
        total = runtime.resolve()
    except DictionaryConfigError as exc:
        return _fail(f"BITEXT_DICTIONARY: {exc}")
    finally:
        runtime.close()
    by_langs = ", ".join(f"{langs} {n}" for langs, n in sorted(total.items()))
    print(f"bitext: {sum(total.values())} pairs from {len(runtime.sites)} sites"
          + (f" ({by_langs})" if by_langs else "") + f"; steps: {', '.join(resolver.steps())}",
          file=sys.stderr)
    if stats.get_value("bitext/errors/close_step") or stats.get_value("bitext/errors/models"):
        print("bitext: a close step failed (see the messages above)", file=sys.stderr)
        return 1
    return 0


def cmd_schedule(args: argparse.Namespace) -> int:
    from bitext_spider.commands.schedule import ScheduleError, report, schedule
    from bitext_spider.crawl.seeds import SeedsError

    nodes = [n.strip() for n in args.nodes.split(",") if n.strip()]
    try:
        shards = schedule(nodes, args.seeds, project=args.project, langs=args.langs, db=args.db,
                          settings=args.settings, timeout=args.timeout)
    except (ScheduleError, SeedsError) as exc:
        return _fail(str(exc))
    return report(shards, sys.stdout)


def cmd_demo(args: argparse.Namespace) -> int:
    from bitext_spider.demo.run import run_demo

    return run_demo(
        workdir=Path(args.dir),
        n_docs=args.docs,
        langs=[x.strip() for x in args.langs.split(",") if x.strip()],
    )


def build_parser() -> argparse.ArgumentParser:
    ap = argparse.ArgumentParser(
        prog="bitext", description="Read and evaluate the bitext crawl database; run the demo."
    )
    sub = ap.add_subparsers(dest="command", required=True)
    ex = sub.add_parser("export", help="print pairs, candidates, pages or the sentence corpus")
    ex.add_argument("what", choices=["pairs", "candidates", "pages", "sentences", "keys", "dictionary", "documents",
                                     "gold"])
    ex.add_argument("--db", default=DEFAULT_DB, help="SQLAlchemy URL or SQLite file path")
    ex.add_argument("--format", choices=["tsv", "jsonl", "tmx", "moses", "bitextor", "cesdoc"], default="tsv",
                    help="tmx, moses and bitextor: sentences only; cesdoc: documents only (ILSP-FC's XML, "
                         "-o DIR for a file per document)")
    ex.add_argument("--min-score", type=float, metavar="X",
                    help="sentences: keep those scoring at least this")
    ex.add_argument("--min-prob", type=float, default=0.2, metavar="P",
                    help="dictionary: keep word pairs whose learnt probability is at least P both ways")
    ex.add_argument("--langs", metavar="L1-L2",
                    help="sentences only: this language pair, L1 first (e.g. en-fr, pt_BR-en)")
    ex.add_argument("-o", "--output", metavar="PATH",
                    help="write to this file instead of standard output, gzipped if it ends in .gz "
                         "(moses: file name prefix, required)")
    ex.set_defaults(func=cmd_export)
    ev = sub.add_parser("eval", help="precision and recall of the final pairs against a gold standard")
    ev.add_argument("--db", default=DEFAULT_DB, help="SQLAlchemy URL or SQLite file path")
    ev.add_argument("--gold", required=True, metavar="GOLD.tsv",
                    help="TSV: lang1 TAB url1 TAB lang2 TAB url2")
    ev.add_argument("--crawled", action="store_true",
                    help="count only gold pairs whose two URLs are stored pages in the database")
    ev.add_argument("--gold-sentences", metavar="FILE",
                    help="TSV: text1 TAB text2; scores the exported sentence pairs")
    ev.add_argument("--langs", metavar="L1,L2", help="only this language pair, e.g. en,fr")
    ev.add_argument("--json", action="store_true", help="print one JSON object")
    ev.set_defaults(func=cmd_eval)
    xp = sub.add_parser("explain", help="print every piece of evidence about two pages and the decision")
    xp.add_argument("url1")
    xp.add_argument("url2")
    xp.add_argument("--db", default=DEFAULT_DB, help="SQLAlchemy URL or SQLite file path")
    xp.set_defaults(func=cmd_explain)
    rs = sub.add_parser("resolve", help="resolve the stored candidates into final pairs, without crawling "
                        "(after a killed crawl, or with other settings)")
    rs.add_argument("--db", default=DEFAULT_DB, help="SQLAlchemy URL or SQLite file path")
    rs.add_argument("--set", action="append", default=[], metavar="NAME=VALUE",
                    help="a setting, as `scrapy crawl -s` takes it (e.g. BITEXT_DICTIONARY=en-fr.dic)")
    rs.set_defaults(func=cmd_resolve)
    from bitext_spider.commands import db_cli, mine_warc

    db_cli.add_parser(sub)
    mine_warc.add_parser(sub)
    from bitext_spider.commands import view

    view.add_parser(sub).set_defaults(func=cmd_view)
    sc = sub.add_parser("schedule", help="shard the seeds' sites over Scrapyd nodes, run them, report per node")
    sc.add_argument("--nodes", required=True, help="comma-separated Scrapyd URLs, e.g. http://n1:6800,http://n2:6800")
    sc.add_argument("--seeds", required=True, help="seeds file (one site a line)")
    sc.add_argument("--langs", help="languages of interest, e.g. en,fr")
    sc.add_argument("--db", help="BITEXT_DB_URL for every job (one PostgreSQL database for several nodes)")
    sc.add_argument("--project", default="bitext_spider", help="Scrapyd project name (scrapy.cfg [deploy])")
    sc.add_argument("-s", dest="settings", action="append", default=[], metavar="NAME=VALUE",
                    help="a Scrapy setting for every job")
    sc.add_argument("--timeout", type=float, default=0, help="give up after this many seconds (0: wait)")
    sc.set_defaults(func=cmd_schedule)
    demo = sub.add_parser("demo", help="generate a demo site, serve it on loopback, crawl it, print pairs")
    demo.add_argument("--dir", default="bitext-demo", help="where the demo site and database go")
    demo.add_argument("--docs", type=int, default=30, help="documents in the demo site")
    demo.add_argument("--langs", default="en,fr,de,es", help="languages of the demo site")
    demo.set_defaults(func=cmd_demo)
    return ap


def main(argv: Sequence[str] | None = None) -> int:
    args = build_parser().parse_args(argv)
    try:
        return int(args.func(args) or 0)
    except UserError as exc:
        return _fail(str(exc))
    except BrokenPipeError:
        # The reader went away (`bitext export ... | head`): that ends the export, quietly.  Standard
        # output is pointed at /dev/null so the interpreter's own flush at exit does not complain.
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, sys.stdout.fileno())
        return 0


if __name__ == "__main__":
    sys.exit(main())
