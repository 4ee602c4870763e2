"""Write a URL development set (url, lang, document) from a multilingual documentation repository.

    python benchmarks/devsets/extract_docs_urls.py nodejs GIT_DIR > benchmarks/devsets/nodejs-org.tsv
    python benchmarks/devsets/extract_docs_urls.py fastapi GIT_DIR > benchmarks/devsets/fastapi.tsv
    python benchmarks/devsets/extract_docs_urls.py cds GIT_DIR > benchmarks/devsets/digital-canada.tsv

GIT_DIR is a clone of github.com/nodejs/nodejs.org, github.com/fastapi/fastapi or
github.com/cds-snc/digital-canada-ca (digital.canada.ca: English and French with translated URL
slugs; its translations share a Hugo ``translationKey``, or the content path without one, and
that is the document here, as docs_site.py reads it).  The document of a
URL is its source file's path below the language directory: the repositories keep a translation
at the same relative path as its original, which is what makes two URLs a translation pair here
(the gold standard), independent of anything the URLs look like.  The URLs are the ones the sites
publish for those files (nodejs.org: /LANG/PATH; fastapi.tiangolo.com: /PATH/ for English,
/LANG/PATH/ for the others).
"""

from __future__ import annotations

import subprocess
import sys
from urllib.parse import quote


def files(git_dir: str, prefix: str) -> list[str]:
    out = subprocess.run(["git", "--git-dir", git_dir, "ls-tree", "-r", "--name-only", "HEAD", prefix],
                         check=True, capture_output=True, text=True).stdout
    return out.splitlines()


def nodejs(git_dir: str) -> list[tuple[str, str, str]]:
    rows = []
    for name in files(git_dir, "apps/site/pages"):
        parts = name.split("/")
        if len(parts) < 5 or not name.endswith((".md", ".mdx")):
            continue
        lang, rest = parts[3], "/".join(parts[4:]).rsplit(".", 1)[0]
        doc = rest[: -len("/index")] if rest.endswith("/index") else ("" if rest == "index" else rest)
        rows.append((f"https://nodejs.org/{lang}" + (f"/{doc}" if doc else ""), lang, doc or "/"))
    return rows


def fastapi(git_dir: str) -> list[tuple[str, str, str]]:
    rows = []
    for name in files(git_dir, "docs"):
        parts = name.split("/")
        if len(parts) < 4 or parts[2] != "docs" or not name.endswith(".md") or parts[-1].startswith("_"):
            continue
        lang, rest = parts[1], "/".join(parts[3:])[: -len(".md")]
        doc = rest[: -len("/index")] if rest.endswith("/index") else ("" if rest == "index" else rest)
        prefix = "" if lang == "en" else f"/{lang}"
        rows.append((f"https://fastapi.tiangolo.com{prefix}/" + (f"{doc}/" if doc else ""), lang, doc or "/"))
    return rows


def cds(git_dir: str) -> list[tuple[str, str, str]]:
    from docs_site import cds_sources

    return [(quote(f"https://digital.canada.ca/{lang}/" + (f"{path}/" if path else ""), safe=":/"), lang, key)
            for lang, docs in cds_sources(git_dir).items() for key, (path, _md) in docs.items()]


def main() -> None:
    kind, git_dir = sys.argv[1], sys.argv[2]
    rows = {"nodejs": nodejs, "fastapi": fastapi, "cds": cds}[kind](git_dir)
    commit = subprocess.run(["git", "--git-dir", git_dir, "rev-parse", "HEAD"], check=True,
                            capture_output=True, text=True).stdout.strip()
    print(f"# {kind} at {commit}\turl\tlang\tdocument")
    for row in sorted(set(rows)):
        print("\t".join(row))


if __name__ == "__main__":
    main()
