"""Throughput of the content filter's translation model and sentence aligner (Tomás et al.,
*WebMining*, section 2.3), on synthetic page pairs.

Measured, after a warm-up that compiles the numba kernels:

* **update**: :meth:`TranslationModel.update`, one call per training page pair (one incremental EM
  step), in sentence pairs per second; early (the first tenth of the training documents) and late
  (the last tenth: the model at its full size) separately;
* **align**: :func:`matchers.content.sentence_align.align` on page pairs of each requested size against
  the trained model, parallel pairs (translations with about 5% of the sentences inserted on
  either side and 5% merged) and non-parallel pairs (two unrelated pages), in page pairs per
  second, beads per second and sentences (both sides) per second.

The toy language pair: a Zipf vocabulary of ``--vocab`` words per language; ``a<i>`` translates
as ``b<i>``; a translated sentence has its words shuffled, about 10% of them dropped and 10%
added at random.  Sentence lengths are about ``--words`` tokens.  No timing is asserted.

    .venv/bin/python benchmarks/bench_content.py [--vocab 4000] [--docs 1000] [--doc-sentences 50]
        [--sizes 30,150,500] [--pairs 40] [--words 15] [--seed 0]
"""

from __future__ import annotations

import argparse
import os
import platform
import sys
import time
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from matchers.content.sentence_align import align, content_scores  # noqa: E402
from matchers.content.translation_model import TranslationModel  # noqa: E402


class ToyPair:
    """Sentences of the toy language pair (see the module docstring)."""

    def __init__(self, vocab: int, words: int, rng: np.random.Generator) -> None:
        p = 1.0 / np.arange(1, vocab + 1) ** 1.05
        self.p = p / p.sum()
        self.vocab, self.words, self.rng = vocab, words, rng

    def _ids(self) -> np.ndarray:
        n = max(2, int(self.rng.normal(self.words, self.words / 3)))
        return self.rng.choice(self.vocab, size=n, p=self.p)

    def _translate(self, ids: np.ndarray) -> list[str]:
        keep = ids[self.rng.random(len(ids)) > 0.1]
        extra = self.rng.choice(self.vocab, size=int(self.rng.binomial(len(ids), 0.1)), p=self.p)
        return [f"b{i}" for i in self.rng.permutation(np.concatenate([keep, extra]))]

    def pair(self, n: int, noise: float = 0.05) -> tuple[list[list[str]], list[list[str]]]:
        """A parallel page pair of ``n`` source sentences with insertions and merges."""
        d1: list[list[str]] = []
        d2: list[list[str]] = []
        for _ in range(n):
            ids = self._ids()
            d1.append([f"a{i}" for i in ids])
            tr = self._translate(ids)
            r = self.rng.random()
            if r < noise and d2:
                d2[-1] = d2[-1] + tr  # merged with the previous sentence
            else:
                d2.append(tr)
            if self.rng.random() < noise:
                d2.append([f"b{i}" for i in self._ids()])  # untranslated sentence
            if self.rng.random() < noise:
                d1.append([f"a{i}" for i in self._ids()])
        return d1, d2

    def page(self, n: int, prefix: str) -> list[list[str]]:
        return [[f"{prefix}{i}" for i in self._ids()] for _ in range(n)]


def chars(doc: list[list[str]]) -> list[int]:
    return [sum(len(w) + 1 for w in s) for s in doc]


def bench_updates(toy: ToyPair, docs: int, sentences: int) -> tuple[TranslationModel, list[tuple[str, str]]]:
    warm = TranslationModel("xa", "xb")
    d1, d2 = toy.pair(5)
    warm.update(list(zip(d1, d2, strict=False)))
    model = TranslationModel("xa", "xb")
    tenth = max(1, docs // 10)
    spans: dict[str, list[float]] = {"early": [0.0, 0.0], "late": [0.0, 0.0], "all": [0.0, 0.0]}
    for k in range(docs):
        d1, d2 = toy.pair(sentences, noise=0.0)
        pairs = list(zip(d1, d2, strict=True))
        t0 = time.perf_counter()
        model.update(pairs)
        dt = time.perf_counter() - t0
        for name, on in (("early", k < tenth), ("late", k >= docs - tenth), ("all", True)):
            if on:
                spans[name][0] += dt
                spans[name][1] += len(pairs)
    rows = [(f"update, {name} ({'first' if name == 'early' else 'last' if name == 'late' else 'all'} "
             f"{tenth if name != 'all' else docs} docs)", f"{n / t:,.0f} sentence pairs/s  ({t / n * 1e6:.1f} us/pair)")
            for name, (t, n) in spans.items()]
    return model, rows


def bench_align(toy: ToyPair, model: TranslationModel, size: int, pairs: int) -> list[tuple[str, str]]:
    rows = []
    for kind in ("parallel", "non-parallel"):
        docs = []
        for _ in range(pairs):
            if kind == "parallel":
                d1, d2 = toy.pair(size)
            else:
                d1, d2 = toy.page(size, "a"), toy.page(size, "b")
            docs.append((d1, d2, chars(d1), chars(d2)))
        beads = sentences = 0
        shares = []
        t0 = time.perf_counter()
        for d1, d2, c1, c2 in docs:
            out = align(d1, d2, c1, c2, model)
            beads += len(out)
            sentences += len(d1) + len(d2)
            shares.append(content_scores(out, 0.5)[0])
        dt = time.perf_counter() - t0
        rows.append((f"align {size} x {size}, {kind}",
                     f"{pairs / dt:,.1f} page pairs/s, {beads / dt:,.0f} beads/s, {sentences / dt:,.0f} sentences/s "
                     f"({dt / pairs * 1e3:.2f} ms/pair; share > 0.5: mean {np.mean(shares):.2f})"))
    return rows


def main(argv: list[str] | None = None) -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--vocab", type=int, default=4000, help="words per language")
    ap.add_argument("--docs", type=int, default=1000, help="training page pairs")
    ap.add_argument("--doc-sentences", type=int, default=50, help="sentences per training page pair")
    ap.add_argument("--sizes", default="30,150,500", help="sentences per page of the aligned pairs")
    ap.add_argument("--pairs", type=int, default=40, help="page pairs aligned per size and kind")
    ap.add_argument("--words", type=int, default=15, help="mean tokens per sentence")
    ap.add_argument("--seed", type=int, default=0)
    args = ap.parse_args(argv)
    toy = ToyPair(args.vocab, args.words, np.random.default_rng(args.seed))

    t0 = time.perf_counter()
    model, rows = bench_updates(toy, args.docs, args.doc_sentences)
    train_s = time.perf_counter() - t0
    t0 = time.perf_counter()
    blob = model.to_bytes()
    save_ms = (time.perf_counter() - t0) * 1e3
    t0 = time.perf_counter()
    TranslationModel.from_bytes(blob)
    load_ms = (time.perf_counter() - t0) * 1e3
    v1, v2 = model.vocab_sizes
    rows.append(("model after training", f"{model.sentences_seen:,} sentence pairs, vocab {v1:,} + {v2:,}, "
                 f"{model.num_entries:,} entries (~{model.num_entries * 24 / 2**20:.0f} MiB)"))
    rows.append(("snapshot", f"{len(blob) / 2**20:.1f} MiB, to_bytes {save_ms:.0f} ms, from_bytes {load_ms:.0f} ms"))

    d1, d2 = toy.pair(8)
    align(d1, d2, chars(d1), chars(d2), model)  # compile
    for size in (int(s) for s in args.sizes.split(",") if s):
        rows += bench_align(toy, model, size, max(1, args.pairs if size <= 150 else args.pairs // 4))

    print(f"Python {platform.python_version()}, {os.cpu_count()} CPUs, {platform.machine()}; "
          f"vocab {args.vocab}, {args.words} words/sentence, training {args.docs} x {args.doc_sentences} "
          f"sentence pairs ({train_s:.1f} s)\n")
    print("| measure | result |")
    print("|---|---|")
    for name, value in rows:
        print(f"| {name} | {value} |")


if __name__ == "__main__":
    main()
