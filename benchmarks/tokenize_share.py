"""How much of an NLI call is tokenization: ``python -m benchmarks.tokenize_share``.

The engine sends every claim in several pairs (each claim meets up to 2·m partners, in both
directions), and :class:`~mirage_core.nli.OnnxNLI` tokenizes each pair whole, so a claim's text
is tokenized once per pair it is in. Tokenizing each distinct text once would save at most the
tokenizer's share of the NLI time. For the default config on the perf_engine queries (gpe-eval
claims and their evidence) at ``--k`` passages, this prints the pairs, the distinct texts, the
time to tokenize the pairs as OnnxNLI does, the time to tokenize each distinct text once, and
the time of the forward passes on the same batches (fp32, ``--threads`` threads).
"""

from __future__ import annotations

import argparse
import time

from benchmarks.nli_runtime import recorded_pairs
from benchmarks.perf_engine import queries


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--queries", type=int, default=3)
    parser.add_argument("--k", type=int, default=20)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--threads", type=int, default=2)
    args = parser.parse_args(argv)
    from mirage_core.nli.onnx_nli import OnnxNLI

    items = queries(args.queries, args.k, args.seed)
    premises, hypotheses = recorded_pairs([q for q, _ in items], [p[: args.k] for _, p in items])
    nli = OnnxNLI(cache_size=0, threads=args.threads)
    texts = list(dict.fromkeys(premises + hypotheses))
    order = sorted(range(len(premises)), key=lambda i: -len(premises[i]) - len(hypotheses[i]))
    batches = [order[s : s + nli.batch_size] for s in range(0, len(order), nli.batch_size)]
    t0 = time.perf_counter()
    encoded = [nli.tokenizer([premises[i] for i in b], [hypotheses[i] for i in b]) for b in batches]
    t1 = time.perf_counter()
    nli.tokenizer.tokenizer.encode_batch(texts)
    t2 = time.perf_counter()
    for enc in encoded:
        nli.session.run(["logits"], {k: v for k, v in enc.items() if k in nli._inputs})
    t3 = time.perf_counter()
    print(
        f"{len(items)} queries at k = {args.k}: {len(premises)} NLI pairs over {len(texts)} "
        f"distinct texts ({2 * len(premises) / len(texts):.1f} pairs per text)\n"
        f"tokenize the pairs: {1e3 * (t1 - t0):.1f} ms; each distinct text once: "
        f"{1e3 * (t2 - t1):.1f} ms; forward passes: {1e3 * (t3 - t2):.0f} ms "
        f"({args.threads} threads)\n"
        f"tokenization is {100 * (t1 - t0) / (t3 - t0):.2f}% of tokenize + forward"
    )
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
