"""Build a mixed-domain development site for focused crawling: two multilingual sites on different
subjects served as one, with the known subject of every page and the gold pairs of each.

    python benchmarks/make_mixed_domain_site.py IN_DOMAIN OTHER DST [--prefix docs] [--port 8131]

IN_DOMAIN and OTHER are site folders in the layout of ../shared/data (hosts.tsv, pages.tsv,
gold.tsv, www/ with root-relative links), e.g. ../shared/data/w3c-i18n (web internationalization)
and a documentation site built by benchmarks/devsets/docs_site.py (FastAPI's docs: web APIs in
Python).  DST gets the same layout, served by ../shared/bench/serve.py:

* www/: IN_DOMAIN's pages at their paths, OTHER's under /PREFIX/ (its root-relative links and
  sources rewritten), and a new home page linking the start pages of both, alternately (IN_DOMAIN's
  home page links, OTHER's language home pages), so neither subject is nearer the start;
* pages.tsv: ``url TAB lang TAB subject`` (``in`` or ``out``), every page of both;
* gold.tsv: the gold pairs of both (what the crawl is scored against), gold-in-domain.tsv: those
  of IN_DOMAIN only;
* hosts.tsv, seeds.txt: one host, the new home page.

Subjects and gold pairs come from the sources (each site's own pages.tsv and gold.tsv), never from
the crawler's output.
"""

from __future__ import annotations

import argparse
import re
import shutil
from pathlib import Path
from urllib.parse import urlsplit

_ROOT_LINK = re.compile(r"""((?:href|src)\s*=\s*["'])/(?!/)""", re.I)


def _base(site: Path) -> str:
    folder, base = (site / "hosts.tsv").read_text(encoding="utf-8").splitlines()[0].split("\t")
    if folder != "www":
        raise SystemExit(f"{site}: expected a single 'www' folder in hosts.tsv")
    return base.rstrip("/")


def _rows(path: Path) -> list[list[str]]:
    return [line.split("\t") for line in path.read_text(encoding="utf-8").splitlines() if line.strip()]


def rebase(url: str, old_base: str, new_base: str, prefix: str = "") -> str:
    """``url`` of a page served at ``old_base``, as served at ``new_base`` (under ``/prefix``)."""
    if not url.startswith(old_base):
        raise ValueError(f"{url} is not under {old_base}")
    path = url[len(old_base):] or "/"
    return new_base + (f"/{prefix}" if prefix else "") + path


def prefix_links(html: str, prefix: str) -> str:
    """Root-relative ``href``/``src`` values moved under ``/prefix``."""
    return _ROOT_LINK.sub(lambda m: f"{m.group(1)}/{prefix}/", html)


def home_page(in_links: list[tuple[str, str]], out_links: list[tuple[str, str]]) -> str:
    """The new home page: both sites' start links, alternately."""
    items = []
    for i in range(max(len(in_links), len(out_links))):
        for links in (in_links, out_links):
            if i < len(links):
                href, text = links[i]
                items.append(f'<li><a href="{href}">{text}</a></li>')
    return ("<!DOCTYPE html>\n<html><head><meta charset=\"utf-8\"><title>Two sites</title></head><body>"
            f"<h1>Two sites</h1><ul>{''.join(items)}</ul></body></html>\n")


def _home_links(www: Path) -> list[tuple[str, str]]:
    html = (www / "index.html").read_text(encoding="utf-8", errors="replace")
    return re.findall(r'<a href="(/[^"]*)">([^<]*)</a>', html)


def build(in_domain: Path, other: Path, dst: Path, prefix: str = "docs", port: int = 8131) -> dict[str, int]:
    base = f"http://127.0.0.1:{port}"
    in_base, out_base = _base(in_domain), _base(other)
    if dst.exists():
        shutil.rmtree(dst)
    www = dst / "www"
    shutil.copytree(in_domain / "www", www)
    in_home = _home_links(www)
    target = www / prefix
    for src in sorted((other / "www").rglob("*")):
        if src.is_dir():
            continue
        out = target / src.relative_to(other / "www")
        out.parent.mkdir(parents=True, exist_ok=True)
        if src.suffix in (".html", ".htm", ".css") or src.name == "index.html":
            out.write_text(prefix_links(src.read_text(encoding="utf-8", errors="replace"), prefix), encoding="utf-8")
        else:
            shutil.copyfile(src, out)
    # OTHER's start pages (seeds.txt) and language home pages (/LANG/ or /LANG/index.html).
    out_pages = _rows(other / "pages.tsv")
    out_home = [(f"/{prefix}{urlsplit(u).path or '/'}", "home")
                for u in (other / "seeds.txt").read_text(encoding="utf-8").split() if u.startswith(out_base)]
    for url, lang, *_ in out_pages:
        path = urlsplit(url).path
        if path.strip("/") in (lang, f"{lang}/index.html") and (f"/{prefix}{path}", lang) not in out_home:
            out_home.append((f"/{prefix}{path}", lang))
    (www / "index.html").write_text(home_page(in_home, out_home), encoding="utf-8")

    pages = [(rebase(u, in_base, base), lang, "in") for u, lang, *_ in _rows(in_domain / "pages.tsv")]
    pages += [(rebase(u, out_base, base, prefix), lang, "out") for u, lang, *_ in out_pages]
    gold_in = [(a, rebase(ua, in_base, base), b, rebase(ub, in_base, base))
               for a, ua, b, ub in _rows(in_domain / "gold.tsv")]
    gold_out = [(a, rebase(ua, out_base, base, prefix), b, rebase(ub, out_base, base, prefix))
                for a, ua, b, ub in _rows(other / "gold.tsv")]
    (dst / "hosts.tsv").write_text(f"www\t{base}\n", encoding="utf-8")
    (dst / "seeds.txt").write_text(base + "/\n", encoding="utf-8")
    (dst / "pages.tsv").write_text("".join("\t".join(p) + "\n" for p in pages), encoding="utf-8")
    (dst / "gold.tsv").write_text("".join("\t".join(g) + "\n" for g in gold_in + gold_out), encoding="utf-8")
    (dst / "gold-in-domain.tsv").write_text("".join("\t".join(g) + "\n" for g in gold_in), encoding="utf-8")
    counts = {"pages_in": sum(1 for p in pages if p[2] == "in"), "pages_out": sum(1 for p in pages if p[2] == "out"),
              "gold_in": len(gold_in), "gold_out": len(gold_out)}
    return counts


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("in_domain", type=Path, help="the site on the domain's subject")
    ap.add_argument("other", type=Path, help="the site on another subject")
    ap.add_argument("dst", type=Path)
    ap.add_argument("--prefix", default="docs", help="path under which OTHER's pages are served")
    ap.add_argument("--port", type=int, default=8131)
    a = ap.parse_args()
    counts = build(a.in_domain, a.other, a.dst, a.prefix, a.port)
    print(f"{counts['pages_in']} in-domain and {counts['pages_out']} other pages, {counts['gold_in']} in-domain "
          f"and {counts['gold_out']} other gold pairs: {a.dst}")


if __name__ == "__main__":
    main()
