"""Getting a training run onto a lent GPU machine and its model back (``docs/nli-model.md``).

A device run receives the working tree (tracked files and untracked files git does not
ignore) plus the ignored paths it is told to carry, 64 MiB in all. The packaged models and the
committed research results alone are over that, and the run does not need them: ``stage``
takes them out of the index and ignores them for the time of the run (the files stay on
disk); ``unstage`` puts the index and ``.git/info/exclude`` back as they were. Never commit
while staged: the commit would delete them. ``fetch`` turns what the run returned (weights in
parts, its config and log) into a model directory.

    python -m training.device stage [--carry .device/nli]   # prints what would travel
    # device run:  bash scripts/device_train_nli.sh   (carry: .device/nli)
    python -m training.device unstage
    python -m training.device fetch RETURNED_DIR runs/nli-all --bundle .device/nli
"""

from __future__ import annotations

import argparse
import shutil
import subprocess
import sys
from collections.abc import Sequence
from pathlib import Path

from training.bundle import BASE_DIR, join_parts

__all__ = ["TRAVEL_LIMIT", "UNTRACKED", "fetch", "stage", "travel_bytes", "unstage"]

#: what a device run may receive: working tree and carried paths together
TRAVEL_LIMIT = 64 * 2**20
#: tracked paths a training run does not read, taken out of what travels while staged
UNTRACKED: tuple[str, ...] = (
    "mirage_core/models/all-minilm-l6-v2/model.safetensors",
    "mirage_core/models/mirage-nli-minilm-l6/model.safetensors",
    "research/results",
)
_BEGIN = "# training.device stage: begin"
_END = "# training.device stage: end"
_TOKENIZER_FILES = ("tokenizer.json", "tokenizer_config.json", "special_tokens_map.json")


def _git(repo: Path, *args: str) -> str:
    done = subprocess.run(
        ["git", "-C", str(repo), *args], check=True, capture_output=True, text=True
    )
    return done.stdout


def _exclude_file(repo: Path) -> Path:
    return repo / _git(repo, "rev-parse", "--git-path", "info/exclude").strip()


def _staged_block(text: str) -> tuple[str, bool]:
    """``text`` without the block ``stage`` wrote, and whether it held one."""
    if _BEGIN not in text:
        return text, False
    head, _, rest = text.partition(_BEGIN)
    _, _, tail = rest.partition(_END + "\n")
    return head + tail, True


def travel_bytes(repo: Path, carry: Sequence[str] = ()) -> int:
    """Bytes a device run would receive: tracked and unignored files, and ``carry``."""
    listed = _git(repo, "ls-files", "-z", "--cached", "--others", "--exclude-standard")
    paths = {repo / p for p in listed.split("\0") if p}
    for c in carry:
        root = repo / c
        paths |= {root} if root.is_file() else {p for p in root.rglob("*") if p.is_file()}
    return sum(p.stat().st_size for p in paths if p.is_file())


def stage(repo: Path, paths: Sequence[str] = UNTRACKED) -> list[str]:
    """Take ``paths`` out of the index and ignore them until :func:`unstage`; returns them."""
    exclude = _exclude_file(repo)
    text = exclude.read_text() if exclude.is_file() else ""
    if _staged_block(text)[1]:
        raise RuntimeError("already staged: run `python -m training.device unstage` first")
    changed = _git(repo, "status", "--porcelain", "--", *paths)
    if changed.strip():
        raise RuntimeError(f"uncommitted changes under the paths to stage:\n{changed}")
    _git(repo, "rm", "-r", "-q", "--cached", "--", *paths)
    lines = [_BEGIN, *(f"/{p}" for p in paths), _END]
    exclude.parent.mkdir(parents=True, exist_ok=True)
    exclude.write_text(
        text + ("" if text.endswith("\n") or not text else "\n") + "\n".join(lines) + "\n"
    )
    return list(paths)


def unstage(repo: Path, paths: Sequence[str] = UNTRACKED) -> bool:
    """Put back what :func:`stage` took out (index entries from HEAD, the exclude file);
    False when nothing was staged."""
    exclude = _exclude_file(repo)
    text, was = _staged_block(exclude.read_text() if exclude.is_file() else "")
    if was:
        exclude.write_text(text)
    _git(repo, "reset", "-q", "--", *paths)
    return was


def fetch(returned: Path, out: Path, bundle: Path) -> Path:
    """A model directory from a device run's returned files: the joined weights, the run's
    ``config.json`` and ``training_meta.json``, and the tokenizer of the bundle's base."""
    out.mkdir(parents=True, exist_ok=True)
    join_parts(returned, out / "model.safetensors", name="model.safetensors")
    for name in ("config.json", "training_meta.json", "train.log"):
        if (returned / name).is_file():
            shutil.copy2(returned / name, out / name)
    for name in _TOKENIZER_FILES:
        if (bundle / BASE_DIR / name).is_file():
            shutil.copy2(bundle / BASE_DIR / name, out / name)
    return out


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(prog="python -m training.device", description=__doc__)
    p.add_argument("--repo", type=Path, default=Path("."))
    sub = p.add_subparsers(dest="cmd", required=True)
    s = sub.add_parser("stage", help="untrack what a training run does not need")
    s.add_argument("--carry", action="append", default=[])
    sub.add_parser("unstage", help="restore the index and the exclude file")
    f = sub.add_parser("fetch", help="a model directory from a run's returned files")
    f.add_argument("returned", type=Path)
    f.add_argument("out", type=Path)
    f.add_argument("--bundle", type=Path, default=Path(".device/nli"))
    args = p.parse_args(argv)
    if args.cmd == "stage":
        stage(args.repo)
        size = travel_bytes(args.repo, args.carry)
        verdict = "fits" if size <= TRAVEL_LIMIT else "is OVER the limit"
        print(f"staged; a device run would receive {size / 2**20:.1f} MiB ({verdict}, 64 MiB).")
        print("Do not commit until `python -m training.device unstage`.")
        return 0 if size <= TRAVEL_LIMIT else 1
    if args.cmd == "unstage":
        print("unstaged" if unstage(args.repo) else "nothing was staged; index reset anyway")
        return 0
    print(fetch(args.returned, args.out, args.bundle))
    return 0


if __name__ == "__main__":
    sys.exit(main())
