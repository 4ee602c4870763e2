"""hunalign (github.com/danielvarga/hunalign) on sentences segmented elsewhere: its dictionary
format, its input and its ``-text`` output, for ``compare_sentence_alignment.py``.

hunalign reads one sentence a line, tokens separated by spaces, and a dictionary of
``target phrase @ source phrase`` lines (target first, the reverse of the command line's order).
Its ``-text`` output has one segment a line: source sentences, target sentences (several joined
by `` ~~~ ``, none when empty) and a score, tab-separated.
"""

from __future__ import annotations

import subprocess
import tempfile
from collections.abc import Sequence
from pathlib import Path
from typing import TypeVar

from matchers.page.word_tokens import word_tokens

Bead = tuple[tuple[int, ...], tuple[int, ...]]
K = TypeVar("K")


def hunalign_dictionary(dic: Path | None, source: str, target: str, out: Path) -> int:
    """Write ``dic`` (a TSV whose header names its two languages) in hunalign's format, tokens as
    the aligner gets them; an empty file for no dictionary.  Returns the number of entries."""
    lines = []
    if dic is not None:
        rows = [line.split("\t") for line in dic.read_text("utf-8").splitlines() if line.strip()]
        header = [c.strip() for c in rows[0]]
        if sorted(header) != sorted((source, target)):
            raise SystemExit(f"{dic} is a {'-'.join(header)} dictionary, not {source}-{target}")
        si, ti = header.index(source), header.index(target)
        for row in rows[1:]:
            if len(row) <= max(si, ti):
                continue
            src, tgt = " ".join(word_tokens(row[si])), " ".join(word_tokens(row[ti]))
            if src and tgt:
                lines.append(f"{tgt} @ {src}")
    entries = list(dict.fromkeys(lines))
    out.write_text("".join(line + "\n" for line in entries), "utf-8")
    return len(entries)


def tokenized(sentences: Sequence[str]) -> list[str]:
    return [" ".join(word_tokens(s)) for s in sentences]


def parse_text_output(text: str, tokens1: Sequence[str], tokens2: Sequence[str]) -> list[Bead]:
    """Beads with both sides from hunalign's ``-text`` output of the two token files."""
    beads, i, j = [], 0, 0
    for line in text.splitlines():
        cells = line.split("\t")
        if len(cells) < 2:
            continue
        parts1 = cells[0].split(" ~~~ ") if cells[0] else []
        parts2 = cells[1].split(" ~~~ ") if cells[1] else []
        if parts1 != list(tokens1[i:i + len(parts1)]) or parts2 != list(tokens2[j:j + len(parts2)]):
            raise ValueError(f"hunalign's output does not follow its input at sentences {i}, {j}: {line[:80]!r}")
        if parts1 and parts2:
            beads.append((tuple(range(i, i + len(parts1))), tuple(range(j, j + len(parts2)))))
        i, j = i + len(parts1), j + len(parts2)
    if (i, j) != (len(tokens1), len(tokens2)):
        raise ValueError(f"hunalign's output covers {i}/{len(tokens1)} and {j}/{len(tokens2)} sentences")
    return beads


def run_hunalign(binary: Path, dictionary: Path, documents: dict[K, tuple[Sequence[str], Sequence[str]]],
                 realign: bool = False) -> dict[K, list[Bead]]:
    """hunalign's beads of every document pair (source sentences, target sentences), in one batch
    run; no beads for a pair with an empty side."""
    with tempfile.TemporaryDirectory() as tmp:
        jobs, tokens = [], {}
        for n, (key, (sentences1, sentences2)) in enumerate(documents.items()):
            t1, t2 = tokenized(sentences1), tokenized(sentences2)
            if not t1 or not t2:
                continue
            # No final newline: hunalign would read an empty last sentence.
            files = [Path(tmp) / f"{n}.{x}" for x in ("src", "tgt", "out")]
            files[0].write_text("\n".join(t1), "utf-8")
            files[1].write_text("\n".join(t2), "utf-8")
            jobs.append("\t".join(map(str, files)))
            tokens[key] = (t1, t2, files[2])
        if not jobs:
            return {key: [] for key in documents}
        batch = Path(tmp) / "batch"
        batch.write_text("\n".join(jobs) + "\n", "utf-8")
        # A bare name is looked up on PATH; a path must survive the change of working directory.
        exe = str(binary.resolve()) if "/" in str(binary) else str(binary)
        cmd = [exe, "-text", *(["-realign"] if realign else []), str(dictionary.resolve()), "-batch", str(batch)]
        try:
            # cwd: hunalign writes a log, translate.txt, into the working directory.
            subprocess.run(cmd, check=True, capture_output=True, cwd=tmp)
        except (OSError, subprocess.CalledProcessError) as exc:
            stderr = getattr(exc, "stderr", b"") or b""
            raise SystemExit(f"hunalign failed ({' '.join(cmd[:1])}): {exc}\n{stderr.decode(errors='replace')[-500:]}") from exc
        beads = {key: parse_text_output(out.read_text("utf-8"), t1, t2) for key, (t1, t2, out) in tokens.items()}
    return {key: beads.get(key, []) for key in documents}
