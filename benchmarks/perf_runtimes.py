"""Part 3 of ``benchmarks/perf_engine.py``: the engine on each runtime, side by side.

Runtimes: torch fp32 (TransformersNLI + MiniLMEmbedder), ONNX Runtime fp32 (OnnxNLI +
OnnxEmbedder on the fused graphs), the same on the plain graphs (``onnx-plain``: what the fused
graphs replace) and ONNX Runtime with the static int8 NLI graph (``OnnxNLI(quantize=
"static-int8")``, the embedder stays fp32). For the default config, NLI and embedding caches
off, runtimes interleaved query by query: ``defend()`` p50 / p95 per k, the models' share of
it, and the ratio of each runtime's defend p50 to torch fp32's NLI forward time on the same
queries. In a fresh process per runtime (torch made unimportable for ONNX, as on an ``[onnx]``
install): the cold start (import plus first verdict) and the peak resident memory. The int8
graph is built once into a fresh ``$MIRAGE_CACHE`` first (its build time is printed apart);
the cold start reads it from there, as every process after the first does.

The installed size of the torch-free runtime is the sum of the files each installed
distribution lists in its metadata (``importlib.metadata``: pip's RECORD) over the dependency
closure of onnxruntime, tokenizers and mirage's base requirements, plus mirage's own package
(code and models, read from the source tree); the torch runtime's closure is given for scale.
"""

from __future__ import annotations

import importlib.metadata as md
import os
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import numpy as np

from mirage_core import Mirage, MirageConfig

ROOT = Path(__file__).resolve().parents[1]
_EMB_ONNX = "from mirage_core.embeddings import OnnxEmbedder as E; emb = E(cache_size=0)"
#: each runtime's (NLI, embedder) builders, caches off
RUNTIMES = {
    "torch fp32": (
        "from mirage_core.nli import TransformersNLI as N; nli = N(cache_size=0, quantize=False)",
        "from mirage_core.embeddings import MiniLMEmbedder as E; emb = E(cache_size=0)",
    ),
    "onnx fp32": ("from mirage_core.nli import OnnxNLI as N; nli = N(cache_size=0)", _EMB_ONNX),
    # the unfused graph the fused one replaces (and the int8 graph is built from)
    "onnx fp32 plain": (
        "from mirage_core.nli import OnnxNLI as N; from mirage_core.onnx_models import "
        "open_session as S; nli = N(cache_size=0); "
        "nli.session = S(nli.model_dir, graph=nli.model_dir / 'model.onnx')",
        _EMB_ONNX + "; emb.session = S(emb.model_dir, graph=emb.model_dir / 'model.onnx')",
    ),
    "onnx int8": (
        "from mirage_core.nli import OnnxNLI as N; nli = N(cache_size=0, quantize='static-int8')",
        _EMB_ONNX,
    ),
}
#: what a runtime's cold start and peak memory also hold: the plain runtime's builders open
#: the fused sessions first and then replace them
COLD_NOTES = {"onnx fp32 plain": " (opening the fused graphs first: an upper bound)"}
#: --runtimes names
ALIASES = {
    "torch": "torch fp32",
    "onnx": "onnx fp32",
    "onnx-plain": "onnx fp32 plain",
    "onnx-int8": "onnx int8",
}
#: mirage's requirements on the torch-free runtime ([onnx]) and on torch ([nli])
ONNX_ROOTS = ("onnxruntime", "tokenizers", "numpy", "networkx", "pysbd")
TORCH_ROOTS = ("torch", "transformers", "tqdm", "numpy", "networkx", "pysbd")

_COLD = """
import resource, sys, time
t0 = time.perf_counter()
{block}from mirage_core import Mirage, Passage
{nli}
{emb}
v = Mirage(nli=nli, embedder=emb).defend({query!r}, [Passage(t, source=s) for t, s in {passages!r}])
t1 = time.perf_counter()
# peak RSS of this process: VmHWM (ru_maxrss keeps the parent's peak across fork + exec)
status = open("/proc/self/status").read().split("VmHWM:")
rss = int(status[1].split()[0]) if len(status) > 1 else resource.getrusage(0).ru_maxrss
print(t1 - t0, rss / 1024, v.decision)
"""


def cold_start(name: str, query: str, passages: list) -> tuple[float, float]:
    """(import + first verdict in s, peak RSS in MiB) of a fresh process on runtime ``name``."""
    block = "sys.modules['torch'] = sys.modules['transformers'] = None\n" if "onnx" in name else ""
    code = _COLD.format(
        block=block,
        nli=RUNTIMES[name][0],
        emb=RUNTIMES[name][1],
        query=query,
        passages=[(p.text, p.source) for p in passages],
    )
    done = subprocess.run(
        [sys.executable, "-c", code], cwd=ROOT, capture_output=True, text=True, check=True
    )
    seconds, rss, _ = done.stdout.split()[-3:]
    return float(seconds), float(rss)


def runtime_table(items, ks, names) -> dict:
    """defend() time per runtime and k (default config, caches off, interleaved), cold start
    and peak RSS per runtime."""
    cache = tempfile.mkdtemp(prefix="mirage-perf-")  # the int8 graph built afresh, then removed
    os.environ["MIRAGE_CACHE"] = cache
    engines = {}
    out: dict = {}
    for name in names:
        scope: dict = {}
        t0 = time.perf_counter()
        exec(RUNTIMES[name][0], scope)
        out[("load", name)] = time.perf_counter() - t0
        exec(RUNTIMES[name][1], scope)
        engines[name] = Mirage(MirageConfig(), nli=scope["nli"], embedder=scope["emb"])
        engines[name].defend(items[0][0], items[0][1][:5])  # first call outside the clock
    for k in ks:
        total: dict = {n: [] for n in names}
        models: dict = {n: [] for n in names}
        nli: dict = {n: [] for n in names}
        for q, passages in items:
            for name, mirage in engines.items():
                t = mirage.defend(q, passages[:k]).timings
                total[name].append(t["total"])
                nli[name].append(t.get("nli", 0.0))
                models[name].append(t.get("nli", 0.0) + t.get("embed", 0.0))
        for name in names:
            total_a = np.array(total[name])
            out[(k, name)] = {
                "defend_p50_s": float(np.percentile(total_a, 50)),
                "defend_p95_s": float(np.percentile(total_a, 95)),
                "nli_p50_s": float(np.percentile(nli[name], 50)),
                "models_share": float(np.sum(models[name]) / total_a.sum()),
            }
    for name in names:
        cold, rss = cold_start(name, items[0][0], items[0][1][: min(ks)])
        out[("cold", name)] = {"cold_start_s": cold, "peak_rss_mib": rss}
    shutil.rmtree(cache, ignore_errors=True)
    return out


def _closure(roots: tuple[str, ...]) -> dict[str, int]:
    """Installed bytes of each distribution in the dependency closure of ``roots`` (markers
    evaluated for this interpreter, no extras)."""
    from packaging.requirements import Requirement

    sizes: dict[str, int] = {}
    todo = list(roots)
    while todo:
        name = todo.pop()
        try:
            dist = md.distribution(name)
        except md.PackageNotFoundError:
            continue
        key = dist.metadata["Name"].lower().replace("_", "-")
        if key in sizes:
            continue
        sizes[key] = sum(
            f.locate().stat().st_size for f in dist.files or [] if Path(f.locate()).is_file()
        )
        for raw in dist.requires or []:
            req = Requirement(raw)
            if req.marker is None or req.marker.evaluate({"extra": ""}):
                todo.append(req.name)
    return sizes


def _package_bytes() -> int:
    """mirage's packages as the wheel ships them: code and models, no bytecode."""
    tops = ("mirage_core", "mirage_langchain", "mirage_llamaindex")
    return sum(
        f.stat().st_size
        for top in tops
        for f in (ROOT / top).rglob("*")
        if f.is_file() and "__pycache__" not in f.parts
    )


def install_sizes() -> dict:
    """Installed MB of the torch-free runtime (per distribution) and of the torch one."""
    onnx = _closure(ONNX_ROOTS)
    torch = _closure(TORCH_ROOTS)
    mirage = _package_bytes()
    int8 = {k: v for k, v in _closure(("onnx",)).items() if k not in onnx}
    return {
        "int8_extra": sum(int8.values()) / 1e6,
        "mirage": mirage / 1e6,
        "onnx": {k: v / 1e6 for k, v in sorted(onnx.items(), key=lambda kv: -kv[1])},
        "onnx_total": (mirage + sum(onnx.values())) / 1e6,
        "torch_total": (mirage + sum(torch.values())) / 1e6,
    }


def runtime_lines(rt: dict, ks, names, n_queries: int, sizes: dict | None = None) -> list[str]:
    ref = names[0]
    lines = [
        "",
        f"## Runtimes side by side ({n_queries} queries per k, default config, NLI and "
        "embedding caches off, interleaved)",
        "",
        "| k | "
        + " | ".join(f"{n}: p50 / p95 (s)" for n in names)
        + " | "
        + " | ".join(f"p50 {ref} / {n}" for n in names[1:])
        + " | models' share |",
        "|" + "---|" * (2 + 2 * len(names) - 1),
    ]
    for k in ks:
        cells = [
            f"{rt[(k, n)]['defend_p50_s']:.2f} / {rt[(k, n)]['defend_p95_s']:.2f}" for n in names
        ]
        ratio = [
            f"{rt[(k, ref)]['defend_p50_s'] / rt[(k, n)]['defend_p50_s']:.2f}×" for n in names[1:]
        ]
        share = " / ".join(f"{100 * rt[(k, n)]['models_share']:.0f}%" for n in names)
        lines.append(f"| {k} | " + " | ".join(cells + ratio) + f" | {share} |")
    if "torch fp32" in names:
        k20 = 20 if 20 in ks else max(ks)
        base = rt[(k20, "torch fp32")]["nli_p50_s"]
        lines += [
            "",
            f"defend p50 at k = {k20} / torch fp32's NLI forward time on the same queries "
            f"(p50 {base:.2f} s): "
            + ", ".join(f"{n} {rt[(k20, n)]['defend_p50_s'] / base:.2f}" for n in names),
        ]
    lines += [
        "",
        "cold start (a fresh process: import, both models loaded, first verdict at k = "
        f"{min(ks)}) and peak resident memory:",
        "",
    ]
    for n in names:
        c = rt[("cold", n)]
        lines.append(
            f"- {n}: {c['cold_start_s']:.2f} s, {c['peak_rss_mib']:.0f} MiB{COLD_NOTES.get(n, '')}"
        )
    if "onnx int8" in names:
        fp32 = f"; onnx fp32's: {rt[('load', 'onnx fp32')]:.1f} s" if "onnx fp32" in names else ""
        lines.append(
            f"- onnx int8, first use in an install only: the NLI backend loads in "
            f"{rt[('load', 'onnx int8')]:.1f} s, building the int8 graph into $MIRAGE_CACHE "
            f"(later processes read it{fp32})"
        )
    if sizes:
        parts = ", ".join(f"{k} {v:.0f}" for k, v in sizes["onnx"].items() if v >= 1)
        lines += [
            "",
            f"installed size without torch: **{sizes['onnx_total']:.0f} MB** = mirage "
            f"{sizes['mirage']:.0f} MB (code and both models) + {parts} MB (the dependency "
            "closure of onnxruntime, tokenizers and the base requirements, summed from the "
            "files each installed distribution lists, importlib.metadata; under 1 MB not named)"
            f"; static int8 adds onnx and its requirements ({sizes['int8_extra']:.0f} MB) to "
            f"build its graph; the torch runtime's closure: {sizes['torch_total']:.0f} MB",
        ]
    return lines


def plot(rt: dict, ks, names, path: Path) -> None:
    """defend() p50 (line) and p95 (dashed) against k per runtime; cold start and memory."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    fig, (ax, bx) = plt.subplots(1, 2, figsize=(10, 4), gridspec_kw={"width_ratios": [3, 2]})
    for i, n in enumerate(names):
        color = f"C{i}"
        ax.plot(ks, [rt[(k, n)]["defend_p50_s"] for k in ks], marker="o", color=color, label=n)
        ax.plot(ks, [rt[(k, n)]["defend_p95_s"] for k in ks], ls="--", color=color, alpha=0.6)
    ax.set(xlabel="passages k", ylabel="defend() seconds (p50; dashed p95)")
    ax.set_xticks(ks, [str(k) for k in ks])
    ax.legend(fontsize=8)
    ax.set_title("time per query, caches off")
    cold = [rt[("cold", n)]["cold_start_s"] for n in names]
    bars = bx.barh(names, cold, color=[f"C{i}" for i in range(len(names))])
    for bar, n in zip(bars, names, strict=True):
        bx.text(
            bar.get_width(),
            bar.get_y() + bar.get_height() / 2,
            f" {rt[('cold', n)]['peak_rss_mib']:.0f} MiB",
            va="center",
            fontsize=8,
        )
    bx.set(xlabel="cold start, s (label: peak resident memory)")
    bx.invert_yaxis()
    bx.set_xlim(0, max(cold) * 1.45)
    fig.tight_layout()
    path.parent.mkdir(parents=True, exist_ok=True)
    fig.savefig(path, dpi=110)
    plt.close(fig)
