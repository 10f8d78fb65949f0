"""``generate(uid, n, seed)``: fresh minimal pairs of a BLiMP morphology, argument-structure, s-selection,
quantifier, NPI-licensing, ellipsis, filler-gap, NPI-scope, control/raising, binding or island paradigm, as release
records.

Deterministic: the pairs depend on the paradigm, ``n``, ``seed`` and the lexicon only (one
``random.Random`` per call, seeded from a hash of the paradigm and the seed, so that paradigms draw
independently). A pair is drawn again while its good or its bad sentence was drawn before in the
paradigm, or is in ``exclude`` (e.g. the release's sentences, for pairs no model was tested on).
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Callable, Collection, Iterable
from dataclasses import dataclass
from pathlib import Path

from lmprobes.suites.blimp.generator import templates
from lmprobes.suites.blimp.generator.grammar import DeadEnd, Draw, capitalised
from lmprobes.suites.blimp.generator.lexicon import Lexicon, load_lexicon
from lmprobes.suites.blimp.generator.templates import Pair, Pools

# Draws allowed per pair asked for before giving up (the lexicon is then too small for ``n``).
DRAWS_PER_PAIR = 200


class GeneratorError(ValueError):
    """An unknown paradigm, bad arguments, or a lexicon that cannot give the pairs asked for."""


@dataclass(frozen=True)
class ParadigmSpec:
    """What a generated paradigm's records carry, as in the release: its ``linguistics_term``, which prefix
    method it supports, ``lexically_identical``, whether it has ``dependency_length`` and ``crucial_item``
    (the superlative quantifier of superlative_quantifiers_1 / _2), and its ``field``."""

    uid: str
    term: str
    method: str  # "one_prefix", "two_prefix" or "" (neither, as most argument-structure paradigms)
    lexically_identical: bool
    build: Callable[[Draw, Pools], Pair]
    dependency_length: bool = False
    field: str = "morphology"
    crucial_item: bool = False


def _spec(uid: str, term: str, method: str, identical: bool, build, **kw) -> tuple[str, ParadigmSpec]:
    return uid, ParadigmSpec(uid, term, method, identical, build, **kw)


DNA, SVA, IRR, ANA = "determiner_noun_agreement", "subject_verb_agreement", "irregular_forms", "anaphor_agreement"
ARG, SSEL, QUANT, NPI = "argument_structure", "s-selection", "quantifiers", "npi_licensing"
ELL, GAP, CR, BIND = "ellipsis", "filler_gap_dependency", "control_raising", "binding"
ISLAND = "island_effects"
det_noun, subj_verb = templates.determiner_noun, templates.subject_verb
# The release's 18 morphology paradigms (field "morphology"), in the release's UID order, then its 7
# argument-structure paradigms (field "syntax").
SPECS: dict[str, ParadigmSpec] = dict([
    _spec("anaphor_gender_agreement", ANA, "one_prefix", False, templates.anaphor_gender),
    _spec("anaphor_number_agreement", ANA, "one_prefix", True, templates.anaphor_number),
    _spec("determiner_noun_agreement_1", DNA, "one_prefix", True,
          det_noun(irregular=False, adjective=False, two_prefix=False)),
    _spec("determiner_noun_agreement_2", DNA, "two_prefix", True,
          det_noun(irregular=False, adjective=False, two_prefix=True)),
    _spec("determiner_noun_agreement_irregular_1", DNA, "one_prefix", True,
          det_noun(irregular=True, adjective=False, two_prefix=False)),
    _spec("determiner_noun_agreement_irregular_2", DNA, "two_prefix", True,
          det_noun(irregular=True, adjective=False, two_prefix=True)),
    _spec("determiner_noun_agreement_with_adj_2", DNA, "two_prefix", True,
          det_noun(irregular=False, adjective=True, two_prefix=True)),
    _spec("determiner_noun_agreement_with_adj_irregular_1", DNA, "one_prefix", True,
          det_noun(irregular=True, adjective=True, two_prefix=False)),
    _spec("determiner_noun_agreement_with_adj_irregular_2", DNA, "two_prefix", True,
          det_noun(irregular=True, adjective=True, two_prefix=True)),
    _spec("determiner_noun_agreement_with_adjective_1", DNA, "one_prefix", True,
          det_noun(irregular=False, adjective=True, two_prefix=False)),
    _spec("distractor_agreement_relational_noun", SVA, "one_prefix", False, templates.relational,
          dependency_length=True),
    _spec("distractor_agreement_relative_clause", SVA, "one_prefix", False, templates.relative_clause,
          dependency_length=True),
    _spec("irregular_past_participle_adjectives", IRR, "two_prefix", False, templates.participle_adjective),
    _spec("irregular_past_participle_verbs", IRR, "one_prefix", False, templates.participle_verb),
    _spec("irregular_plural_subject_verb_agreement_1", SVA, "one_prefix", False,
          subj_verb(irregular=True, two_prefix=False)),
    _spec("irregular_plural_subject_verb_agreement_2", SVA, "two_prefix", False,
          subj_verb(irregular=True, two_prefix=True)),
    _spec("regular_plural_subject_verb_agreement_1", SVA, "one_prefix", False,
          subj_verb(irregular=False, two_prefix=False, transitive_only=True)),
    _spec("regular_plural_subject_verb_agreement_2", SVA, "two_prefix", False,
          subj_verb(irregular=False, two_prefix=True)),
    # The release's 7 argument-structure paradigms (field "syntax"), in the release's UID order.
    _spec("causative", ARG, "", False, templates.causative, field="syntax"),
    _spec("drop_argument", ARG, "", False, templates.drop_argument, field="syntax"),
    _spec("inchoative", ARG, "", False, templates.inchoative, field="syntax"),
    _spec("intransitive", ARG, "", False, templates.intransitive, field="syntax"),
    _spec("passive_1", ARG, "", False, templates.passive(agent=True), field="syntax"),
    _spec("passive_2", ARG, "", False, templates.passive(agent=False), field="syntax"),
    _spec("transitive", ARG, "two_prefix", False, templates.transitive, field="syntax"),
    # The release's 2 s-selection paradigms (field "syntax").
    _spec("animate_subject_passive", SSEL, "one_prefix", False, templates.animate_subject_passive, field="syntax"),
    _spec("animate_subject_trans", SSEL, "two_prefix", False, templates.animate_subject_trans, field="syntax"),
    # The release's 4 quantifier paradigms (field "semantics"); superlative ones carry ``crucial_item``.
    _spec("existential_there_quantifiers_1", QUANT, "", False, templates.existential_there_1, field="semantics"),
    _spec("existential_there_quantifiers_2", QUANT, "", False, templates.existential_there_2, field="semantics"),
    _spec("superlative_quantifiers_1", QUANT, "", False, templates.superlative_1, field="semantics",
          crucial_item=True),
    _spec("superlative_quantifiers_2", QUANT, "two_prefix", False, templates.superlative_2, field="semantics",
          crucial_item=True),
    # The release's 5 NPI-licensing paradigms with "ever" (field "semantics"); matrix_question_npi_licensor_present's
    # good sentences are questions, ending in "?".
    _spec("npi_present_1", NPI, "one_prefix", False, templates.npi_present(even=True), field="semantics"),
    _spec("npi_present_2", NPI, "one_prefix", False, templates.npi_present(even=False), field="semantics"),
    _spec("only_npi_licensor_present", NPI, "two_prefix", False, templates.only_npi, field="semantics"),
    _spec("sentential_negation_npi_licensor_present", NPI, "two_prefix", False, templates.negation_npi,
          field="semantics"),
    _spec("matrix_question_npi_licensor_present", NPI, "two_prefix", True, templates.matrix_question,
          field="semantics"),
    # The release's 2 ellipsis and 7 filler-gap paradigms (field "syntax"): whole sentences differ (no
    # prefix method), not lexically identical.
    _spec("ellipsis_n_bar_1", ELL, "", False, templates.ellipsis_n_bar_1, field="syntax"),
    _spec("ellipsis_n_bar_2", ELL, "", False, templates.ellipsis_n_bar_2, field="syntax"),
    _spec("wh_questions_object_gap", GAP, "", False, templates.wh_questions_object_gap, field="syntax"),
    _spec("wh_questions_subject_gap", GAP, "", False, templates.wh_questions_subject_gap, field="syntax"),
    _spec("wh_questions_subject_gap_long_distance", GAP, "", False, templates.wh_questions_subject_gap_long_distance,
          field="syntax"),
    _spec("wh_vs_that_no_gap", GAP, "", False, templates.wh_vs_that(gap=False, long_distance=False), field="syntax"),
    _spec("wh_vs_that_no_gap_long_distance", GAP, "", False, templates.wh_vs_that(gap=False, long_distance=True),
          field="syntax"),
    _spec("wh_vs_that_with_gap", GAP, "", False, templates.wh_vs_that(gap=True, long_distance=False), field="syntax"),
    _spec("wh_vs_that_with_gap_long_distance", GAP, "", False, templates.wh_vs_that(gap=True, long_distance=True),
          field="syntax"),
    # The release's 2 NPI-scope paradigms (field "syntax_semantics"): lexically identical, "only" / "not" moved
    # between the matrix clause and a relative clause (two-prefix, the word "ever").
    _spec("only_npi_scope", NPI, "two_prefix", True, templates.only_npi_scope, field="syntax_semantics"),
    _spec("sentential_negation_npi_scope", NPI, "two_prefix", True, templates.negation_npi_scope,
          field="syntax_semantics"),
    # 3 of the release's control/raising paradigms (field "syntax_semantics"): one adjective differs, no prefix
    # method.
    _spec("existential_there_subject_raising", CR, "", False, templates.existential_there_raising,
          field="syntax_semantics"),
    _spec("tough_vs_raising_1", CR, "", False, templates.tough_vs_raising(tough_good=True), field="syntax_semantics"),
    _spec("tough_vs_raising_2", CR, "", False, templates.tough_vs_raising(tough_good=False), field="syntax_semantics"),
    # 2 more control/raising paradigms: an object-raising verb / an object-control verb before an expletive
    # (two-prefix: the verb groups; the word "there" / the adjective after "it to be").
    _spec("existential_there_object_raising", CR, "two_prefix", False, templates.existential_there_object_raising,
          field="syntax_semantics"),
    _spec("expletive_it_object_raising", CR, "two_prefix", False, templates.expletive_it_object_raising,
          field="syntax_semantics"),
    # The release's 7 binding paradigms (field "syntax_semantics"; principle_A_case_2's release file carries
    # "syntax/semantics", and so do its generated rows).
    _spec("principle_A_case_1", BIND, "one_prefix", False, templates.principle_a_case_1, field="syntax_semantics"),
    _spec("principle_A_case_2", BIND, "one_prefix", False, templates.principle_a_case_2, field="syntax/semantics"),
    _spec("principle_A_c_command", BIND, "one_prefix", False, templates.principle_a_c_command,
          field="syntax_semantics"),
    _spec("principle_A_domain_1", BIND, "one_prefix", False, templates.principle_a_domain_1,
          field="syntax_semantics"),
    _spec("principle_A_domain_2", BIND, "one_prefix", False, templates.principle_a_domain_2,
          field="syntax_semantics"),
    _spec("principle_A_domain_3", BIND, "two_prefix", True, templates.principle_a_domain_3,
          field="syntax_semantics"),
    _spec("principle_A_reconstruction", BIND, "", True, templates.principle_a_reconstruction,
          field="syntax_semantics"),
    # The release's 8 island paradigms (field "syntax"), questions all: lexically identical but for
    # coordinate_structure_constraint_object_extraction (so flagged in the release) and wh_island (one-prefix on the
    # embedded subject); the left-branch ones on a coordination and an echo question are two-prefix.
    _spec("adjunct_island", ISLAND, "", True, templates.adjunct_island, field="syntax"),
    _spec("complex_NP_island", ISLAND, "", True, templates.complex_np_island, field="syntax"),
    _spec("coordinate_structure_constraint_complex_left_branch", ISLAND, "two_prefix", True,
          templates.coordinate_left_branch, field="syntax"),
    _spec("coordinate_structure_constraint_object_extraction", ISLAND, "", False,
          templates.coordinate_object_extraction, field="syntax"),
    _spec("left_branch_island_echo_question", ISLAND, "two_prefix", True, templates.left_branch_echo_question,
          field="syntax"),
    _spec("left_branch_island_simple_question", ISLAND, "", True, templates.left_branch_simple_question,
          field="syntax"),
    _spec("sentential_subject_island", ISLAND, "", True, templates.sentential_subject_island, field="syntax"),
    _spec("wh_island", ISLAND, "one_prefix", False, templates.wh_island, field="syntax"),
])
GENERATED = tuple(SPECS)


def generate(uid: str, n: int, seed: int, *, lexicon: Lexicon | str | Path | None = None,
             exclude: Collection[str] = ()) -> list[dict]:
    """``n`` distinct minimal pairs of paradigm ``uid`` as release records (pairID "0" … "n-1").

    ``lexicon``: a loaded ``Lexicon``, a path, or None for the project's. ``exclude``: sentences no pair
    may have as its good or its bad sentence.
    """
    if uid not in SPECS:
        raise GeneratorError(f"no generator for BLiMP paradigm {uid!r}; generated: {', '.join(GENERATED)}")
    for name, value in (("n", n), ("seed", seed)):
        if isinstance(value, bool) or not isinstance(value, int) or value < 0:
            raise GeneratorError(f"{name} must be a non-negative integer, got {value!r}")
    spec = SPECS[uid]
    pools = Pools(lexicon if isinstance(lexicon, Lexicon) else load_lexicon(lexicon))
    draw = Draw(stream_seed(uid, seed))
    exclude = frozenset(exclude)
    rows: list[dict] = []
    seen_good: set[str] = set()
    seen_bad: set[str] = set()
    limit = DRAWS_PER_PAIR * n + 1000
    for _ in range(limit):
        if len(rows) == n:
            break
        try:
            pair = spec.build(draw, pools)
        except DeadEnd:
            continue
        record = to_record(spec, pair, len(rows))
        good, bad = record["sentence_good"], record["sentence_bad"]
        if good in seen_good or bad in seen_bad or good in exclude or bad in exclude:
            continue
        seen_good.add(good)
        seen_bad.add(bad)
        rows.append(record)
    if len(rows) < n:
        raise GeneratorError(f"{uid}: only {len(rows)} distinct pairs of the {n} asked for after {limit} draws "
                             f"(seed {seed}); the lexicon {pools.lexicon.path or ''} is too small for so many")
    return rows


def stream_seed(uid: str, seed: int) -> int:
    """The random stream of one paradigm and seed (a hash: no two paradigms share a stream)."""
    return int.from_bytes(hashlib.sha256(f"lmprobes-blimp-generator:{uid}:{seed}".encode()).digest()[:8], "big")


def to_record(spec: ParadigmSpec, pair: Pair, pair_id: int) -> dict:
    """A release record (the release's key order) from a pair's words."""
    good = _sentence((*pair.prefix_good, *pair.word_good, *pair.rest), pair.end_good)
    bad = _sentence((*pair.prefix_bad, *pair.word_bad, *pair.rest), pair.end_bad)
    record: dict = {"sentence_good": good, "sentence_bad": bad}
    if spec.crucial_item:
        record["crucial_item"] = pair.crucial_item
    if spec.method == "one_prefix":
        record |= {"one_prefix_prefix": " ".join(capitalised(pair.prefix_good)),
                   "one_prefix_word_good": " ".join(pair.word_good),
                   "one_prefix_word_bad": " ".join(pair.word_bad)}
    elif spec.method == "two_prefix":
        record |= {"two_prefix_prefix_good": " ".join(capitalised(pair.prefix_good)),
                   "two_prefix_prefix_bad": " ".join(capitalised(pair.prefix_bad)),
                   "two_prefix_word": " ".join(pair.word_good)}
    if spec.dependency_length:
        record["dependency_length"] = pair.dependency_length
    record |= {"field": spec.field, "linguistics_term": spec.term, "UID": spec.uid, "simple_LM_method": True,
               "one_prefix_method": spec.method == "one_prefix", "two_prefix_method": spec.method == "two_prefix",
               "lexically_identical": spec.lexically_identical, "pairID": str(pair_id)}
    return record


def _sentence(tokens: tuple[str, ...], end: str) -> str:
    return " ".join(capitalised(tokens)) + end


def to_jsonl(rows: Iterable[dict]) -> str:
    """One JSON record per line, as the release writes them (``json.dumps`` defaults, key order kept)."""
    return "".join(json.dumps(row) + "\n" for row in rows)


def release_sentences(rows: Iterable[dict]) -> frozenset[str]:
    """Every good and bad sentence of ``rows`` (an ``exclude`` set)."""
    return frozenset(s for row in rows for s in (row["sentence_good"], row["sentence_bad"]))
