"""The NLI model v2 on today's default: is the model, not the engine, what holds corroboration
back?

v2 (commit c9152b4) is v1 warm-started on a replay of v1's mix plus VitaminC (training pages
only) and compatible-pair data. Against v1 on the held-out NLI sets (``git show
c9152b4:benchmarks/results/nli_eval.txt``): VitaminC entailment recall 45.6% → 69.9%, compatible
pairs called contradiction 19.2% → 6.1% (paraphrases 22.7% → 7.0%), minimal-edit contradiction
recall 96.8% → 95.8%, MNLI held-out 67.6% → 67.0%. It was not packaged on 2026-11-30 (J3 on
the scoreboard of then: +113.1 against v1's +120.0, fit). Since then a verdict delivers only
what an independent source corroborates, and corroboration is read off the NLI model's
entailments: on biogen-dev the model calls 40% of fact-covering paraphrases an entailment
(``research/results/paraphrase_entailment.txt``).

Candidate (declared before it ran): ``nli-v2``, the default config with the v2 weights
(``--model``, every pair scored afresh). Rule: :data:`research.quarantine_conflicts.
NO_LOSS_GAIN_GARAG`, against the committed scoreboard (v1).

    python -m research.nli_v2 prepare /tmp/nli-v2
    mkdir -p research/results/nli-v2 && cp benchmarks/results/scoreboard.json \
        research/results/nli-v2/default.json
    nice python -m benchmarks.scoreboard --model /tmp/nli-v2 --no-paper --families all \
        --family-n 20 --adaptive dispersed,paraphrase,synonym --adaptive-n 20 \
        --out research/results/nli-v2/nli-v2
    python -m research.nli_v2 report research/results/nli-v2/*.json
"""

from __future__ import annotations

import shutil
import subprocess
import sys
from pathlib import Path
from typing import Any

from research.candidate_cli import candidates_main
from research.quarantine_conflicts import no_loss_gain

V2_COMMIT = "c9152b4"
MODEL_DIR = Path("mirage_core/models/mirage-nli-minilm-l6")
#: what the torch model reads; the ONNX graphs and the model card are left out
COPIED = (
    "config.json",
    "special_tokens_map.json",
    "tokenizer.json",
    "tokenizer_config.json",
    "vocab.txt",
)


def prepare(out: Path) -> None:
    """``out``: the packaged model's configuration and tokenizer with v2's weights."""
    out.mkdir(parents=True, exist_ok=True)
    for name in COPIED:
        shutil.copy2(MODEL_DIR / name, out / name)
    weights = subprocess.run(
        ["git", "show", f"{V2_COMMIT}:{MODEL_DIR / 'model.safetensors'}"],
        check=True,
        capture_output=True,
    ).stdout
    (out / "model.safetensors").write_bytes(weights)


def report(runs: dict[str, dict[str, Any]]) -> list[str]:
    return no_loss_gain(runs, ["nli-v2"], complete_rows=True, with_garag=True)


def _prepare_command(sub: Any) -> dict[str, Any]:
    sub.add_parser("prepare", help="write the v2 model directory").add_argument("out")

    def run(args: Any) -> int:
        prepare(Path(args.out))
        return 0

    return {"prepare": run}


def main(argv: list[str] | None = None) -> int:
    # a model, not a config, is the candidate: ``write`` has no config to write
    return candidates_main(argv, __doc__, {}, report, extra=_prepare_command)


if __name__ == "__main__":
    sys.exit(main())
