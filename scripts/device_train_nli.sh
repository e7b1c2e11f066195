#!/usr/bin/env bash
# The device run of an NLI training (docs/development.md): train on the carried bundle
# (.device/nli, built by `python -m training.bundle build`) and return the weights in parts of
# at most 15 MiB with the run's config, metadata and log. Run from the repository root.
# Overrides: DEVICE (auto), EPOCHS (2), BATCH (64), LR (1e-4), MINUTES (7), STEPS (0: epochs).
set -euo pipefail
export PYTHONUNBUFFERED=1 TOKENIZERS_PARALLELISM=false
out="${OUT:?OUT names the folder whose files come back}"
work="$(mktemp -d)"
python3 -m training --bundle .device/nli --out "$work/nli" --device "${DEVICE:-auto}" \
  --epochs "${EPOCHS:-2}" --steps "${STEPS:-0}" --batch-size "${BATCH:-64}" --lr "${LR:-1e-4}" \
  --max-minutes "${MINUTES:-7}" --save-every-minutes 0 --log-every 200 2>&1 |
  grep -v 'it/s\]' | tee "$out/train.log"
python3 -m training.bundle split "$work/nli/model.safetensors" "$out" --max-mib 15
cp "$work/nli/config.json" "$work/nli/training_meta.json" "$out/"
ls -la "$out"
