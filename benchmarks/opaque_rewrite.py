"""The opaque-site generator's rewriting: each page's links, language attributes and language
metas rewritten to the opaque paths, byte for byte elsewhere (benchmarks/make_opaque_site.py)."""


from __future__ import annotations

import html
import posixpath
import random
import re
import shutil
from pathlib import Path
from urllib.parse import unquote, urljoin, urlsplit

from opaque_markup import (  # noqa: E402
    _COMMENT,
    _CSS_URL,
    _LANG_ATTRS,
    _LANG_META_NAMES,
    _LANG_VALUE,
    _LOCALE_PROPERTIES,
    _REFRESH,
    _SRCSET_ATTRS,
    _URL_ATTRS,
    _URL_METAS,
    _WS,
    _XML_URL_ATTRS,
    ASSET_DIR,
    CONTENT_TYPES_FILE,
    COPIED_PREFIXES,
    DEAD_DIR,
    DEAD_LINKS_FILE,
    HEX_DIGITS,
    INDEX_NAMES,
    LANGUAGE_NAMES,
    MAPPING_FILE,
    PAGE_DIR,
    RESOURCE_EXTS,
    ROOT_PAGES,
    LangCodes,
    OpaqueSite,
    _Codec,
    _kind,
    _line_span,
    _norm_path,
    _read_ctypes,
    _read_tsv,
    _tokenize,
    _url_path,
    sniff_codec,
)


class _Opaquer:
    def __init__(self, src: Path, dst: Path, seed: int, drop_alternates: bool, hide_dirs: bool,
                 lang_slots: bool = False) -> None:
        self.src, self.dst, self.seed = src, dst, seed
        self.lang_slots = lang_slots
        self.drop_alternates = drop_alternates
        self.hide_dirs = hide_dirs
        self.dir_names: dict[str, str] = {}
        lines = [ln for ln in (src / "hosts.tsv").read_text("utf-8").splitlines() if ln.strip()]
        if len(lines) != 1 or "\t" not in lines[0]:
            raise ValueError(f"{src / 'hosts.tsv'}: expected exactly one 'folder<TAB>base URL' line")
        self.hosts_text = (src / "hosts.tsv").read_bytes()
        folder, base = lines[0].split("\t", 1)
        self.folder = folder.strip()
        self.base = base.strip().rstrip("/")
        parts = urlsplit(self.base)
        self.origin = self._origin(parts)
        self.www = src / self.folder
        if not self.www.is_dir():
            raise ValueError(f"document root {self.www} does not exist")
        self.ctypes = _read_ctypes(src / CONTENT_TYPES_FILE)
        self.has_sidecar = (src / CONTENT_TYPES_FILE).is_file()
        self.result = OpaqueSite(src=src, dst=dst, base_url=self.base, seed=seed, folder=self.folder)
        self.files: dict[str, Path] = {}
        for p in sorted(self.www.rglob("*")):
            if p.is_file():
                self.files["/" + p.relative_to(self.www).as_posix()] = p
        self.kinds = {path: _kind(path, self.ctypes.get(path)) for path in self.files}
        self.dir_index: dict[str, str] = {}
        for path in self.files:
            if self.kinds[path] == "html":
                d, name = posixpath.split(path)
                if name in INDEX_NAMES:
                    key = d.rstrip("/") + "/"
                    cur = self.dir_index.get(key)
                    if cur is None or INDEX_NAMES.index(name) < INDEX_NAMES.index(posixpath.basename(cur)):
                        self.dir_index[key] = path
        self.pages_rows = _read_tsv(src / "pages.tsv", 2)
        self.gold_rows = _read_tsv(src / "gold.tsv", 4)
        self.codes = LangCodes(self._site_tags())
        self.result.lang_codes = self.codes.codes
        self.new_path: dict[str, str] = {}
        self.dead: dict[str, str] = {}
        self.rng = random.Random(seed)
        self.dead_rng = random.Random(f"opaque-dead:{seed}")
        self._words: set[str] = set()
        self.abs_pattern = re.compile(re.escape(self.base) + r"""(?=[/?#\s<>"']|$)[^\s<>"']*""", re.IGNORECASE)

    # -- naming ----------------------------------------------------------------------------------

    @staticmethod
    def _origin(parts) -> tuple[str, str, int | None]:
        scheme = parts.scheme.lower()
        try:
            port = parts.port
        except ValueError:
            port = -1
        return scheme, (parts.hostname or "").lower(), port or {"http": 80, "https": 443}.get(scheme)

    def _site_tags(self) -> set[str]:
        tags = {row[1] for row in self.pages_rows} | {row[0] for row in self.gold_rows}
        tags |= {row[2] for row in self.gold_rows}
        for path, kind in self.kinds.items():
            if kind in ("html", "xml"):
                data = self.files[path].read_bytes()
                tags |= {m.group(1).decode("ascii") for m in _LANG_VALUE.finditer(data)}
        return tags

    def _hex(self, rng: random.Random) -> str:
        """A fresh random name; never a word already used in the site's paths."""
        while True:
            h = f"{rng.getrandbits(HEX_DIGITS * 4):0{HEX_DIGITS}x}"
            if h not in self._words:
                self._words.add(h)
                return h

    def _ext(self, name: str, default: str = "") -> str:
        ext = posixpath.splitext(name)[1]
        if ext and re.fullmatch(r"\.[A-Za-z0-9]{1,8}", ext) and not self.codes.in_path(ext):
            return ext
        return default

    def _resource_name(self, path: str, rng: random.Random, folder: str) -> str:
        """A file's new path: unchanged when clean, else under ``folder`` keeping a clean file name.

        With ``hide_dirs`` every file outside the root directory moves, its folder replaced by one
        random name per original folder (files that shared a folder still do)."""
        directory, name = posixpath.split(path)
        if not self.codes.in_path(path) and (not self.hide_dirs or directory == "/"):
            return path
        if name and not self.codes.in_path(name):
            if self.hide_dirs:
                if directory not in self.dir_names:
                    self.dir_names[directory] = self._hex(rng)
                return f"{folder}{self.dir_names[directory]}/{name}"
            return f"{folder}{self._hex(rng)}/{name}"
        return f"{folder}{self._hex(rng)}{self._ext(name)}"

    def _lang_slot_path(self, path: str, lang: str) -> str:
        """/dir/name.fr.html -> /french/dir/name_fr.html: the language in two fields at once."""
        directory, name = posixpath.split(path)
        stem = re.sub(rf"\.{re.escape(lang)}(\.[A-Za-z0-9]+)?$", "", name, flags=re.IGNORECASE)
        stem = posixpath.splitext(stem)[0] or "index"
        return f"/{LANGUAGE_NAMES.get(lang.lower(), lang.lower())}{directory.rstrip('/')}/{stem}_{lang}.html"

    def assign_names(self) -> None:
        self._words = {w for path in self.files for w in re.split(r"[/.]", path) if w}
        page_langs: dict[str, str] = {}
        if self.lang_slots:  # pages of the gold standard get language slots, the rest random paths
            for url, lang in self.pages_rows:
                page_langs[_norm_path(unquote(urlsplit(url).path))] = lang
        for path in self.files:  # clean files keep their path (drawn names avoid every word of the paths)
            kept = not self.hide_dirs or posixpath.dirname(path) == "/"
            if self.kinds[path] != "html" and not self.codes.in_path(path) and kept:
                self.new_path[path] = path
        for path in self.files:
            if path in self.new_path:
                continue
            if self.kinds[path] == "html" and path in page_langs:
                new = self._lang_slot_path(path, page_langs[path])
            elif self.kinds[path] == "html":
                new = path if path in ROOT_PAGES else f"{PAGE_DIR}{self._hex(self.rng)}{self._ext(path, '.html')}"
            else:
                new = self._resource_name(path, self.rng, ASSET_DIR)
            self.new_path[path] = new

    # -- resolving ------------------------------------------------------------------------------

    def target(self, path: str) -> tuple[str, bool]:
        """New path of an old (unquoted) URL path, and whether something is there."""
        path = _norm_path(path)
        if path == "/":
            return "/", "/" in self.dir_index
        if path in self.files:
            return self.new_path[path], True
        index = self.dir_index.get(path if path.endswith("/") else path + "/")
        if index is not None:
            return self.new_path[index], True
        return self._dead_path(path), False

    def _dead_path(self, path: str) -> str:
        new = self.dead.get(path)
        if new is None:
            name = posixpath.basename(path)
            ext = posixpath.splitext(name)[1].lower().lstrip(".")
            if name and ext in RESOURCE_EXTS:
                new = self._resource_name(path, self.dead_rng, ASSET_DIR)
            else:
                new = f"{DEAD_DIR}{self._hex(self.dead_rng)}" + ("/" if path.endswith("/") else self._ext(name))
            self.dead[path] = new
        return new

    def map_url(self, value: str, base: str) -> str | None:
        """The rewritten form of a URL reference, None when it is not internal (left alone)."""
        try:
            absolute = urljoin(base, value)
            parts = urlsplit(absolute)
            origin = self._origin(parts)
        except ValueError:
            return None
        if parts.scheme.lower() not in ("http", "https") or origin != self.origin:
            self.result.links_external += 1
            return None
        new_path, live = self.target(unquote(parts.path) or "/")
        self.result.links_rewritten += 1
        if not live:
            self.result.links_dead += 1
            self.result.dead_links[self.base + _url_path(_norm_path(unquote(parts.path)))] = self.base + _url_path(new_path)
        out = _url_path(new_path)
        if parts.query:
            out += "?" + parts.query
        if parts.fragment:
            out += "#" + parts.fragment
        if urlsplit(value).scheme or value.startswith("//"):
            out = self.base + out  # an absolute URL stays absolute
        return out

    def rewrite_value(self, raw: str, codec: _Codec, base: str, entities: bool) -> str | None:
        """Rewrite one raw (view) URL value; None when unchanged."""
        text = codec.to_str(raw)
        if entities:
            text = html.unescape(text)
        value = text.strip(_WS).replace("\t", "").replace("\n", "").replace("\r", "")
        if not value or value.startswith("#"):
            return None
        new = self.map_url(value, base)
        if new is None:
            return None
        if entities:
            new = new.replace("&", "&amp;")
        return codec.to_view(new)

    def abs_url(self, url: str) -> tuple[str, bool] | None:
        """New absolute URL of an absolute old URL (for the TSV files), with its liveness."""
        parts = urlsplit(url)
        if self._origin(parts) != self.origin or parts.scheme.lower() not in ("http", "https"):
            return None
        new_path, live = self.target(unquote(parts.path) or "/")
        out = self.base + _url_path(new_path)
        if parts.query:
            out += "?" + parts.query
        if parts.fragment:
            out += "#" + parts.fragment
        return out, live

    # -- markup ---------------------------------------------------------------------------------

    def rewrite_markup(self, s: str, codec: _Codec, url: str, xml: bool) -> str:
        """Rewrite links and drop language markup in an HTML (or XML) document viewed as ``s``."""
        edits: list[tuple[int, int, str]] = []
        base = url if xml else self._base_href(s, codec, url)
        for tok in _tokenize(s, xml):
            kind = tok[0]
            if kind == "text":
                if xml:
                    self._text_urls(s, tok[1], tok[2], codec, edits)
            elif kind == "tag":
                _, start, end, name, attrs = tok
                self._tag(s, start, end, name, attrs, codec, base, xml, edits)
            elif kind == "raw":
                if tok[3] == "style":
                    self._css(s, tok[1], tok[2], codec, base, False, edits)
            elif kind == "lang-element":
                edits.append((*_line_span(s, tok[1], tok[2]), ""))
                self.result.elements_removed += 1
        return _apply(s, edits)

    def _base_href(self, s: str, codec: _Codec, url: str) -> str:
        """The document's base URL: its first ``<base href>`` (outside scripts and comments)."""
        for tok in _tokenize(s, False):
            if tok[0] == "tag" and tok[3] == "base":
                for a in tok[4]:
                    if s[a.start : a.name_end].lower() == "href" and a.value:
                        href = html.unescape(codec.to_str(s[a.value[0] : a.value[1]])).strip(_WS)
                        if href:
                            return urljoin(url, href)
        return url

    def _tag(self, s, start, end, name, attrs, codec, base, xml, edits) -> str | None:
        values: dict[str, str] = {}
        for a in attrs:
            key = s[a.start : a.name_end].lower()
            if key not in values:
                values[key] = "" if a.value is None else html.unescape(codec.to_str(s[a.value[0] : a.value[1]]))
        if not xml and name == "meta":
            equiv = values.get("http-equiv", "").strip().lower()
            meta_name = values.get("name", "").strip().lower()
            prop = values.get("property", "").strip().lower()
            if (
                equiv == "content-language"
                or meta_name in _LANG_META_NAMES
                or prop in _LOCALE_PROPERTIES
                or values.get("itemprop", "").strip().lower() == "inlanguage"
            ):
                edits.append((*_line_span(s, start, end), ""))
                self.result.elements_removed += 1
                return "removed"
        if (
            not xml
            and self.drop_alternates
            and name == "link"
            and "hreflang" in values
            and "alternate" in values.get("rel", "").lower().split()
        ):
            edits.append((*_line_span(s, start, end), ""))
            self.result.elements_removed += 1
            return "removed"
        for a in attrs:
            key = s[a.start : a.name_end].lower()
            if key in _LANG_ATTRS:
                edits.append((a.ws, a.end, ""))
                self.result.lang_attrs_removed += 1
                continue
            if a.value is None:
                continue
            v0, v1 = a.value
            raw = s[v0:v1]
            new = None
            if xml:
                if key in _XML_URL_ATTRS:
                    new = self.rewrite_value(raw, codec, base, True)
            elif key in _URL_ATTRS or (key == "data" and name == "object"):
                new = self.rewrite_value(raw, codec, base, True)
            elif key in _SRCSET_ATTRS:
                new = self._srcset(raw, codec, base)
            elif key == "style":
                new = self._css_text(raw, codec, base, True)
            elif key == "content" and name == "meta":
                new = self._meta_content(raw, values, codec, base)
            if new is None or new == raw:
                continue
            if a.quote:
                new = new.replace(a.quote, "&quot;" if a.quote == '"' else "&#39;")
                edits.append((v0, v1, new))
            elif re.fullmatch(r"[^\s\"'=<>`]+", new):
                edits.append((v0, v1, new))
            else:
                edits.append((v0, v1, '"' + new.replace('"', "&quot;") + '"'))
        return None

    def _meta_content(self, raw: str, values: dict[str, str], codec: _Codec, base: str) -> str | None:
        if values.get("http-equiv", "").strip().lower() == "refresh":
            m = _REFRESH.match(raw)
            if not m or not m.group(3).strip():
                return None
            new = self.rewrite_value(m.group(3), codec, base, True)
            return None if new is None else m.group(1) + m.group(2) + new + m.group(4)
        key = (values.get("property") or values.get("name") or values.get("itemprop") or "").strip().lower()
        value = values.get("content", "").strip()
        if key in _URL_METAS or (
            value.startswith(("http://", "https://", "//")) and self._origin(urlsplit(urljoin(base, value))) == self.origin
        ):
            return self.rewrite_value(raw, codec, base, True)
        return None

    def _srcset(self, raw: str, codec: _Codec, base: str) -> str | None:
        out: list[str] = []
        i, n = 0, len(raw)
        changed = False
        while i < n:
            j = i
            while j < n and (raw[j] in _WS or raw[j] == ","):
                j += 1
            out.append(raw[i:j])
            i = j
            if i >= n:
                break
            while j < n and raw[j] not in _WS:
                j += 1
            url = raw[i:j]
            stripped = url.rstrip(",")
            new = self.rewrite_value(stripped, codec, base, True) if stripped else None
            if new is not None:
                changed = True
                out.append(new + url[len(stripped) :])
            else:
                out.append(url)
            i = j
            depth = 0
            while j < n and not (raw[j] == "," and depth <= 0) and url == stripped:
                depth += raw[j] == "("
                depth -= raw[j] == ")"
                j += 1
            out.append(raw[i:j])
            i = j
        return "".join(out) if changed else None

    def _css_text(self, raw: str, codec: _Codec, base: str, entities: bool) -> str | None:
        edits: list[tuple[int, int, str]] = []
        self._css(raw, 0, len(raw), codec, base, entities, edits)
        return _apply(raw, edits) if edits else None

    def _css(self, s: str, a: int, b: int, codec: _Codec, base: str, entities: bool, edits) -> None:
        for m in _CSS_URL.finditer(s, a, b):
            group = "url" if m.group("pre") is not None else "iurl"
            raw = m.group(group)
            if raw.strip().lower().startswith("data:"):
                continue
            new = self.rewrite_value(raw, codec, base, entities)
            if new is not None:
                edits.append((m.start(group), m.end(group), new))

    def _text_urls(self, s: str, a: int, b: int, codec: _Codec, edits) -> None:
        for m in self.abs_pattern.finditer(s, a, b):
            new = self.rewrite_value(m.group(0), codec, self.base, True)
            if new is not None and new != m.group(0):
                edits.append((m.start(), m.end(), new))

    # -- files ----------------------------------------------------------------------------------

    def robots(self, s: str, codec: _Codec) -> str:
        out = []
        all_paths = [(p, self.target(p)[0]) for p in list(self.files) + list(self.dir_index)]
        for line in s.splitlines(keepends=True):
            body = line.rstrip("\r\n")
            m = re.match(r"(?i)^(\s*)(allow|disallow)(\s*:\s*)([^#\s]*)(.*)$", body)
            if not m:
                edits: list[tuple[int, int, str]] = []
                self._text_urls(line, 0, len(line), codec, edits)
                out.append(_apply(line, edits))
                continue
            rule = codec.to_str(m.group(4))
            if not rule:
                out.append(line)
                continue
            rx = _robots_regex(unquote(rule))
            extra = sorted({new for old, new in all_paths if rx.match(old) and not rx.match(new)})
            if not self.codes.in_path(rule):
                out.append(line)
            eol = line[len(body) :] or "\n"
            for new in extra:
                out.append(f"{m.group(1)}{m.group(2)}{m.group(3)}{_url_path(new)}{eol}")
                self.result.robots_rules_added += 1
        return "".join(out)

    def process_file(self, path: str) -> bytes:
        data = self.files[path].read_bytes()
        kind = self.kinds[path]
        if kind == "file":
            return data
        url = self.base + _url_path(path)
        codec = sniff_codec(data, self.ctypes.get(path), html_page=kind == "html")
        s = codec.view(data)
        if kind == "html":
            s = self.rewrite_markup(s, codec, url, xml=False)
        elif kind == "xml":
            s = self.rewrite_markup(s, codec, url, xml=True)
        elif kind == "css":
            s = self._css_text(s, codec, url, False) or s
        elif kind == "robots":
            s = self.robots(s, codec)
        return codec.to_bytes(s)

    def run(self) -> OpaqueSite:
        res = self.result
        self.assign_names()
        new_www = self.dst / self.folder
        new_www.mkdir(parents=True, exist_ok=True)
        for path in self.files:
            kind = self.kinds[path]
            try:
                data = self.process_file(path)
            except Exception as exc:  # noqa: BLE001 - reported, the page is kept
                res.failures.append((path, f"{type(exc).__name__}: {exc}"))
                data = self.files[path].read_bytes()
            new = self.new_path[path]
            target = new_www / new.lstrip("/")
            target.parent.mkdir(parents=True, exist_ok=True)
            target.write_bytes(data)
            if kind == "html":
                res.html_pages += 1
                res.page_files[path] = new
            else:
                res.files_copied += 1
                res.files_renamed += new != path
        self._metadata()
        return res

    def _metadata(self) -> None:
        res = self.result
        for path, new in self.new_path.items():
            res.mapping[self.base + _url_path(path)] = self.base + _url_path(new)
        for d, index in self.dir_index.items():
            res.mapping[self.base + _url_path(d)] = self.base + _url_path("/" if d == "/" else self.new_path[index])
        for url, lang in self.pages_rows:
            mapped = self.abs_url(url)
            if mapped is None or not mapped[1]:
                res.failures.append((url, "pages.tsv URL is not a page of the site"))
                continue
            res.pages.append((mapped[0], lang))
        for l1, u1, l2, u2 in self.gold_rows:
            m1, m2 = self.abs_url(u1), self.abs_url(u2)
            if not (m1 and m2 and m1[1] and m2[1]):
                res.failures.append((f"{u1} {u2}", "gold.tsv URL is not a page of the site"))
                continue
            res.gold.append((l1, m1[0], l2, m2[0]))
        res.pages.sort()
        res.gold.sort()
        dst = self.dst
        (dst / "hosts.tsv").write_bytes(self.hosts_text)
        (dst / "pages.tsv").write_text("".join(f"{u}\t{lang}\n" for u, lang in res.pages), "utf-8")
        (dst / "gold.tsv").write_text("".join("\t".join(row) + "\n" for row in res.gold), "utf-8")
        (dst / MAPPING_FILE).write_text("".join(f"{o}\t{n}\n" for o, n in sorted(res.mapping.items())), "utf-8")
        (dst / DEAD_LINKS_FILE).write_text(
            "".join(f"{o}\t{n}\n" for o, n in sorted(res.dead_links.items())), "utf-8"
        )
        seeds_src = self.src / "seeds.txt"
        if seeds_src.is_file():
            (dst / "seeds.txt").write_text(self._seeds(seeds_src.read_text("utf-8")), "utf-8")
        if self.has_sidecar:
            rows = {}
            for path, ctype in self.ctypes.items():
                norm = _norm_path(path)
                if norm in self.files:
                    rows[self.new_path[norm]] = ctype
                elif not self.codes.in_path(path):
                    rows[path] = ctype
            (dst / CONTENT_TYPES_FILE).write_text("".join(f"{p}\t{t}\n" for p, t in sorted(rows.items())), "utf-8")
        for p in sorted(self.src.iterdir()):
            if p.is_file() and p.name.upper().startswith(COPIED_PREFIXES):
                shutil.copyfile(p, dst / p.name)

    def _seeds(self, text: str) -> str:
        out = []
        for line in text.splitlines():
            m = _COMMENT.search(line)
            head, tail = (line[: m.start()], line[m.start() :]) if m else (line, "")

            def one(tok: re.Match[str]) -> str:
                mapped = self.abs_url(tok.group(0)) if "://" in tok.group(0) else None
                if mapped is None:
                    return tok.group(0)
                return mapped[0]

            new_line = re.sub(r"\S+", one, head) + tail
            out.append(new_line)
            self.result.seeds += [t for t in new_line.split() if "://" in t and not t.startswith("#")]
        return "\n".join(out) + "\n"


def _robots_regex(rule: str) -> re.Pattern[str]:
    anchored = rule.endswith("$")
    body = rule[:-1] if anchored else rule
    return re.compile("".join(".*" if c == "*" else re.escape(c) for c in body) + ("$" if anchored else ""))


def _apply(s: str, edits: list[tuple[int, int, str]]) -> str:
    if not edits:
        return s
    out = []
    last = 0
    for a, b, new in sorted(edits, key=lambda e: (e[0], e[1])):
        if a < last:  # overlapping (a removed line holding another edit): the first wins
            continue
        out.append(s[last:a])
        out.append(new)
        last = b
    out.append(s[last:])
    return "".join(out)


