"""Premise / hypothesis pairs the NLI backend tests score: short and long, an empty premise,
and one pair longer than the tiny model's positions (truncated: longest_first, as transformers
does)."""

PREMISES = [
    "The cat sat on the mat.",
    "Paris is the capital of France.",
    "The bank rate rose by 2 percent in March.",
    "A dog.",
    "The city of Berlin was founded in 1237 and its population is now about 3.7 million people.",
    "The team won the game.",
    "",
    "the market price rose in march " * 60,
]
HYPOTHESES = [
    "An animal sat on the mat.",
    "London is the capital of France.",
    "The rate fell.",
    "The president of the company said the market was still high in the north, the report said.",
    "Berlin is old.",
    "The team lost the game on Monday.",
    "Nothing.",
    "The price fell.",
]
EMPTY, TRUNCATED = 6, 7  # the empty premise's pair; the pair longer than the model's positions
