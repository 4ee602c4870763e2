#!/usr/bin/env python3
"""Make a crawlable site of a W3C-like source under one of the messy URL schemes of the URL devsets.

    python benchmarks/make_url_scheme_site.py SRC DST --scheme query|numeric|multislot [--seed N] [--overwrite]
    python benchmarks/evaluate_site.py DST --keep scheme.db

SRC is a site folder laid out like ``../shared/data/w3c-i18n`` (``hosts.tsv`` with one host, the
document root, ``pages.tsv``, ``gold.tsv``, ``seeds.txt``), its pages named ``NAME.LANG.html``. Each
page of ``pages.tsv`` moves to the URL the devset of the same name gives it
(``benchmarks/url_devsets.py``, ``w3c_variant``: same documents, same seed, so the same URLs but for
the host):

  query       /index.php?page=DIR.STEM&lang=CODE, the two parameters in either order
  numeric     /content.asp?id=N&clang=M, documents and languages as numbers
  multislot   /LANGUAGE-NAME/DIR/STEM_CODE.html (the same site as make_opaque_site.py --lang-slots)

Everything else is make_opaque_site.py's ``--lang-slots`` rewriting (benchmarks/opaque_rewrite.py):
the other HTML files at random ``/p/<hex>.html`` paths (the root index stays), every internal link
rewritten to the new URLs, language attributes and language metas removed (``hreflang`` alternates
keep their href), so the crawl's languages are the identified ones; ``pages.tsv``, ``gold.tsv``,
``seeds.txt`` and ``mapping.tsv`` name the new URLs.

A page addressed by a query is written to a file named after its path and its sorted query
(``www/index.php?lang=fr&page=International.articles.x``), typed ``text/html`` in
``content-types.tsv``, and listed in ``query-files.tsv`` (URL TAB file). That file marks the site
for benchmarks/serve_site.py, which serves such files for the query in any parameter order;
benchmarks/evaluate_site.py starts it instead of ``../shared/bench/serve.py`` when it is there.
Deterministic: the output is a function of the input files, the scheme and ``seed``.
"""

from __future__ import annotations

import argparse
import re
import sys
from pathlib import Path
from urllib.parse import unquote, urljoin, urlsplit

# The generator's other modules sit beside it (it also runs as a plain script).
sys.path.insert(0, str(Path(__file__).resolve().parent))
from make_opaque_site import _prepare_dst  # noqa: E402
from opaque_markup import (  # noqa: E402
    _LANG_ATTRS,
    CONTENT_TYPES_FILE,
    DEAD_LINKS_FILE,
    MAPPING_FILE,
    OpaqueSite,
    _norm_path,
    _url_path,
)
from opaque_rewrite import _Opaquer  # noqa: E402
from serve_site import QUERY_FILES, query_file_name, resolve  # noqa: E402
from url_devsets import w3c_documents, w3c_variant  # noqa: E402

SCHEMES = ("query", "numeric", "multislot")


class _SchemeRewriter(_Opaquer):
    """The opaque rewriting with the pages of ``pages.tsv`` at their devset URLs.

    A page's new path is the file that serves it (its query sorted); the links name it by the URL
    the devset gives it, so the opaque code's URLs of these pages are mapped once more here."""

    def __init__(self, src: Path, dst: Path, seed: int, scheme: str) -> None:
        super().__init__(src, dst, seed, drop_alternates=False, hide_dirs=False, lang_slots=True)
        if scheme not in SCHEMES:
            raise ValueError(f"unknown scheme {scheme!r}; known: {', '.join(SCHEMES)}")
        self.scheme_files: dict[str, str] = {}  # old file path -> new file path (query sorted)
        self.links: dict[str, str] = {}  # new file path as the opaque code writes it -> linked URL
        docs = w3c_documents(src)
        for (url, _lang, _doc), entry in zip(docs, w3c_variant(scheme, seed, source=src), strict=True):
            new = urlsplit(entry.url)
            linked = new.path + (f"?{new.query}" if new.query else "")
            file = query_file_name(new.path, new.query)
            old = _norm_path(unquote(urlsplit(url).path))
            if file in self.scheme_files.values():
                raise ValueError(f"two pages of {src / 'pages.tsv'} get the URL {linked}")
            self.scheme_files[old] = file
            self.links[_url_path(file)] = linked

    def _lang_slot_path(self, path: str, lang: str) -> str:
        return self.scheme_files[path]

    def linked(self, url: str) -> str:
        """``url`` (from the opaque code) naming a moved page by its devset URL, its own query and
        fragment kept."""
        prefix = ""
        if url.startswith(self.base):
            prefix, url = self.base, url[len(self.base):]
        cut = min((i for i in (url.find("?"), url.find("#")) if i >= 0), default=len(url))
        path, rest = url[:cut], url[cut:]
        target = self.links.get(path)
        if target is None:
            return prefix + url
        if rest.startswith("?") and "?" in target:
            rest = "&" + rest[1:]
        return prefix + target + rest

    def map_url(self, value: str, base: str) -> str | None:
        out = super().map_url(value, base)
        return None if out is None else self.linked(out)

    def abs_url(self, url: str) -> tuple[str, bool] | None:
        out = super().abs_url(url)
        return None if out is None else (self.linked(out[0]), out[1])

    def run(self) -> OpaqueSite:
        res = super().run()
        res.mapping = {old: self.linked(new) for old, new in res.mapping.items()}
        (self.dst / MAPPING_FILE).write_text("".join(f"{o}\t{n}\n" for o, n in sorted(res.mapping.items())), "utf-8")
        query_files = sorted((self.base + self.links[_url_path(f)], f) for f in self.scheme_files.values() if "?" in f)
        if query_files:
            types = _read_pairs(self.dst / CONTENT_TYPES_FILE)
            types.update({file: "text/html" for _url, file in query_files})
            (self.dst / CONTENT_TYPES_FILE).write_text("".join(f"{p}\t{t}\n" for p, t in sorted(types.items())), "utf-8")
            (self.dst / QUERY_FILES).write_text("".join(f"{u}\t{f}\n" for u, f in query_files), "utf-8")
        return res


def _read_pairs(path: Path) -> dict[str, str]:
    if not path.is_file():
        return {}
    return dict(line.split("\t", 1) for line in path.read_text("utf-8").splitlines() if "\t" in line)


def make_url_scheme_site(src: Path, dst: Path, scheme: str, seed: int = 0, *, overwrite: bool = False) -> OpaqueSite:
    """Write ``src`` under URL scheme ``scheme`` into ``dst``; returns the mapping and counts.

    ``dst`` must be empty or missing unless ``overwrite`` (then only the files written here are
    replaced)."""
    src, dst = Path(src), Path(dst)
    if src.resolve() == dst.resolve():
        raise ValueError("SRC and DST must differ")
    rewriter = _SchemeRewriter(src, dst, seed, scheme)
    _prepare_dst(
        dst,
        [rewriter.folder, "hosts.tsv", "seeds.txt", "pages.tsv", "gold.tsv", MAPPING_FILE, DEAD_LINKS_FILE,
         CONTENT_TYPES_FILE, QUERY_FILES],
        overwrite,
    )
    return rewriter.run()


def audit(site: OpaqueSite) -> dict[str, object]:
    """Every gold URL and internal link checked against what serve_site.py would answer, and the
    language attributes left (parsed with lxml, independently of the rewriting)."""
    import lxml.html

    www = site.dst / site.folder
    linked_file = {site.base_url + _url_path(new): new for new in site.page_files.values()}
    by_file = {file: url for url, file in _read_pairs(site.dst / QUERY_FILES).items()}
    gold_urls = {u for row in site.gold for u in (row[1], row[3])}
    origin = urlsplit(site.base_url).netloc.lower()
    lang_left: list[str] = []
    internal = dead = 0
    for url, new in sorted(linked_file.items()):
        doc = lxml.html.document_fromstring((www / new.lstrip("/")).read_bytes())
        if any(isinstance(el.tag, str) and any(k.lower() in _LANG_ATTRS for k in el.attrib) for el in doc.iter()):
            lang_left.append(new)
        page_url = by_file.get(new, url)
        for _el, _attr, link, _pos in doc.iterlinks():
            absolute = urljoin(page_url, link)
            if urlsplit(absolute).netloc.lower() != origin or not absolute.startswith(("http:", "https:")):
                continue
            internal += 1
            dead += resolve(www, absolute) is None
    return {
        "pages": len(linked_file),
        "internal_links": internal,
        "dead_links": dead,
        "gold_urls_unserved": sorted(u for u in gold_urls if resolve(www, u) is None),
        "pages_with_lang_attributes": lang_left,
    }


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("src", type=Path, help="site folder (hosts.tsv, www/, pages.tsv, gold.tsv, seeds.txt)")
    ap.add_argument("dst", type=Path, help="output folder (must be empty unless --overwrite)")
    ap.add_argument("--scheme", choices=SCHEMES, required=True)
    ap.add_argument("--seed", type=int, default=0, help="the devset's seed (parameter orders) and the random paths'")
    ap.add_argument("--overwrite", action="store_true")
    a = ap.parse_args(argv)
    site = make_url_scheme_site(a.src, a.dst, a.scheme, a.seed, overwrite=a.overwrite)
    print(re.sub(r"made opaque", f"under the {a.scheme} scheme", site.summary()))
    report = audit(site)
    print(
        f"audit: {report['pages']} pages, {report['internal_links']} internal links "
        f"({report['dead_links']} to nothing, as in the source), "
        f"{len(report['gold_urls_unserved'])} gold URLs not served, "
        f"{len(report['pages_with_lang_attributes'])} pages with language attributes left"
    )
    for path, error in site.failures:
        print(f"FAILED {path}: {error}", file=sys.stderr)
    for url in report["gold_urls_unserved"]:
        print(f"NOT SERVED {url}", file=sys.stderr)
    print(f"wrote {site.dst} (serve it: python benchmarks/serve_site.py {site.dst})")
    return 1 if site.failures or report["gold_urls_unserved"] or report["pages_with_lang_attributes"] else 0


if __name__ == "__main__":
    sys.exit(main())
