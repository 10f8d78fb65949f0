"""How BLiMP pairs are scored and decided: the named methods and their tie rules.

Methods (spec/BLIMP.md, spec/SCORING.md); every score is a sum of token log-probs unless named ``_mean``;
BOS is the start token (``LM.start_token``: the tokenizer's BOS, else its EOS):
- ``blimp_paper`` (jiant, the published GPT-2 numbers): BOS, the sentence as written, the final
  EOS scored too; a tie counts as wrong.
- ``lmeval04`` (lm-evaluation-harness 0.4): BOS, the sentence with a leading space, no EOS; a
  tie counts as right (the harness's argmax picks the first choice, the good sentence). BLiMP's
  context is empty, and the harness starts such a sentence from a token of its own: the later 0.4.x
  releases (since PRs #1588 and #1611, March 2024) from ``prefix_token_id``, the tokenizer's BOS,
  else its EOS, which is the rule here; 0.4.0 itself from EOS (``eot_token_id``). The same token
  for GPT-2 (``<|endoftext|>`` is both); for a model with distinct BOS and EOS (Llama's ``<s>`` and
  ``</s>``) this is the later releases' score, not 0.4.0's.
- ``salazar`` (mlm-scoring, causal side): BOS, the sentence as written, no EOS; tie wrong.
- ``one_prefix``: log p(word_good | BOS prefix) vs log p(word_bad | BOS prefix); tie wrong.
- ``two_prefix``: log p(word | BOS prefix_good) vs log p(word | BOS prefix_bad); tie wrong. The
  method as the paper's prose and spec/BLIMP.md define it, and the default.
  (Prefix words carry a leading space for byte-level BPE: they follow the prefix in running text.)
- ``two_prefix_joint``: log p(prefix_good word | BOS) vs log p(prefix_bad word | BOS), every token
  of prefix and word scored: the text ``prefix + " " + word``, which tokenizes as ``two_prefix``
  spells it (all 20,000 two-prefix pairs of the release under GPT-2's BPE); same pairs, tie wrong.
  What the BLiMP team's analysis code for Figure 6 compared (the prefix's token log-probs summed,
  plus the critical word's), not what the prose describes.
- ``pll_original`` / ``pll_within_word_l2r``: masked-LM pseudo-log-likelihood; tie wrong.
- ``<method>_mean`` (each of the above): the same scores reduced by the per-token mean instead of
  the sum (spec/SCORING.md's ``mean`` reduction; 3,945 BLiMP pairs differ in word count).
Prefix methods score only the pairs whose paradigm supports them; the others are kept as rows
with ``kept`` false and a ``skip_reason``.
(No torch here: the suite's table and figure jobs import this module and start without it.)
"""

from __future__ import annotations

from dataclasses import dataclass, replace

TIE_RULES = ("wrong", "right")


@dataclass(frozen=True)
class Method:
    """How a pair is scored: which model family, which sentence or prefix scores, which tie rule."""

    family: str  # "causal" | "masked"
    kind: str  # "sentence" | "one_prefix" | "two_prefix" | "pll"
    tie: str
    policy: str = "bos"  # causal BOS/EOS policy of sentence scores
    leading_space: bool = False
    pll_variant: str = "original"
    reduction: str = "sum"  # of the token log-probs: "sum" (the paper's) or "mean"
    joint: bool = False  # two_prefix: the prefix's tokens scored too, from BOS (log p(prefix + word))


METHODS = {
    "blimp_paper": Method("causal", "sentence", tie="wrong", policy="bos_eos"),
    "lmeval04": Method("causal", "sentence", tie="right", policy="bos", leading_space=True),
    "salazar": Method("causal", "sentence", tie="wrong", policy="bos"),
    "one_prefix": Method("causal", "one_prefix", tie="wrong"),
    "two_prefix": Method("causal", "two_prefix", tie="wrong"),
    "two_prefix_joint": Method("causal", "two_prefix", tie="wrong", joint=True),
    "pll_original": Method("masked", "pll", tie="wrong", pll_variant="original"),
    "pll_within_word_l2r": Method("masked", "pll", tie="wrong", pll_variant="within_word_l2r"),
}
METHODS |= {f"{name}_mean": replace(method, reduction="mean") for name, method in METHODS.items()}
# The paper-faithful default per model family.
DEFAULT_METHODS = {"causal": "blimp_paper", "masked": "pll_original"}


class ScoringError(ValueError):
    """A model or method that cannot score BLiMP the way it was asked to."""


def decide(good: float, bad: float, tie: str) -> bool:
    """Is the pair right: the good sentence scores higher (or equal, under ``tie='right'``)?"""
    check_tie_rule(tie)
    return good > bad or (tie == "right" and good == bad)


def check_tie_rule(tie: str) -> None:
    if tie not in TIE_RULES:
        raise ScoringError(f"unknown tie rule {tie!r}; choose one of {TIE_RULES}")
