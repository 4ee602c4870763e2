"""URL pairing keys alone against the "delete language codes" baseline on the development sets.

    python benchmarks/url_keys_devsets.py [SET ...] [--seed 0] [--per-pair]

For every set of benchmarks/url_devsets.py: the URLs are added to `UrlKeyIndex` in a shuffled
order (a crawl's order is arbitrary) with their page languages, as the crawl adds them, and the
union's pairs are scored best key first with ../shared/bench/score.py.  The baseline deletes
from every URL the tokens that are ISO 639-1 codes (and a region or script subtag right after
one, as in zh-hans or pt-br) and pairs the URLs left equal whose languages differ.  A predicted
URL that is an alias of a gold page is scored as that page.
"""

from __future__ import annotations

import argparse
import json
import random
import re
import subprocess
import sys
import tempfile
from collections import defaultdict
from pathlib import Path
from urllib.parse import urlsplit

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "benchmarks"))

from url_devsets import SETS, Entry, gold_pairs, load  # noqa: E402

from matchers.site.url_keys import UrlKeyIndex  # noqa: E402

SCORE = ROOT.parent / "shared" / "bench" / "score.py"

ISO_639_1 = set(
    ["aa", "ab", "ae", "af", "ak", "am", "an", "ar", "as", "av", "ay", "az", "ba", "be", "bg", "bh", "bi", "bm", "bn", "bo", "br", "bs", "ca", "ce", "ch", "co", "cr", "cs", "cu", "cv", "cy", "da", "de", "dv", "dz", "ee", "el", "en", "eo", "es", "et", "eu", "fa", "ff", "fi", "fj", "fo", "fr", "fy", "ga", "gd", "gl", "gn", "gu", "gv", "ha", "he", "hi", "ho", "hr", "ht", "hu", "hy", "hz", "ia", "id", "ie", "ig", "ii", "ik", "io", "is", "it", "iu", "ja", "jv", "ka", "kg", "ki", "kj", "kk", "kl", "km", "kn", "ko", "kr", "ks", "ku", "kv", "kw", "ky", "la", "lb", "lg", "li", "ln", "lo", "lt", "lu", "lv", "mg", "mh", "mi", "mk", "ml", "mn", "mr", "ms", "mt", "my", "na", "nb", "nd", "ne", "ng", "nl", "nn", "no", "nr", "nv", "ny", "oc", "oj", "om", "or", "os", "pa", "pi", "pl", "ps", "pt", "qu", "rm", "rn", "ro", "ru", "rw", "sa", "sc", "sd", "se", "sg", "si", "sk", "sl", "sm", "sn", "so", "sq", "sr", "ss", "st", "su", "sv", "sw", "ta", "te", "tg", "th", "ti", "tk", "tl", "tn", "to", "tr", "ts", "tt", "tw", "ty", "ug", "uk", "ur", "uz", "ve", "vi", "vo", "wa", "wo", "xh", "yi", "yo", "za", "zh", "zu"]
)
_SUBTAG = re.compile(r"^(?:[a-z]{2}|[a-z]{4})$")


def delete_codes(url: str) -> tuple[str, tuple[str, ...]]:
    parts = urlsplit(url.lower())
    tokens = re.findall(r"[^\W_]+|[\W_]+", parts.path + "?" + parts.query)
    out, prev_code = [], False
    for tok in tokens:
        if tok.isalnum():
            if tok in ISO_639_1 or (prev_code and _SUBTAG.match(tok)):
                prev_code = True
                continue
            prev_code = False
        out.append(tok)
    return parts.netloc, tuple(re.sub(r"[\W_]+", "/", "".join(out)).strip("/").split("/"))


def baseline_pairs(entries: list[Entry]) -> list[tuple[str, str, float]]:
    groups: dict[tuple, list[Entry]] = defaultdict(list)
    for e in entries:
        groups[delete_codes(e.url)].append(e)
    pairs = []
    for members in groups.values():
        seen: dict[str, Entry] = {}
        for e in members:
            seen.setdefault(e.lang, e)
        firsts = list(seen.values())
        for i, a in enumerate(firsts):
            for b in firsts[i + 1:]:
                pairs.append((a.url, b.url, 1.0))
    return pairs


def key_pairs(entries: list[Entry], seed: int) -> tuple[list[tuple[str, str, float]], UrlKeyIndex]:
    order = list(entries)
    random.Random(seed).shuffle(order)
    index = UrlKeyIndex()
    for e in order:
        index.add(e.url, e.lang)
    index.recompute()
    return [(a, b, index.key_score(a, b)) for a, b, _ in index.pairs()], index


def score(entries: list[Entry], pairs: list[tuple[str, str, float]]) -> dict:
    canon, gold = gold_pairs(entries)
    lang = {e.url: e.lang for e in entries}
    with tempfile.TemporaryDirectory() as tmp:
        g, p = Path(tmp) / "gold.tsv", Path(tmp) / "pred.tsv"
        g.write_text("".join("\t".join(row) + "\n" for row in gold), encoding="utf-8")
        p.write_text("".join(f"{lang[a]}\t{canon.get(a, a)}\t{lang[b]}\t{canon.get(b, b)}\t{s:.6f}\n"
                             for a, b, s in sorted(pairs, key=lambda x: (-x[2], x[0], x[1]))), encoding="utf-8")
        out = subprocess.run([sys.executable, str(SCORE), str(g), str(p), "--json"], check=True,
                             capture_output=True, text=True).stdout
    return json.loads(out)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("sets", nargs="*", default=list(SETS))
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--per-pair", action="store_true", help="also P/R per language pair")
    ap.add_argument("--keys", type=int, default=0, help="print this many accepted keys per set")
    a = ap.parse_args()
    print("| set | URLs | languages | gold pairs | baseline P | baseline R | keys P | keys R | keys tp | keys fp |")
    print("|---|---|---|---|---|---|---|---|---|---|")
    details = []
    for name in a.sets:
        entries = load(name)
        base = score(entries, baseline_pairs(entries))
        pairs, index = key_pairs(entries, a.seed)
        keys = score(entries, pairs)
        print(f"| {name} | {len(entries):,} | {len({e.lang for e in entries})} | {keys['gold']:,} | "
              f"{base['precision']:.3f} | {base['recall']:.3f} | {keys['precision']:.3f} | "
              f"{keys['recall']:.3f} | {keys['tp']:,} | {keys['fp']:,} |")
        details.append((name, keys, index))
    for name, keys, index in details:
        if a.keys:
            print(f"\n{name}: threshold {index.threshold():.1f}; accepted keys: "
                  + ", ".join(f"{r.key} ({r.field}, {r.power})" for r in index.rows()[:a.keys]))
            print("  dropped: " + ", ".join(f"{r.key.text} ({r.key.field}, {r.key.power}, {r.reason} "
                                            f"{r.rejected_share:.2f})" for r in index.rejected_keys()[:a.keys]))
        if a.per_pair:
            print(f"\n{name}, keys alone, per language pair:")
            for lp, v in keys["pairs"].items():
                print(f"  {lp:14s} gold {v['gold']:4d} tp {v['tp']:4d} fp {v['fp']:3d} "
                      f"P {v['precision']:.3f} R {v['recall']:.3f}")


if __name__ == "__main__":
    main()
