"""Benchmark reports: ``report.json``, ``report.md`` (Markdown tables), ``instances.jsonl`` and PNG
plots (pass rate by regime; contamination and retention by family; latency).

matplotlib is optional (``pip install 'mirage-rag[bench]'``): without it the plots are skipped
with a note and everything else is written.
"""

from __future__ import annotations

import json
import math
import platform
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from mirage_core.evaluation.records import BenchResult

__all__ = ["family_table", "latency_table", "main_table", "replot", "write_report"]

SYSTEM_LABELS = {
    "no_rag": "no-RAG",
    "vanilla_rag": "vanilla RAG",
    "mirage": "mirage",
    "mirage_no_contradiction_gate": "mirage − contradiction gate",
    "mirage_no_diversity_gate": "mirage − diversity gate",
    "mirage_paper": "mirage (paper config)",
    "ragdefender": "RAGDefender",
}
REGIME_ORDER = ("clean", "mixed", "full")


def _pct(x: float | None) -> str:
    return "—" if x is None or (isinstance(x, float) and math.isnan(x)) else f"{100 * x:.1f}%"


def _num(x: float | None, fmt: str = "{:.1f}") -> str:
    return "—" if x is None else fmt.format(x)


def _rows(result_or_rows: BenchResult | Sequence[dict[str, Any]]) -> list[dict[str, Any]]:
    return (
        result_or_rows.rows() if isinstance(result_or_rows, BenchResult) else list(result_or_rows)
    )


def _pooled(rows: Sequence[dict[str, Any]], system: str, regime: str) -> dict[str, Any] | None:
    """The row pooling a regime over families (``all``, or the only family there is)."""
    cands = [r for r in rows if r["system"] == system and r["regime"] == regime]
    for r in cands:
        if r["family"] == "all":
            return r
    return cands[0] if len(cands) == 1 else None


def main_table(rows: Sequence[dict[str, Any]], systems: Sequence[str], *, qa: bool) -> str:
    """Systems × regimes (families pooled)."""
    cols = [
        "regime",
        "system",
        "pass rate",
        "contamination",
        "exposure",
        "retention",
        "claims/query",
    ]
    if qa:
        cols += ["correct in evidence", "incorrect in evidence", "correct only"]
    lines = ["| " + " | ".join(cols) + " |", "|" + "---|" * len(cols)]
    for regime in REGIME_ORDER:
        for system in systems:
            r = _pooled(rows, system, regime)
            if r is None:
                continue
            cells = [
                regime.upper(),
                SYSTEM_LABELS.get(system, system),
                _pct(r["pass_rate"]),
                _pct(r["contamination"]),
                _pct(r["exposure"]),
                _pct(r["retention"]),
                _num(r["claims_delivered"]),
            ]
            if qa:
                cells += [
                    _pct(r.get("correct_in_evidence")),
                    _pct(r.get("incorrect_in_evidence")),
                    _pct(r.get("correct_only")),
                ]
            lines.append("| " + " | ".join(cells) + " |")
    return "\n".join(lines)


def family_table(rows: Sequence[dict[str, Any]], systems: Sequence[str], *, qa: bool) -> str:
    """Per pollution family (MIXED and FULL), for every system that delivers evidence."""
    shown = [s for s in systems if s != "no_rag"]
    cols = [
        "family",
        "regime",
        "system",
        "n",
        "pass rate",
        "contamination",
        "exposure",
        "retention",
    ]
    if qa:
        cols += ["correct only", "incorrect in evidence"]
    lines = ["| " + " | ".join(cols) + " |", "|" + "---|" * len(cols)]
    families = list(dict.fromkeys(r["family"] for r in rows if r["family"] not in ("all", "none")))
    for fam in families:
        for regime in ("mixed", "full"):
            for system in shown:
                r = next(
                    (
                        x
                        for x in rows
                        if x["system"] == system and x["regime"] == regime and x["family"] == fam
                    ),
                    None,
                )
                if r is None:
                    continue
                cells = [
                    fam,
                    regime.upper(),
                    SYSTEM_LABELS.get(system, system),
                    str(r["n"]),
                    _pct(r["pass_rate"]),
                    _pct(r["contamination"]),
                    _pct(r["exposure"]),
                    _pct(r["retention"]),
                ]
                if qa:
                    cells += [_pct(r.get("correct_only")), _pct(r.get("incorrect_in_evidence"))]
                lines.append("| " + " | ".join(cells) + " |")
    return "\n".join(lines)


def latency_table(rows: Sequence[dict[str, Any]], *, cold_cache: bool = True) -> str:
    """mirage's per-query latency by regime. With a shared pair cache (``cold_cache=False``)
    only CLEAN, which runs first, is measured cold; later regimes reuse its pairs."""
    lines = [
        "| regime | mean ms | p50 ms | p95 ms | NLI pairs/query | pair cache |",
        "|---|---|---|---|---|---|",
    ]
    for regime in REGIME_ORDER:
        r = _pooled(rows, "mirage", regime)
        if r is None or "latency_ms_mean" not in r:
            continue
        cache = "cold" if cold_cache or regime == "clean" else "warm (reuses earlier regimes)"
        lines.append(
            f"| {regime.upper()} | {_num(r['latency_ms_mean'])} | {_num(r['latency_ms_p50'])} | "
            f"{_num(r['latency_ms_p95'])} | {_num(r.get('nli_pairs_mean'))} | {cache} |"
        )
    return "\n".join(lines)


def _nli_note(stats: dict[str, Any]) -> str:
    if not stats.get("pair_evaluations"):
        return ""
    note = f"; {stats['pair_evaluations']:,} NLI pair evaluations"
    if stats.get("pairs_per_second"):
        note += f" ({stats['pairs_per_second']:.0f} pairs/s)"
    return note


def _markdown(result: BenchResult, rows: list[dict[str, Any]], plots: list[str]) -> str:
    ds, st = result.dataset, result.settings
    qa = bool(ds.get("qa"))
    cfg = st.get("config", {})
    out = [f"# mirage bench — {ds['name']}", ""]
    if st.get("command"):
        out += ["```", st["command"], "```", ""]
    out += [
        ds.get("description", ""),
        "",
        f"- queries: {ds.get('n_queries')} of {ds.get('n_available')} "
        f"({'seeded subsample, seed ' + str(st.get('seed')) if ds.get('n_queries') != ds.get('n_available') else 'all'}); "
        f"inputs: {ds.get('n_instances')}",
        f"- NLI model: `{st.get('model', result.nli_stats.get('backend'))}`; config: r_max={cfg.get('r_max')}, "
        f"d_min={cfg.get('d_min')}, tau={cfg.get('tau')}, kappa={cfg.get('kappa')}, min_support={cfg.get('min_support')}"
        + (f" (from `{st['config_file']}`)" if st.get("config_file") else ""),
        "- regimes: "
        + "; ".join(f"**{k.upper()}** = {v}" for k, v in ds.get("regimes", {}).items()),
    ]
    if ds.get("family_notes"):
        out.append(
            "- pollution: "
            + "; ".join(
                f"`{k}` = {v}" for k, v in ds["family_notes"].items() if k in ds.get("families", [])
            )
        )
    out += [
        f"- run: {result.wall_s:.0f} s wall on {st.get('hardware', platform.processor() or platform.machine())}"
        + _nli_note(result.nli_stats)
        + (f"; {st['code']}" if st.get("code") else ""),
        "",
        "Metrics: **pass rate** = queries whose evidence reaches the generator; **contamination** = "
        "share of delivered claims that come from polluted text; **exposure** = queries that deliver "
        "at least one polluted claim; **retention** = corroborated clean claims delivered"
        + (
            "; **correct / incorrect in evidence** = the delivered evidence contains the correct / "
            "incorrect answer (case-insensitive, word boundaries); **correct only** = correct and not incorrect"
            if qa
            else ""
        )
        + ". Claims are the engine's sentences; vanilla RAG delivers all of them, no-RAG none.",
        "",
        "## By regime",
        "",
        main_table(rows, result.systems, qa=qa),
        "",
        "## By pollution family",
        "",
        family_table(rows, result.systems, qa=qa),
        "",
        "## Latency (mirage, per query)",
        "",
        latency_table(rows, cold_cache=bool(st.get("cold_cache", True))),
        "",
        "Per-query time of claims, pairs, the query's share of the batched NLI call, graph, "
        "selection and gate"
        + (
            ", with the pair cache cleared before each regime × family group"
            if st.get("cold_cache")
            else ", pair cache shared across regimes (later regimes reuse pairs)"
        )
        + f"; batch of {st.get('batch_size')} queries per NLI call.",
    ]
    if plots:
        out += ["", "## Plots", ""] + [f"![{Path(p).stem}]({Path(p).name})" for p in plots]
    return "\n".join(out) + "\n"


def _plots(
    result: BenchResult, rows: list[dict[str, Any]], out: Path
) -> tuple[list[str], str | None]:
    latencies: dict[str, list[float]] = {}
    for r in result.records:
        route = r.routes.get("mirage")
        if route is not None and route.latency_s is not None:
            latencies.setdefault(r.regime, []).append(route.latency_s * 1000)
    return _draw(str(result.dataset["name"]), list(result.systems), rows, latencies, out)


def replot(out_dir: str | Path) -> list[str]:
    """Redraw the PNG plots of a report folder from its report.json and instances.jsonl."""
    out = Path(out_dir)
    data = json.loads((out / "report.json").read_text())
    latencies: dict[str, list[float]] = {}
    with open(out / "instances.jsonl", encoding="utf-8") as fh:
        for line in fh:
            rec = json.loads(line)
            ms = rec["routes"].get("mirage", {}).get("latency_ms")
            if ms is not None:
                latencies.setdefault(rec["regime"], []).append(float(ms))
    files, note = _draw(data["dataset"]["name"], data["systems"], data["rows"], latencies, out)
    if note:
        raise ImportError(note)
    return files


def _draw(
    name: str,
    systems: list[str],
    rows: list[dict[str, Any]],
    latencies: dict[str, list[float]],
    out: Path,
) -> tuple[list[str], str | None]:
    try:
        import matplotlib

        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
    except ImportError:
        return [], "matplotlib is not installed (pip install 'mirage-rag[bench]'): plots skipped"
    files: list[str] = []
    labels = [SYSTEM_LABELS.get(s, s) for s in systems]
    regimes = [g for g in REGIME_ORDER if any(r["regime"] == g for r in rows)]

    # 1) pass rate by regime
    fig, ax = plt.subplots(figsize=(9, 4.5))
    width = 0.8 / max(1, len(systems))
    for i, s in enumerate(systems):
        vals = [(_pooled(rows, s, g) or {}).get("pass_rate") or 0.0 for g in regimes]
        ax.bar(
            [x + i * width for x in range(len(regimes))],
            [100 * v for v in vals],
            width,
            label=labels[i],
        )
    ax.set_xticks(
        [x + width * (len(systems) - 1) / 2 for x in range(len(regimes))],
        [g.upper() for g in regimes],
    )
    ax.set_ylabel("pass rate (%)")
    ax.set_ylim(0, 105)
    ax.set_title(f"{name}: evidence delivered, by regime")
    ax.legend(fontsize=8, ncol=3, loc="upper center", bbox_to_anchor=(0.5, -0.08), frameon=False)
    fig.tight_layout()
    path = out / "pass_rate_by_regime.png"
    fig.savefig(path, dpi=110)
    plt.close(fig)
    files.append(str(path))

    # 2) contamination and retention by family (MIXED)
    families = [f for f in dict.fromkeys(r["family"] for r in rows) if f not in ("all", "none")]
    shown = [s for s in systems if s != "no_rag"]
    if families:
        fig, axes = plt.subplots(1, 2, figsize=(11, 4.5))
        width = 0.8 / max(1, len(shown))
        for ax, metric, title in (
            (axes[0], "contamination", "contamination (MIXED)"),
            (axes[1], "retention", "retention (MIXED)"),
        ):
            for i, s in enumerate(shown):
                vals = []
                for f in families:
                    r = next(
                        (
                            x
                            for x in rows
                            if x["system"] == s and x["regime"] == "mixed" and x["family"] == f
                        ),
                        {},
                    )
                    vals.append(None if r.get(metric) is None else 100 * r[metric])
                xs = [x + i * width for x in range(len(families))]
                ax.bar(xs, [v or 0.0 for v in vals], width, label=SYSTEM_LABELS.get(s, s))
                for x, v in zip(xs, vals, strict=True):
                    if v is None:  # nothing delivered / nothing to retain: not a zero
                        ax.text(x, 1, "n/a", rotation=90, ha="center", va="bottom", fontsize=6)
            ax.set_xticks(
                [x + width * (len(shown) - 1) / 2 for x in range(len(families))],
                families,
                rotation=15,
            )
            ax.set_ylabel("%")
            ax.set_ylim(0, 105)
            ax.set_title(title)
        handles, names = axes[0].get_legend_handles_labels()
        fig.legend(handles, names, fontsize=8, ncol=len(names), loc="lower center", frameon=False)
        fig.suptitle(f"{name}: by pollution family")
        fig.tight_layout(rect=(0, 0.06, 1, 1))
        path = out / "contamination_retention_by_family.png"
        fig.savefig(path, dpi=110)
        plt.close(fig)
        files.append(str(path))

    # 3) latency distribution of mirage per regime
    lat = {g: latencies.get(g, []) for g in regimes}
    if any(lat.values()):
        fig, ax = plt.subplots(figsize=(7, 4))
        data = [lat[g] or [0.0] for g in regimes]
        ax.boxplot(data, showfliers=False)
        ax.set_xticks(range(1, len(regimes) + 1), [g.upper() for g in regimes])
        ax.set_ylabel("ms per query")
        ax.set_title(f"{name}: mirage latency per query")
        fig.tight_layout()
        path = out / "latency.png"
        fig.savefig(path, dpi=110)
        plt.close(fig)
        files.append(str(path))
    return files, None


def write_report(result: BenchResult, out_dir: str | Path, *, plots: bool = True) -> dict[str, Any]:
    """Write report.json, report.md, instances.jsonl and the PNG plots into ``out_dir``."""
    out = Path(out_dir)
    out.mkdir(parents=True, exist_ok=True)
    rows = result.rows()
    files, note = _plots(result, rows, out) if plots else ([], None)
    data = {
        "dataset": result.dataset,
        "settings": result.settings,
        "systems": result.systems,
        "nli": result.nli_stats,
        "wall_s": round(result.wall_s, 2),
        "rows": rows,
        "plots": [Path(f).name for f in files],
    }
    if note:
        data["notes"] = [note]
    (out / "report.json").write_text(
        json.dumps(data, indent=2, ensure_ascii=False, default=str) + "\n"
    )
    with open(out / "instances.jsonl", "w", encoding="utf-8") as fh:
        for rec in result.records:
            fh.write(json.dumps(rec.to_dict(), ensure_ascii=False) + "\n")
    (out / "report.md").write_text(_markdown(result, rows, files))
    return {
        "json": str(out / "report.json"),
        "markdown": str(out / "report.md"),
        "instances": str(out / "instances.jsonl"),
        "plots": files,
        "note": note,
    }
