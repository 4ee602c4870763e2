"""Make the crawlable noisy variant of a site folder: pages at a second URL, untranslated copies.

    python benchmarks/make_noisy_site.py SRC DST [--seed 0] [--alias-share 0.25] [--copy-share 0.2]

SRC is a site folder in ``../shared/data``'s layout whose page URLs end in ``.LANG.html``
(``../shared/data/w3c-i18n``).  DST gets a copy of it, read at run time (it must lie outside the
repository), with the two kinds of noise real multilingual sites have, as ``url_devsets.py``'s
``w3c-noisy`` URL list has them, but crawlable:

  * a quarter of the pages reachable at a second URL, ``x.html?`` or ``x.html?PHPSESSID=<hex>``
    (the server ignores the query, so it is the same page), linked from the home page;
  * for a fifth of the documents, an untranslated copy in a language the document lacks: the
    English page (or the document's first) served as ``x.<missing>.html`` and linked from it, its
    text and markup unchanged, as a site serves its default language in an untranslated slot.

The gold standard is SRC's: an alias is the page it repeats, and an untranslated copy is no
translation of anything.  ``pages.tsv`` lists the copies with the language of their text.
"""

from __future__ import annotations

import argparse
import random
import re
import shutil
from collections import defaultdict
from pathlib import Path

_PAGE = re.compile(r"^(?P<stem>.*)\.(?P<lang>[a-z]{2,3}(?:-[a-z0-9]+)*)\.html$")


def _append_links(path: Path, urls: list[str], title: str) -> None:
    html = path.read_text(encoding="utf-8", errors="surrogateescape")
    items = "".join(f'<li><a href="{u}">{u}</a></li>' for u in urls)
    block = f'<div class="noise"><p>{title}</p><ul>{items}</ul></div>'
    html = html.replace("</body>", block + "</body>", 1) if "</body>" in html else html + block
    path.write_text(html, encoding="utf-8", errors="surrogateescape")


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("src", type=Path)
    ap.add_argument("dst", type=Path)
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--alias-share", type=float, default=0.25)
    ap.add_argument("--copy-share", type=float, default=0.2)
    a = ap.parse_args()
    if Path(__file__).resolve().parents[1] in a.dst.resolve().parents:
        raise SystemExit("DST must lie outside the repository")
    if a.dst.exists():
        shutil.rmtree(a.dst)
    shutil.copytree(a.src, a.dst)
    rnd = random.Random(a.seed)
    base = (a.dst / "hosts.tsv").read_text(encoding="utf-8").split("\t")[1].strip()
    www = a.dst / (a.dst / "hosts.tsv").read_text(encoding="utf-8").split("\t")[0]
    pages = [line.split("\t") for line in (a.dst / "pages.tsv").read_text(encoding="utf-8").splitlines() if line]
    docs: dict[str, dict[str, str]] = defaultdict(dict)
    for url, _lang in pages:
        m = _PAGE.match(url)
        if m:
            docs[m["stem"]][m["lang"]] = url
    langs = sorted({m["lang"] for url, _ in pages if (m := _PAGE.match(url))})
    aliases = []
    for url, _lang in pages:
        if rnd.random() < a.alias_share:
            aliases.append(url + ("?" if rnd.random() < 0.5 else f"?PHPSESSID={rnd.getrandbits(64):016x}"))
    _append_links(www / "index.html", [u.removeprefix(base) for u in aliases], "Also at")
    copies = []
    for stem in sorted(docs):
        have = docs[stem]
        missing = [lang for lang in langs if lang not in have]
        if not missing or rnd.random() >= a.copy_share:
            continue
        src_lang = "en" if "en" in have else sorted(have)[0]
        target = rnd.choice(missing)
        src_file = www / have[src_lang].removeprefix(base).lstrip("/")
        copy_url = f"{stem}.{target}.html"
        shutil.copyfile(src_file, www / copy_url.removeprefix(base).lstrip("/"))
        _append_links(src_file, [copy_url.removeprefix(base)], "Other languages")
        copies.append((copy_url, src_lang))
    with (a.dst / "pages.tsv").open("a", encoding="utf-8") as fh:
        fh.writelines(f"{u}\t{lang}\n" for u, lang in copies)
    print(f"{len(aliases)} aliases, {len(copies)} untranslated copies: {a.dst}")


if __name__ == "__main__":
    main()
