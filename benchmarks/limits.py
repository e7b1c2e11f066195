"""Oversized evidence: time and peak memory of one ``defend`` call on 1,000 and 10,000 passages.

Each size runs in a fresh process (peak RSS is the process's own). The evidence is seeded
synthetic text: short news-like passages on one question from distinct publishers, a few of
them carrying a changed number. ``--nli packaged`` scores pairs with the packaged model;
``--nli none`` with a constant test double, which isolates the engine's own cost.

    python -m benchmarks.limits --sizes 1000,10000 --nli none,packaged
"""

from __future__ import annotations

import argparse
import json
import random
import subprocess
import sys
import time

TEMPLATES = [
    "The Eiffel Tower was completed in {year} for the World's Fair in Paris.",
    "Gustave Eiffel's company built the tower, which opened to visitors in {year}.",
    "At {height} metres the tower was the tallest structure in the world for four decades.",
    "Visitors climb {steps} steps to reach the second floor of the tower.",
    "The tower is repainted every seven years with about 60 tonnes of paint.",
]


def passages(n: int, seed: int = 0) -> list[dict[str, object]]:
    rng = random.Random(seed)
    out = []
    for i in range(n):
        polluted = rng.random() < 0.1
        text = " ".join(
            t.format(
                year=1925 if polluted else 1889,
                height=410 if polluted else 330,
                steps=rng.choice([674, 704]),
            )
            for t in rng.sample(TEMPLATES, 3)
        )
        out.append(
            {"text": text, "source": f"https://site{i}.example/eiffel", "score": rng.random()}
        )
    return out


def run_one(n: int, nli: str) -> dict[str, object]:
    import resource

    import numpy as np

    from mirage_core import CallableNLI, Mirage, MirageConfig

    backend = (
        CallableNLI(lambda p, h: np.tile([0.34, 0.33, 0.33], (len(p), 1)))
        if nli == "none"
        else None
    )
    engine = Mirage(MirageConfig(), nli=backend)
    engine.defend("warm up", [{"text": "Warm up text here.", "source": "https://w.example/"}])
    evidence = passages(n)
    t0 = time.perf_counter()
    v = engine.defend("When was the Eiffel Tower completed?", evidence)
    seconds = time.perf_counter() - t0
    with open("/proc/self/status") as f:
        hwm = next((int(line.split()[1]) for line in f if line.startswith("VmHWM")), 0)
    rss = hwm * 1024 or resource.getrusage(resource.RUSAGE_SELF).ru_maxrss * 1024
    return {
        "passages": n,
        "nli": nli,
        "seconds": round(seconds, 2),
        "peak_rss_mb": round(rss / 2**20),
        "decision": v.decision,
        "claims": len(v.claims),
        "nli_pairs": v.candidate_stats["nli_pairs"],
        "warnings": [w for w in v.warnings if "max_" in w],
    }


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--sizes", default="1000,10000")
    p.add_argument("--nli", default="none,packaged")
    p.add_argument("--child", default=None, help=argparse.SUPPRESS)
    args = p.parse_args(argv)
    if args.child:
        n, nli = args.child.split(":")
        print(json.dumps(run_one(int(n), nli)))
        return 0
    print(
        "| passages | NLI | seconds | peak RSS (MB) | claims | NLI pairs | decision | limits applied |"
    )
    print("|---|---|---|---|---|---|---|---|")
    for nli in args.nli.split(","):
        for n in (int(x) for x in args.sizes.split(",")):
            out = subprocess.run(
                [sys.executable, "-m", "benchmarks.limits", "--child", f"{n}:{nli}"],
                capture_output=True,
                text=True,
                check=True,
            )
            r = json.loads(out.stdout.strip().splitlines()[-1])
            print(
                f"| {r['passages']:,} | {r['nli']} | {r['seconds']} | {r['peak_rss_mb']} | "
                f"{r['claims']} | {r['nli_pairs']} | {r['decision']} | "
                f"{'; '.join(r['warnings']) or '—'} |"
            )
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
