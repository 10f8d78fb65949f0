"""BLiMP's fixed vocabulary: the 12 categories of the paper and the 67 released paradigms."""

from __future__ import annotations

# The paper's 12 phenomena, in the column order of Table 3 (alphabetical).
CATEGORIES = (
    "anaphor_agreement",
    "argument_structure",
    "binding",
    "control_raising",
    "determiner_noun_agreement",
    "ellipsis",
    "filler_gap_dependency",
    "irregular_forms",
    "island_effects",
    "npi_licensing",
    "quantifiers",
    "subject_verb_agreement",
)

# Column headings of Table 3.
CATEGORY_LABELS = {
    "anaphor_agreement": "anaphor agr.",
    "argument_structure": "arg. structure",
    "binding": "binding",
    "control_raising": "control/raising",
    "determiner_noun_agreement": "det.-noun agr.",
    "ellipsis": "ellipsis",
    "filler_gap_dependency": "filler-gap",
    "irregular_forms": "irregular forms",
    "island_effects": "island effects",
    "npi_licensing": "NPI licensing",
    "quantifiers": "quantifiers",
    "subject_verb_agreement": "subject-verb agr.",
}

# The release's ``linguistics_term`` has 13 values; the paper folds s-selection into argument structure.
TERM_CATEGORY = {**{category: category for category in CATEGORIES}, "s-selection": "argument_structure"}

FIELDS = ("morphology", "syntax", "semantics", "syntax_semantics")
# ``field`` of principle_A_case_2 is spelt ``syntax/semantics`` in the release.
FIELD_FIXES = {"syntax/semantics": "syntax_semantics"}

# The 67 released paradigms (UID -> category), sorted by UID.
PARADIGM_CATEGORY = {
    "adjunct_island": "island_effects",
    "anaphor_gender_agreement": "anaphor_agreement",
    "anaphor_number_agreement": "anaphor_agreement",
    "animate_subject_passive": "argument_structure",
    "animate_subject_trans": "argument_structure",
    "causative": "argument_structure",
    "complex_NP_island": "island_effects",
    "coordinate_structure_constraint_complex_left_branch": "island_effects",
    "coordinate_structure_constraint_object_extraction": "island_effects",
    "determiner_noun_agreement_1": "determiner_noun_agreement",
    "determiner_noun_agreement_2": "determiner_noun_agreement",
    "determiner_noun_agreement_irregular_1": "determiner_noun_agreement",
    "determiner_noun_agreement_irregular_2": "determiner_noun_agreement",
    "determiner_noun_agreement_with_adj_2": "determiner_noun_agreement",
    "determiner_noun_agreement_with_adj_irregular_1": "determiner_noun_agreement",
    "determiner_noun_agreement_with_adj_irregular_2": "determiner_noun_agreement",
    "determiner_noun_agreement_with_adjective_1": "determiner_noun_agreement",
    "distractor_agreement_relational_noun": "subject_verb_agreement",
    "distractor_agreement_relative_clause": "subject_verb_agreement",
    "drop_argument": "argument_structure",
    "ellipsis_n_bar_1": "ellipsis",
    "ellipsis_n_bar_2": "ellipsis",
    "existential_there_object_raising": "control_raising",
    "existential_there_quantifiers_1": "quantifiers",
    "existential_there_quantifiers_2": "quantifiers",
    "existential_there_subject_raising": "control_raising",
    "expletive_it_object_raising": "control_raising",
    "inchoative": "argument_structure",
    "intransitive": "argument_structure",
    "irregular_past_participle_adjectives": "irregular_forms",
    "irregular_past_participle_verbs": "irregular_forms",
    "irregular_plural_subject_verb_agreement_1": "subject_verb_agreement",
    "irregular_plural_subject_verb_agreement_2": "subject_verb_agreement",
    "left_branch_island_echo_question": "island_effects",
    "left_branch_island_simple_question": "island_effects",
    "matrix_question_npi_licensor_present": "npi_licensing",
    "npi_present_1": "npi_licensing",
    "npi_present_2": "npi_licensing",
    "only_npi_licensor_present": "npi_licensing",
    "only_npi_scope": "npi_licensing",
    "passive_1": "argument_structure",
    "passive_2": "argument_structure",
    "principle_A_c_command": "binding",
    "principle_A_case_1": "binding",
    "principle_A_case_2": "binding",
    "principle_A_domain_1": "binding",
    "principle_A_domain_2": "binding",
    "principle_A_domain_3": "binding",
    "principle_A_reconstruction": "binding",
    "regular_plural_subject_verb_agreement_1": "subject_verb_agreement",
    "regular_plural_subject_verb_agreement_2": "subject_verb_agreement",
    "sentential_negation_npi_licensor_present": "npi_licensing",
    "sentential_negation_npi_scope": "npi_licensing",
    "sentential_subject_island": "island_effects",
    "superlative_quantifiers_1": "quantifiers",
    "superlative_quantifiers_2": "quantifiers",
    "tough_vs_raising_1": "control_raising",
    "tough_vs_raising_2": "control_raising",
    "transitive": "argument_structure",
    "wh_island": "island_effects",
    "wh_questions_object_gap": "filler_gap_dependency",
    "wh_questions_subject_gap": "filler_gap_dependency",
    "wh_questions_subject_gap_long_distance": "filler_gap_dependency",
    "wh_vs_that_no_gap": "filler_gap_dependency",
    "wh_vs_that_no_gap_long_distance": "filler_gap_dependency",
    "wh_vs_that_with_gap": "filler_gap_dependency",
    "wh_vs_that_with_gap_long_distance": "filler_gap_dependency",
}
PARADIGMS = tuple(PARADIGM_CATEGORY)

# The release's file names sorted as the paper's Table 4 prints them: the paper calls
# determiner_noun_agreement_with_adjective_1 "..._with_adj_1", which sorts before "..._with_adj_2".
PAPER_NAMES = {"determiner_noun_agreement_with_adjective_1": "determiner_noun_agreement_with_adj_1"}
TABLE4_ORDER = tuple(sorted(PARADIGMS, key=lambda paradigm: PAPER_NAMES.get(paradigm, paradigm)))
