#!/usr/bin/env python3
"""Make the "opaque URL" variant of a test site: the same pages with no URL or language-code evidence.

    python benchmarks/make_opaque_site.py SRC DST [--seed N] [--overwrite] [--drop-alternates] [--hide-dirs] [--lang-slots]

SRC is a site folder (``hosts.tsv``, ``seeds.txt``, ``pages.tsv``, ``gold.tsv``, the document root
named in ``hosts.tsv``, optionally the ``content-types.tsv`` sidecar), as written by
``bitext_spider.demo.site.generate_site`` or found in ``../shared/data``. DST gets the same layout,
served by ``../shared/bench/serve.py DST`` or ``python -m bitext_spider.demo.loopback_server DST`` on the
same base URL, plus ``mapping.tsv`` (old URL TAB new URL, every page and file) and
``dead-links.tsv`` (internal links that pointed nowhere, old TAB new). Also importable:
``make_opaque(src, dst, seed=0) -> OpaqueSite``.

What changes
  * With ``--lang-slots`` the pages of ``pages.tsv`` get ``/<language name>/<dir>/<name>_<code>.html``
    instead (``/french/International/articles/x_fr.html``: the language in two URL fields at once,
    with no language markup), the others random paths as below.
  * Every HTML file gets a random path ``/p/<12 hex>.html`` (seeded RNG, files drawn in sorted
    order), directory index pages included: ``/fr/`` and ``/fr/index.html`` both become that one
    page. The root ``/index.html`` stays where it is, so ``/`` is still the entry; ``seeds.txt`` is
    rewritten through the mapping.
  * Other files keep their path when no segment or file-name part is a language code (image file
    names are evidence for image matching); otherwise they move to ``/a/<hex>/<name>`` when only a
    directory carries the code, or to ``/a/<hex>.<ext>`` when the file name does (``logo-fr.png``).
    With ``--hide-dirs`` clean files outside the root folder move too, to ``/a/<hex>/<name>`` with one
    random folder name per original folder (``robots.txt``, ``sitemap.xml``... at the root stay).
    "Language code" means a language tag of the site (``pages.tsv``, ``gold.tsv`` and every
    ``lang``/``xml:lang``/``hreflang`` value found), or its primary subtag, as a token of the path
    split at ``/ . - _``.
  * Links to nothing (missing file, directory without index) keep pointing nowhere: a missing
    resource (an image, a script, a stylesheet... by extension) is renamed by the same rule as
    files, so a missing ``photo.jpg`` keeps its name; anything else goes to ``/x/<hex>``. The same
    old target always gets the same dead path, so translations that share a broken link still do.
  * In HTML: ``href src srcset imagesrcset action formaction poster background cite longdesc
    data-src data-srcset xlink:href``, ``object[data]``, ``meta refresh``, internal absolute URLs in
    ``meta[content]`` (``og:url``...), CSS ``url()``/``@import`` in ``style`` attributes and
    ``<style>`` blocks. A relative URL is resolved against the page's ORIGINAL URL (or its
    ``<base href>``) and written as an absolute path; an absolute internal URL stays absolute.
    Query strings and fragments are kept, fragment-only links and external links are untouched.
    Scripts, comments and text are never changed (so language-switcher anchor texts such as
    "Français" stay, and so does whatever inline JavaScript says).
  * Language markup is removed: ``lang``, ``xml:lang`` and ``hreflang`` attributes everywhere,
    ``<meta http-equiv=content-language>``, ``<meta name=language|lang|dc.language>``,
    ``og:locale`` metas. ``<link rel=alternate hreflang=..>`` keeps its (rewritten) href and loses
    only ``hreflang``: the links between translations stay, like the language switcher; with
    ``--drop-alternates`` those elements go entirely.
  * ``*.xml``/``*.rss``/``*.atom`` (sitemaps, feeds): internal URLs in text and in ``href``/``src``
    attributes are rewritten (absolute stays absolute), ``hreflang``/``xml:lang`` attributes and
    ``<language>``/``<dc:language>`` elements removed. Stylesheets: ``url()``/``@import``.
    ``robots.txt``: ``Sitemap:`` URLs rewritten; for each ``Allow``/``Disallow`` rule, every file it
    covered whose new path it no longer covers gets a rule of its own (the private page stays
    private), and a rule whose own path has a language code is dropped.
  * ``pages.tsv``/``gold.tsv`` through the mapping (same languages), ``hosts.tsv`` unchanged, the
    content-types sidecar re-keyed with the new paths. ``NOTICE``/``LICENSE`` files are copied.

Bytes: no HTML parser re-serializes anything. A page is scanned as a sequence of tags with a small
HTML5-like tokenizer over its bytes viewed as Latin-1 (every byte one character), so every
ASCII-compatible charset (UTF-8, ISO-8859-*, windows-125*, Shift_JIS, EUC-*, GBK, Big5: none
uses the bytes ``< > " ' =`` or whitespace inside a multibyte character) round-trips exactly: a
page is byte-identical to the original except inside the tags whose attributes were rewritten or
removed (and the removed language metas). Attribute values are decoded with the page's charset
(BOM, then the sidecar Content-Type, then ``<meta charset>``/``http-equiv``, then UTF-8) only to
resolve them; new values are ASCII (percent-encoded paths). UTF-16/32 and stateful encodings
(ISO-2022-*, UTF-7, HZ) are decoded and re-encoded instead. A page that cannot be processed is
copied unchanged to its new path and reported in ``OpaqueSite.failures`` (exit status 1).

Limits: one host (one line in ``hosts.tsv``); JavaScript-built links, ``<script>`` contents and
JSON-LD are not rewritten; external URLs keep whatever language codes they carry.
Deterministic: the output is a function of the input files and ``seed``.
"""


from __future__ import annotations

import argparse
import shutil
import sys
from collections.abc import Iterable
from pathlib import Path
from urllib.parse import unquote, urlsplit

# The generator's other modules sit beside it (it also runs as a plain script).
sys.path.insert(0, str(Path(__file__).resolve().parent))
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


def _prepare_dst(dst: Path, folder_names: Iterable[str], overwrite: bool) -> None:
    if dst.exists() and any(dst.iterdir()):
        if not overwrite:
            raise FileExistsError(f"{dst} is not empty (pass overwrite=True / --overwrite to replace it)")
        for name in folder_names:
            target = dst / name
            if target.is_dir():
                shutil.rmtree(target)
            elif target.exists():
                target.unlink()
    dst.mkdir(parents=True, exist_ok=True)


def make_opaque(
    src: Path,
    dst: Path,
    seed: int = 0,
    *,
    overwrite: bool = False,
    drop_alternates: bool = False,
    hide_dirs: bool = False,
    lang_slots: bool = False,
) -> OpaqueSite:
    """Write the opaque-URL variant of site folder ``src`` into ``dst``; returns the mapping and counts.

    See the module docstring for what changes. ``dst`` must be empty or missing unless ``overwrite``
    (then only the files this function writes are replaced). Deterministic for a given ``seed``.
    """
    src, dst = Path(src), Path(dst)
    if src.resolve() == dst.resolve():
        raise ValueError("SRC and DST must differ")
    opaquer = _Opaquer(src, dst, seed, drop_alternates, hide_dirs, lang_slots)
    _prepare_dst(
        dst,
        [opaquer.folder, "hosts.tsv", "seeds.txt", "pages.tsv", "gold.tsv", MAPPING_FILE, DEAD_LINKS_FILE,
         CONTENT_TYPES_FILE],
        overwrite,
    )
    return opaquer.run()


# --------------------------------------------------------------------------------------------------
# Audit (an independent check with lxml) and command line


def audit(site: OpaqueSite) -> dict[str, object]:
    """Parse every new HTML page with lxml: language attributes left and internal links to nothing."""
    import lxml.html

    www = site.dst / site.folder
    base_origin = _Opaquer._origin(urlsplit(site.base_url))
    lang_left: list[str] = []
    unresolved: dict[str, int] = {}
    internal = 0
    unparsable: list[str] = []
    for new in sorted(set(site.page_files.values())):
        data = (www / new.lstrip("/")).read_bytes()
        url = site.base_url + _url_path(new)
        try:
            doc = lxml.html.document_fromstring(data)
        except Exception as exc:  # noqa: BLE001
            unparsable.append(f"{new}: {exc}")
            continue
        for el in doc.iter():
            if isinstance(el.tag, str) and any(k.lower() in _LANG_ATTRS for k in el.attrib):
                lang_left.append(new)
                break
        doc.make_links_absolute(url, resolve_base_href=True, handle_failures="ignore")
        for _el, _attr, link, _pos in doc.iterlinks():
            parts = urlsplit(link)
            try:
                if parts.scheme not in ("http", "https") or _Opaquer._origin(parts) != base_origin:
                    continue
            except ValueError:
                continue
            internal += 1
            path = _norm_path(unquote(parts.path) or "/")
            f = www / path.lstrip("/")
            if path != "/" and not f.is_file() and not (f / "index.html").is_file():
                unresolved[path] = unresolved.get(path, 0) + 1
    return {
        "pages": len(set(site.page_files.values())),
        "internal_links": internal,
        "dead_links": sum(unresolved.values()),
        "dead_targets": len(unresolved),
        "pages_with_lang_attributes": lang_left,
        "unparsable": unparsable,
    }


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("src", type=Path, help="site folder (hosts.tsv, www/, pages.tsv, gold.tsv, seeds.txt)")
    ap.add_argument("dst", type=Path, help="output folder (must be empty unless --overwrite)")
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--overwrite", action="store_true")
    ap.add_argument("--drop-alternates", action="store_true", help="remove <link rel=alternate hreflang> entirely")
    ap.add_argument("--hide-dirs", action="store_true",
                    help="also move clean files (and missing resources) out of their folders, names kept")
    ap.add_argument("--lang-slots", action="store_true",
                    help="the gold standard's pages at /LANGUAGE-NAME/DIR/NAME_CODE.html instead of random paths")
    a = ap.parse_args(argv)
    site = make_opaque(a.src, a.dst, a.seed, overwrite=a.overwrite, drop_alternates=a.drop_alternates,
                       hide_dirs=a.hide_dirs, lang_slots=a.lang_slots)
    print(site.summary())
    report = audit(site)
    print(
        f"audit: {report['pages']} pages, {report['internal_links']} internal links "
        f"({report['dead_links']} to {report['dead_targets']} missing targets, as in the source), "
        f"{len(report['pages_with_lang_attributes'])} pages with language attributes left, "
        f"{len(report['unparsable'])} unparsable"
    )
    for path, error in site.failures:
        print(f"FAILED {path}: {error}", file=sys.stderr)
    print(f"wrote {site.dst} (serve it: python ../shared/bench/serve.py {site.dst})")
    return 1 if site.failures or report["pages_with_lang_attributes"] else 0


if __name__ == "__main__":
    sys.exit(main())

