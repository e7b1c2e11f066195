"""v1 taught to read a frame: can the packaged NLI model learn that "It was once widely
believed that X, a view that has since been abandoned" contradicts X, and keep the rest of its
reading, so that a request's paraphrases can vouch without letting framed sentences through?

The sixth request round (``research/request_gate.py``) read every close paraphrase and vetoed
those the model leans to contradict; what still leaked were framed sentences, which v1 reads
as neutral to, or even entailed by, the plain sentence another page states.

The candidate: ``python -m training --mix v1-frames --init mirage_core/models/mirage-nli-minilm-l6
--out runs/nli-frames-cpu --device cpu --batch-size 32 --lr 3e-5 --epochs 1 --threads auto``:
v1's weights, one epoch over half the v1 mix (replayed so that the rest of v1's reading stays)
and 6,000 frame pairs (:mod:`training.frames`: half retracting frames, contradiction; half
reporting frames, neutral; none of the protocol's frames).

Declared before any figure of it was seen:

1. **Screen** (no scoreboard): against v1 in the same run, (a) on held-out sentences in
   held-out frames (``python -m research.frame_reading``), more retracting frames read as a
   contradiction; (b) the mean accuracy over ``python -m benchmarks.eval_nli --limit 500``'s
   held-out sets not more than a point below v1's; (c) no fewer gold-vs-poison conflicts
   called at 5% agreement (``python -m research.conflict_pairs``, fit).
2. **Rounds**, each against the committed scoreboard (v1), fit split:
   ``nli-frames-cpu`` (the default config with these weights) under
   :data:`research.quarantine_conflicts.NO_LOSS_GAIN_GARAG`, and
   ``nli-frames-cpu-all-read`` (these weights with the sixth round's
   ``requests-paraphrase-veto-all-read`` settings) under
   :data:`research.request_gate.DELIVERED_SHARE`. If the second qualifies it is adopted (model
   and request settings); otherwise, if the first qualifies, the model alone; otherwise v1 stays.

    python -m research.frame_reading --models "" runs/nli-frames-cpu
    python -m benchmarks.eval_nli --model runs/nli-frames-cpu \
        --baseline mirage_core/models/mirage-nli-minilm-l6 --names v1,frames --variants fp32 --limit 500
    python -m research.conflict_pairs --models "" runs/nli-frames-cpu
    # only if the screen passes:
    mkdir -p research/results/nli-frames && cp benchmarks/results/scoreboard.json \
        research/results/nli-frames/default.json
    nice python -m benchmarks.scoreboard --model runs/nli-frames-cpu --no-paper --families all \
        --family-n 20 --adaptive dispersed,paraphrase,synonym --adaptive-n 20 \
        --out research/results/nli-frames/nli-frames-cpu
    nice python -m benchmarks.scoreboard --model runs/nli-frames-cpu \
        --config research/candidates/requests-paraphrase-veto-all-read.json --no-paper \
        --families all --family-n 20 --adaptive dispersed,paraphrase,synonym --adaptive-n 20 \
        --out research/results/nli-frames/nli-frames-cpu-all-read
    python -m research.nli_frames report research/results/nli-frames/*.json

**Second candidate** (declared after the first's screen, before it trained): the first
learned that a copy with words around it never entails: questions on a statement's own fact
became contradictions (72% of ``eval_nli``'s "question-same" pairs, v1 0%) and compatible
pairs called contradiction rose from 19.8% to 29.8%; it is not taken to the rounds.
``nli-frames3-cpu`` adds affirming frames (the framed copy entails the plain one):
``python -m training --mix v1-frames3 --init mirage_core/models/mirage-nli-minilm-l6 --out
runs/nli-frames3-cpu --device cpu --batch-size 32 --lr 3e-5 --epochs 1 --threads auto``.
Its screen is the first's with (d): compatible pairs called contradiction (argmax) not more
than 2 points above v1's; its rounds are the first's, run as ``nli-frames3-cpu`` and
``nli-frames3-cpu-all-read`` into ``research/results/nli-frames3/``.

**Third candidate** (declared after the second's screen, before it trained): the second
failed (c) and (d) as the first did (questions on a statement's own fact 60.7% contradiction,
compatible pairs 29.4%). ``nli-frames3q-cpu`` adds 5,000 question pairs (neutral, as in v2's
mix): ``--mix v1-frames3q``, otherwise the second's command, into ``runs/nli-frames3q-cpu``;
same screen, same rounds (``research/results/nli-frames3q/``).
"""

from __future__ import annotations

import sys
from typing import Any

from research.candidate_cli import candidates_main, choose
from research.corroborated_first import DEFAULT_RUN
from research.quarantine_conflicts import no_loss_gain
from research.request_gate import DELIVERED_SHARE, delivered_share

#: (the model alone, the model with the sixth request round's all-read settings)
CANDIDATES = (
    ("nli-frames-cpu", "nli-frames-cpu-all-read"),
    ("nli-frames3-cpu", "nli-frames3-cpu-all-read"),
    ("nli-frames3q-cpu", "nli-frames3q-cpu-all-read"),
)


def report(runs: dict[str, dict[str, Any]]) -> list[str]:
    out: list[str] = []
    for alone, with_requests in CANDIDATES:
        if alone in runs:
            out += no_loss_gain(
                {k: v for k, v in runs.items() if k in (DEFAULT_RUN, alone)},
                [alone],
                complete_rows=True,
                with_garag=True,
            )
        if with_requests in runs:
            title = f"rule DELIVERED_SHARE ({DELIVERED_SHARE['declared']}), fit split"
            out += ["", *choose(title, [with_requests], runs, delivered_share)]
    return out


def main(argv: list[str] | None = None) -> int:
    return candidates_main(argv, __doc__, {}, report)


if __name__ == "__main__":
    sys.exit(main())
