"""Build a crawlable development site from a multilingual documentation site's sources.

    python benchmarks/devsets/docs_site.py GIT_DIR DST [--source fastapi|nodejs] [--langs en,es,...] [--port 8103]

GIT_DIR is a clone of github.com/fastapi/fastapi (every Markdown page of docs/<lang>/docs/, at the
URL the published site gives it: English /PATH/, the others /LANG/PATH/) or of
github.com/nodejs/nodejs.org (apps/site/pages/<lang>/, at /LANG/PATH/: 1,063 English pages and 8
to 17 in each other language).  Every page is an HTML page in one template for all languages: a
header, a language menu linking each language's home page, a navigation list of every page of
the language, the article, a footer.  There is no hreflang and no link between translations, so
pairing rests on URLs, content and structure.  Of nodejs.org, source pages that its redirects.json
sends elsewhere, that render to fewer than 20 words, or whose words are 90% those of another page
of their language (difflib ratio) are left out (MDX pages made of components, which the
published site renders with its own code).  DST gets the
layout of ../shared/data's sites (hosts.tsv, seeds.txt, pages.tsv, gold.tsv, www/), served by
../shared/bench/serve.py.  The gold standard is the sources' own: two pages are translations
when their Markdown files have the same path under two language directories.  Only the larger
of two regional variants of a language is kept (zh, not zh-hant), as in url_devsets.py.
"""

from __future__ import annotations

import argparse
import difflib
import html
import json
import re
import subprocess
from collections import defaultdict
from pathlib import Path
from urllib.parse import quote

_INLINE = [
    (re.compile(r"`([^`]+)`"), lambda m: f"<code>{m.group(1)}</code>"),
    (re.compile(r"\*\*([^*]+)\*\*"), lambda m: f"<strong>{m.group(1)}</strong>"),
    (re.compile(r"(?<![*\w])\*([^*\s][^*]*)\*(?!\w)"), lambda m: f"<em>{m.group(1)}</em>"),
    (re.compile(r"\[([^\]]+)\]\(([^)\s]+)[^)]*\)"), lambda m: f'<a href="{m.group(2)}">{m.group(1)}</a>'),
]
MIN_ARTICLE_WORDS = 20
_HEADING = re.compile(r"^(#{1,6})\s+(.*?)\s*(\{[^}]*\})?\s*$")
_ITEM = re.compile(r"^\s*(?:[*+-]|\d+\.)\s+(.*)$")
_OPEN_JSX = re.compile(r"^<[A-Za-z][\w.]*(\s|$)")
NEAR_COPY = 0.9


def inline(text: str) -> str:
    out = text if "<" in text else html.escape(text, quote=False)
    for pattern, repl in _INLINE:
        out = pattern.sub(repl, out)
    return out


def markdown_to_html(md: str) -> tuple[str, str]:
    """(title, body) of a page: headings, paragraphs, lists, tables, fenced code, admonitions."""
    lines = md.splitlines()
    out: list[str] = []
    title = ""
    para: list[str] = []
    i = 0

    def flush() -> None:
        if para:
            out.append(f"<p>{inline(' '.join(para))}</p>")
            para.clear()

    while i < len(lines):
        line = lines[i]
        stripped = line.strip()
        if stripped.startswith("```"):
            flush()
            code = []
            i += 1
            while i < len(lines) and not lines[i].strip().startswith("```"):
                code.append(lines[i])
                i += 1
            out.append(f"<pre><code>{html.escape(chr(10).join(code))}</code></pre>")
        elif stripped.startswith("{*") or stripped.startswith("<!--"):
            flush()
        elif stripped.startswith("///"):
            flush()
            label = stripped[3:].strip()
            if label:
                kind, _, name = label.partition("|")
                out.append(f'<div class="admonition {html.escape(kind.strip())}"><p class="admonition-title">'
                           f"{inline(name.strip() or kind.strip())}</p>")
            else:
                out.append("</div>")
        elif m := _HEADING.match(line):
            flush()
            level, text = len(m.group(1)), inline(m.group(2))
            title = title or re.sub(r"<[^>]+>", "", text)
            out.append(f"<h{level}>{text}</h{level}>")
        elif _ITEM.match(line):
            flush()
            items = []
            ordered = bool(re.match(r"^\s*\d+\.", line))
            while i < len(lines) and (m := _ITEM.match(lines[i])):
                items.append(f"<li>{inline(m.group(1))}</li>")
                i += 1
            tag = "ol" if ordered else "ul"
            out.append(f"<{tag}>{''.join(items)}</{tag}>")
            continue
        elif stripped.startswith("|"):
            flush()
            rows = []
            while i < len(lines) and lines[i].strip().startswith("|"):
                cells = [c.strip() for c in lines[i].strip().strip("|").split("|")]
                if not all(re.fullmatch(r":?-+:?", c) for c in cells if c):
                    rows.append("<tr>" + "".join(f"<td>{inline(c)}</td>" for c in cells) + "</tr>")
                i += 1
            out.append(f"<table>{''.join(rows)}</table>")
            continue
        elif not stripped:
            flush()
        elif stripped.startswith("<"):
            flush()
            # A JSX element whose attributes run over several lines (`<Image\n  alt="..."\n/>`)
            # is one tag: its attribute lines are not text.
            tag = [stripped]
            while _OPEN_JSX.match(tag[0]) and not tag[-1].endswith(">") and i + 1 < len(lines):
                i += 1
                tag.append(lines[i].strip())
            out.append(" ".join(tag))
        else:
            para.append(stripped)
        i += 1
    flush()
    return title, "\n".join(out)


def sources(git_dir: str, kind: str) -> dict[str, dict[str, str]]:
    """lang -> {document path: Markdown}."""
    top = "docs" if kind == "fastapi" else "apps/site/pages"
    names = subprocess.run(["git", "--git-dir", git_dir, "ls-tree", "-r", "--name-only", "HEAD", top],
                           check=True, capture_output=True, text=True).stdout.splitlines()
    out: dict[str, dict[str, str]] = defaultdict(dict)
    for name in names:
        parts = name.split("/")
        if kind == "fastapi":
            if len(parts) < 4 or parts[2] != "docs" or not name.endswith(".md") or parts[-1].startswith("_"):
                continue
            lang, doc = parts[1], "/".join(parts[3:])[: -len(".md")]
        else:
            if len(parts) < 5 or not name.endswith((".md", ".mdx")):
                continue
            lang, doc = parts[3], "/".join(parts[4:]).rsplit(".", 1)[0]
        doc = doc[: -len("/index")] if doc.endswith("/index") else ("" if doc == "index" else doc)
        text = subprocess.run(["git", "--git-dir", git_dir, "show", f"HEAD:{name}"], check=True,
                              capture_output=True).stdout.decode("utf-8", "replace")
        out[lang][doc] = re.sub(r"\A---\n.*?\n---\n", "", text, flags=re.S)  # front matter
    return out


_FRONT = re.compile(r"\A---\n(.*?)\n---\n", re.S)


def _front(text: str, key: str) -> str:
    m = _FRONT.match(text)
    found = re.search(rf"^{key}:\s*(.*?)\s*$", m.group(1), re.M) if m else None
    return found.group(1).strip("'\"") if found else ""


def cds_sources(git_dir: str) -> dict[str, dict[str, tuple[str, str]]]:
    """digital.canada.ca (github.com/cds-snc/digital-canada-ca, a Hugo site): lang -> {translation
    key: (URL path under /LANG/, Markdown)}.  The URL is Hugo's for the site's configuration: the
    page's ``url`` front matter, else /YYYY/MM/DD/FILENAME for blog posts, else the file's path,
    lower-cased as Hugo does.  Hugo makes two pages translations when they have the same
    ``translationKey``, or, without one, the same path under their language's content directory."""
    names = subprocess.run(["git", "--git-dir", git_dir, "ls-tree", "-r", "-z", "--name-only", "HEAD", "content"],
                           check=True, capture_output=True).stdout.decode("utf-8").split("\0")
    out: dict[str, dict[str, tuple[str, str]]] = defaultdict(dict)
    for name in names:
        parts = name.split("/")
        if len(parts) < 3 or not name.endswith(".md"):
            continue
        lang, rel = parts[1], "/".join(parts[2:])[: -len(".md")]
        text = subprocess.run(["git", "--git-dir", git_dir, "show", f"HEAD:{name}"], check=True,
                              capture_output=True).stdout.decode("utf-8", "replace")
        date = re.match(r"(\d{4})-(\d{2})-(\d{2})", _front(text, "date"))
        if _front(text, "url"):
            path = _front(text, "url").strip("/")
        elif rel.startswith("blog/posts/") and date:
            path = "/".join((*date.groups(), rel.rsplit("/", 1)[1]))
        else:
            path = rel[: -len("/_index")] if rel.endswith("/_index") else ("" if rel == "_index" else rel)
        key = _front(text, "translationKey") or rel  # Hugo's rule: the key, else the same content path
        out[lang].setdefault(key, (path.lower(), _FRONT.sub("", text)))
    return out


def redirected(git_dir: str) -> re.Pattern[str]:
    """nodejs.org: the document paths its redirects.json sends elsewhere (never served as pages)."""
    raw = subprocess.run(["git", "--git-dir", git_dir, "show", "HEAD:apps/site/redirects.json"],
                         check=True, capture_output=True, text=True).stdout
    sources_ = [e["source"][len("/:locale/"):] for group in json.loads(raw).values() for e in group
                if e["source"].startswith("/:locale/")]
    alts = [re.escape(src).replace(re.escape(":path*"), ".*") for src in sources_]
    return re.compile(rf"(?:{'|'.join(alts)})\Z" if alts else r"(?!)")


def near_copy(words: list[str], kept: list[list[str]]) -> bool:
    """Whether a page's words are (nearly) those of a page already kept in its language."""
    for other in kept:
        if abs(len(other) - len(words)) > (1 - NEAR_COPY) * max(len(words), len(other)):
            continue
        sm = difflib.SequenceMatcher(None, words, other, autojunk=False)
        if sm.quick_ratio() >= NEAR_COPY and sm.ratio() >= NEAR_COPY:
            return True
    return False


def page_path(lang: str, doc: str, english_prefix: bool = False) -> str:
    prefix = "" if lang == "en" and not english_prefix else f"/{lang}"
    return f"{prefix}/{doc}/" if doc else f"{prefix}/"


def render(lang: str, md: str, paths: list[str], langs: list[str], english_prefix: bool) -> str:
    title, body = markdown_to_html(md)
    nav = "".join(f'<li><a href="{html.escape(quote(page_path(lang, d, english_prefix)))}">{html.escape(d or "home")}'
                  f'</a></li>' for d in sorted(paths))
    menu = "".join(f'<li><a href="{page_path(code, "", english_prefix)}">{code}</a></li>' for code in langs)
    return f"""<!DOCTYPE html>
<html><head><meta charset="utf-8"><title>{html.escape(title)}</title>
<link rel="stylesheet" href="/assets/site.css"></head>
<body><header class="top"><a class="logo" href="{page_path(lang, '', english_prefix)}">Docs</a>
<nav class="languages"><ul>{menu}</ul></nav></header>
<div class="container"><nav class="sidebar"><ul>{nav}</ul></nav>
<main><article>
{body}
</article></main></div>
<footer><p>Documentation built from the project's sources</p></footer>
</body></html>
"""


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("git_dir")
    ap.add_argument("dst", type=Path)
    ap.add_argument("--source", choices=("fastapi", "nodejs", "cds"), default="fastapi")
    ap.add_argument("--langs", default="", help="default: fastapi en,de,es,fr,hi,ja,ko,pt,ru,tr,uk,zh; "
                    "nodejs en,ar,es,fa,fr,id,ja,ko,pt-br,ro,ta,tr,uk,zh-cn; cds en,fr")
    ap.add_argument("--port", type=int, default=8103)
    a = ap.parse_args()
    langs = (a.langs or {"fastapi": "en,de,es,fr,hi,ja,ko,pt,ru,tr,uk,zh",
                         "nodejs": "en,ar,es,fa,fr,id,ja,ko,pt-br,ro,ta,tr,uk,zh-cn", "cds": "en,fr"}[a.source]).split(",")
    # lang -> {translation key: (URL path, Markdown)}; the key is the path where translations share it.
    src = (cds_sources(a.git_dir) if a.source == "cds"
           else {lang: {d: (d, md) for d, md in docs.items()} for lang, docs in sources(a.git_dir, a.source).items()})
    english_prefix = a.source != "fastapi"  # every language, English too, is under its code
    www = a.dst / "www"
    pages, by_doc = [], defaultdict(list)
    skipped = 0
    gone = redirected(a.git_dir) if a.source == "nodejs" else re.compile(r"(?!)")
    base = f"http://127.0.0.1:{a.port}"
    for lang in langs:
        kept: list[list[str]] = []
        paths = [p for p, _ in src[lang].values()]
        for key, (doc, md) in sorted(src[lang].items(), key=lambda kv: (kv[1][0].count("/"), kv[1][0])):
            # nodejs.org: a page its redirects send elsewhere is never served; a page the renderer
            # leaves (nearly) empty, or that renders to (nearly) the words of another page of its
            # language, is left out with its gold pairs (MDX pages made of components: the
            # published site renders those with code this builder does not have, and
            # /download/current/ differs from /download/ only in what its components show).
            words = re.sub(r"<[^>]+>", " ", markdown_to_html(md)[1]).split()
            if a.source != "fastapi" and (gone.match(doc) or len(words) < MIN_ARTICLE_WORDS
                                          or near_copy(words, kept)):
                skipped += 1
                continue
            kept.append(words)
            path = page_path(lang, doc, english_prefix)
            target = www / path.strip("/") / "index.html"
            target.parent.mkdir(parents=True, exist_ok=True)
            target.write_text(render(lang, md, paths, langs, english_prefix), encoding="utf-8")
            pages.append((base + quote(path), lang))
            by_doc[key].append((lang, base + quote(path)))
    (www / "assets").mkdir(parents=True, exist_ok=True)
    (www / "assets" / "site.css").write_text("body{font-family:sans-serif}\n", encoding="utf-8")
    gold = []
    for members in by_doc.values():
        for i, (la, ua) in enumerate(members):
            for lb, ub in members[i + 1:]:
                gold.append((la, ua, lb, ub) if la < lb else (lb, ub, la, ua))
    (a.dst / "hosts.tsv").write_text(f"www\t{base}\n", encoding="utf-8")
    (a.dst / "seeds.txt").write_text(base + page_path("en", "", english_prefix) + "\n", encoding="utf-8")
    (a.dst / "pages.tsv").write_text("".join(f"{u}\t{lang}\n" for u, lang in pages), encoding="utf-8")
    (a.dst / "gold.tsv").write_text("".join("\t".join(g) + "\n" for g in sorted(gold)), encoding="utf-8")
    print(f"{len(pages)} pages in {len(langs)} languages, {len(gold)} gold pairs ({skipped} source pages "
          f"left out: redirected, empty or a near copy once rendered): {a.dst}")


if __name__ == "__main__":
    main()
