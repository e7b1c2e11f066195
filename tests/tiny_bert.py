"""A tiny, randomly initialised BERT NLI model, built and saved by the tests themselves.

Nothing is downloaded: the WordPiece vocabulary is written here, the tokenizer is built from it
and the weights come from ``torch.manual_seed(0)``. The labels are in a non-standard order
(contradiction, entailment, neutral) so that a hard-coded column order would be caught.
"""

from __future__ import annotations

import string
from pathlib import Path

#: The tiny model's label order: output column i is ID2LABEL[i].
ID2LABEL = {0: "CONTRADICTION", 1: "Entailment", 2: "neutral"}
#: Where each of [entail, neutral, contra] sits in the tiny model's output.
EXPECTED_COLUMNS = (1, 2, 0)
#: Positions of the tiny model (and its tokenizer's model_max_length).
MAX_POSITIONS = 128

_WORDS = """
the of and to in a is that for it as was with be by on not he i this are or his from at which
but have an they you were her she there one all we their has been would will if more when can
who no said its so up out about them than into could only other new some time these two may
then do first any my now such like our over man me even most made after also did many before
must through back years where much your way well down should because each just those people how
too little state good very make world still own see men work long get here between both life
being under never day same another know while last might us great old year off come since against
go came right used take three city river war water house school company team game film music
police report study data claim source news bank market price rate percent million billion cat dog
sat mat animal car road red blue green big small high low early late north south east west
president minister government country capital population born died founded built won lost
increase decrease rose fell record record true false yes no january february march april may june
july august september october november december monday friday paris london berlin tokyo france
germany japan china europe america
""".split()


def write_vocab(path: Path) -> list[str]:
    """Write a WordPiece vocab.txt: specials, characters, ``##`` pieces and common words."""
    tokens = ["[PAD]", "[UNK]", "[CLS]", "[SEP]", "[MASK]"]
    chars = list(string.ascii_lowercase + string.digits + string.punctuation)
    tokens += chars + ["##" + c for c in string.ascii_lowercase + string.digits]
    seen = set(tokens)
    for word in _WORDS:
        if word not in seen:
            seen.add(word)
            tokens.append(word)
    path.write_text("\n".join(tokens) + "\n", encoding="utf-8")
    return tokens


def build_tiny_model(directory: Path, id2label: dict[int, str] = ID2LABEL, *, fp16: bool = False):
    """Save a tiny BERT sequence classifier + tokenizer in ``directory``; return the directory."""
    import torch
    from transformers import BertConfig, BertForSequenceClassification, BertTokenizer

    directory.mkdir(parents=True, exist_ok=True)
    vocab = write_vocab(directory / "vocab.txt")
    # BertTokenizer(vocab_file=...) is silently ignored by transformers 5; from_pretrained on a
    # directory holding vocab.txt works on 4.x and 5.x alike.
    tokenizer = BertTokenizer.from_pretrained(str(directory), model_max_length=MAX_POSITIONS)
    assert tokenizer.vocab_size == len(vocab)
    config = BertConfig(
        vocab_size=len(vocab),
        hidden_size=32,
        num_hidden_layers=1,
        num_attention_heads=2,
        intermediate_size=37,
        max_position_embeddings=MAX_POSITIONS,
        num_labels=len(id2label),
        id2label=dict(id2label),
        label2id={v: k for k, v in id2label.items()},
    )
    torch.manual_seed(0)
    model = BertForSequenceClassification(config).eval()
    if fp16:
        model = model.half()
    model.save_pretrained(str(directory))
    tokenizer.save_pretrained(str(directory))
    return directory
