"""Sentence splitters compared: stock pysbd (the old ``split_sentences``), mirage's linear-time
pysbd (``mirage_core.claims.split_sentences``), sentencex and blingfire (when installed).

Real text: a seeded sample of gpe-eval benign passages (their ``contents`` joined by a space, the
first 20,000 characters as Mirage reads them). Pathological text: 20,000-character inputs that
make rule-based splitters slow. Times are CPU seconds (``time.process_time``), so the load of a
shared machine weighs less. Agreement is measured against stock pysbd: the share of passages
whose sentence spans are identical, and the share of its sentences found with identical spans.

    python research/splitter_compare.py [--n 300] [--seed 0] [--no-stock-pathological]
"""

from __future__ import annotations

import argparse
import json
import random
import statistics
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from mirage_core import claims

N_CHARS = 20_000


def stock_pysbd():
    import pysbd

    seg = pysbd.Segmenter(language="en", clean=False)
    return lambda text: claims._locate(text, seg.segment(text)) if text else []


def mirage_no_glue(text):
    saved = claims.SPLIT_GLUED
    claims.SPLIT_GLUED = False
    try:
        return claims.split_sentences(text)
    finally:
        claims.SPLIT_GLUED = saved


def splitters():
    out = {"pysbd (stock)": stock_pysbd()}
    if hasattr(claims, "SPLIT_GLUED"):
        out["mirage (glued off)"] = mirage_no_glue
    out["mirage"] = claims.split_sentences
    try:
        import sentencex

        out["sentencex"] = lambda t: claims._locate(t, list(sentencex.segment("en", t)))
    except ImportError:
        print("sentencex not installed")
    try:
        import blingfire

        def bf(t):
            if not t.strip():
                return []
            _, offsets = blingfire.text_to_sentences_and_offsets(t)
            return [(a, b) for a, b in offsets]

        out["blingfire"] = bf
    except ImportError:
        print("blingfire not installed")
    return out


def gpe_benign():
    import importlib.util

    spec = importlib.util.find_spec("gpe")
    path = Path(spec.submodule_search_locations[0]) / "data" / "gpe.jsonl"
    texts = []
    with path.open() as f:
        for line in f:
            for item in json.loads(line)["evidence_environment"]["benign"]:
                c = item.get("contents") or []
                c = [c] if isinstance(c, str) else c
                text = " ".join(str(s) for s in c)[:N_CHARS]
                if text.strip():
                    texts.append(text)
    return texts


def pathological():
    def fill(unit):
        return (unit * (N_CHARS // len(unit) + 1))[:N_CHARS]

    return {
        '"a. "': fill("a. "),
        "no punctuation": fill("lorem ipsum dolor sit amet "),
        "no spaces": "x" * N_CHARS,
        '"Dr. "': fill("Dr. "),
        '"1. "': fill("1. "),
        '"U.S. "': fill("U.S. "),
        '"St. st. sT. ST. "': fill("St. st. sT. ST. "),
        "newlines": fill("a\n"),
        "nested quotes": fill('He said "she said \'they said "yes." \' ". '),
        "quoted sentences": fill('"a." '),
        "quotes only": '"' * N_CHARS,
        "parentheses": fill("(a) "),
    }


def timed(fn, text):
    t0 = time.process_time()
    spans = fn(text)
    return spans, time.process_time() - t0


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--n", type=int, default=300)
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--no-stock-pathological", action="store_true")
    args = ap.parse_args()

    fns = splitters()
    for fn in fns.values():
        fn("Warm up. Twice.")
    benign = gpe_benign()
    texts = random.Random(args.seed).sample(benign, args.n)
    compare(fns, texts, f"gpe-eval benign sample, seed {args.seed}", glued=True)
    longest = sorted(benign, key=len, reverse=True)[:10]
    compare(fns, longest, "the 10 longest gpe-eval benign passages", glued=False)
    pathological_table(fns, args)


def compare(fns, texts, label, glued):
    lengths = [len(t) for t in texts]
    print(
        f"\n{label}: {len(texts)} passages, characters median "
        f"{statistics.median(lengths):.0f}, max {max(lengths)}"
    )
    results = {}
    for name, fn in fns.items():
        results[name] = [timed(fn, t) for t in texts]
    ref = [s for s, _ in results["pysbd (stock)"]]
    n_ref = sum(len(s) for s in ref)
    print(
        f"\n{'splitter':<20} {'median ms':>9} {'max ms':>8} {'total s':>8} "
        f"{'same passages':>14} {'same sentences':>15} {'sentences':>9}"
    )
    for name, rows in results.items():
        times = [t for _, t in rows]
        same_p = sum(s == r for (s, _), r in zip(rows, ref, strict=True))
        same_s = sum(len(set(s) & set(r)) for (s, _), r in zip(rows, ref, strict=True))
        print(
            f"{name:<20} {1000 * statistics.median(times):9.2f} {1000 * max(times):8.1f} "
            f"{sum(times):8.2f} {same_p:>8}/{len(texts):<5} {same_s / n_ref:14.1%} "
            f"{sum(len(s) for s, _ in rows):9}"
        )
    if glued and "mirage (glued off)" in results:
        off = [s for s, _ in results["mirage (glued off)"]]
        on = [s for s, _ in results["mirage"]]
        changed = [i for i, (a, b) in enumerate(zip(off, on, strict=True)) if a != b]
        print(f"\nglued-boundary rule: {len(changed)} of {len(texts)} passages change spans")
        for i in changed[:10]:
            extra = sorted(set(on[i]) - set(off[i]))
            for a, b in extra[:3]:
                print(
                    f"  passage {i}: ...{texts[i][max(0, a - 40) : a]!r} | {texts[i][a:b][:40]!r}"
                )


def pathological_table(fns, args):
    print(f"\npathological inputs ({N_CHARS:,} characters each), ms (sentences)")
    names = [n for n in fns if not (args.no_stock_pathological and n == "pysbd (stock)")]
    print(f"{'input':<22}" + "".join(f"{n:>22}" for n in names))
    for label, text in pathological().items():
        cells = []
        for n in names:
            spans, t = timed(fns[n], text)
            cells.append(f"{1000 * t:12.1f} ({len(spans):>6})")
        print(f"{label:<22}" + "".join(f"{c:>22}" for c in cells), flush=True)


if __name__ == "__main__":
    main()
