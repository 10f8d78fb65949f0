"""The BLiMP template generator (``lmprobes.suites.blimp.generator``): its lexicon, determinism, the
grammar of what it writes, the structural check against release pairs, and the ``blimp_generate`` rule.

``RELEASE`` holds real release lines (Warstadt et al. 2020, CC-BY 4.0), 2 or 3 per generated paradigm (the 18
morphology, 7 argument-structure, 2 s-selection, 4 quantifier, 7 NPI-licensing, 2 ellipsis, 7 filler-gap, 5
control/raising, 7 binding and 8 island paradigms; 5 of only_npi_scope, one for each distance of its moved "only" from
"ever" the generated pairs have; principle_A_domain_3's 3 with the names swapped around verb groups of 1, 2 and 3
words, principle_A_reconstruction's 3 with the subject moved in each of the ways the generated pairs move it; the
islands' 2 with each way the generated pairs move their words, or left_branch_island_echo_question's with each number
of words that differ), copied here so that no test reads the release itself.
"""

from __future__ import annotations

import hashlib
import itertools
import json
import os
import re
import runpy
import subprocess
import sys
from pathlib import Path
from types import SimpleNamespace

import pandas as pd
import pytest

from lmprobes.io import read_metadata, read_parquet
from lmprobes.suites.blimp.dataset import build_blimp
from lmprobes.suites.blimp.generator import (
    DEFAULT_LEXICON,
    GENERATED,
    GeneratorError,
    LexiconError,
    check_against_release,
    generate,
    load_lexicon,
    release_sentences,
    to_jsonl,
)
from lmprobes.suites.blimp.generator.check import MOVES, SWAPPED, Profile, shape, swapped
from lmprobes.suites.blimp.generator.grammar import MODALS, article
from lmprobes.suites.blimp.generator.lexicon import ANIMATE, CLASSES, COLUMNS, PARTICLES
from lmprobes.suites.blimp.generator.templates import (
    ADJUNCT_WORDS,
    CLAUSE_ADJECTIVES,
    CLAUSE_VERBS,
    CONTROL_ADJECTIVES,
    ELLIPSIS_FIRST,
    ELLIPSIS_SECOND,
    INANIMATE,
    INANIMATE_CAUSES,
    NPI_ADVERBS,
    OBJECT_CONTROL_VERBS,
    OBJECT_PRONOUNS,
    OBJECT_RAISING_VERBS,
    PICTURE_VERBS,
    QUESTION_VERBS,
    RAISING_ADJECTIVES,
    SAY_VERBS,
    SENTENCE_ADVERBS,
    SHORT_DETERMINERS,
    SUBJECT_PRONOUNS,
    THAT_DROP_VERBS,
    TOUGH_ADJECTIVES,
    WH_DETERMINERS,
    Pools,
)
from lmprobes.suites.blimp.paradigms import PARADIGM_CATEGORY
from lmprobes.suites.blimp.tables import MEAN_ROW, generated_comparison

ROOT = Path(__file__).resolve().parents[1]
SCRIPT = ROOT / "scripts" / "blimp_generate.py"

RELEASE_JSONL = """\
{"sentence_good": "Katherine can't help herself.", "sentence_bad": "Katherine can't help himself.", "one_prefix_prefix": "Katherine can't help", "one_prefix_word_good": "herself", "one_prefix_word_bad": "himself", "field": "morphology", "linguistics_term": "anaphor_agreement", "UID": "anaphor_gender_agreement", "simple_LM_method": true, "one_prefix_method": true, "two_prefix_method": false, "lexically_identical": false, "pairID": "0"}
{"sentence_good": "Karla could listen to herself.", "sentence_bad": "Karla could listen to himself.", "one_prefix_prefix": "Karla could listen to", "one_prefix_word_good": "herself", "one_prefix_word_bad": "himself", "field": "morphology", "linguistics_term": "anaphor_agreement", "UID": "anaphor_gender_agreement", "simple_LM_method": true, "one_prefix_method": true, "two_prefix_method": false, "lexically_identical": false, "pairID": "1"}
{"sentence_good": "Marie won't think about herself.", "sentence_bad": "Marie won't think about itself.", "one_prefix_prefix": "Marie won't think about", "one_prefix_word_good": "herself", "one_prefix_word_bad": "itself", "field": "morphology", "linguistics_term": "anaphor_agreement", "UID": "anaphor_gender_agreement", "simple_LM_method": true, "one_prefix_method": true, "two_prefix_method": false, "lexically_identical": false, "pairID": "2"}
{"sentence_good": "Susan revealed herself.", "sentence_bad": "Susan revealed themselves.", "one_prefix_prefix": "Susan revealed", "one_prefix_word_good": "herself", "one_prefix_word_bad": "themselves", "field": "morphology", "linguistics_term": "anaphor_agreement", "UID": "anaphor_number_agreement", "simple_LM_method": true, "one_prefix_method": true, "two_prefix_method": false, "lexically_identical": true, "pairID": "0"}
{"sentence_good": "Renee hasn't hurt herself.", "sentence_bad": "Renee hasn't hurt themselves.", "one_prefix_prefix": "Renee hasn't hurt", "one_prefix_word_good": "herself", "one_prefix_word_bad": "themselves", "field": "morphology", "linguistics_term": "anaphor_agreement", "UID": "anaphor_number_agreement", "simple_LM_method": true, "one_prefix_method": true, "two_prefix_method": false, "lexically_identical": true, "pairID": "1"}
{"sentence_good": "These patients do respect themselves.", "sentence_bad": "These patients do respect himself.", "one_prefix_prefix": "These patients do respect", "one_prefix_word_good": "themselves", "one_prefix_word_bad": "himself", "field": "morphology", "linguistics_term": "anaphor_agreement", "UID": "anaphor_number_agreement", "simple_LM_method": true, "one_prefix_method": true, "two_prefix_method": false, "lexically_identical": true, "pairID": "2"}
{"sentence_good": "Raymond is selling this sketch.", "sentence_bad": "Raymond is selling this sketches.", "one_prefix_prefix": "Raymond is selling this", "one_prefix_word_good": "sketch", "one_prefix_word_bad": "sketches", "field": "morphology", "linguistics_term": "determiner_noun_agreement", "UID": "determiner_noun_agreement_1", "simple_LM_method": true, "one_prefix_method": true, "two_prefix_method": false, "lexically_identical": true, "pairID": "0"}
{"sentence_good": "Craig explored that grocery store.", "sentence_bad": "Craig explored that grocery stores.", "one_prefix_prefix": "Craig explored that", "one_prefix_word_good": "grocery store", "one_prefix_word_bad": "grocery stores", "field": "morphology", "linguistics_term": "determiner_noun_agreement", "UID": "determiner_noun_agreement_1", "simple_LM_method": true, "one_prefix_method": true, "two_prefix_method": false, "lexically_identical": true, "pairID": "1"}
{"sentence_good": "Eva has scared these children.", "sentence_bad": "Eva has scared these child.", "one_prefix_prefix": "Eva has scared these", "one_prefix_word_good": "children", "one_prefix_word_bad": "child", "field": "morphology", "linguistics_term": "determiner_noun_agreement", "UID": "determiner_noun_agreement_1", "simple_LM_method": true, "one_prefix_method": true, "two_prefix_method": false, "lexically_identical": true, "pairID": "2"}
{"sentence_good": "Some dog stunned this committee.", "sentence_bad": "Some dog stunned these committee.", "two_prefix_prefix_good": "Some dog stunned this", "two_prefix_prefix_bad": "Some dog stunned these", "two_prefix_word": "committee", "field": "morphology", "linguistics_term": "determiner_noun_agreement", "UID": "determiner_noun_agreement_2", "simple_LM_method": true, "one_prefix_method": false, "two_prefix_method": true, "lexically_identical": true, "pairID": "0"}
{"sentence_good": "Tracy passed these art galleries.", "sentence_bad": "Tracy passed this art galleries.", "two_prefix_prefix_good": "Tracy passed these", "two_prefix_prefix_bad": "Tracy passed this", "two_prefix_word": "art galleries", "field": "morphology", "linguistics_term": "determiner_noun_agreement", "UID": "determiner_noun_agreement_2", "simple_LM_method": true, "one_prefix_method": false, "two_prefix_method": true, "lexically_identical": true, "pairID": "1"}
{"sentence_good": "Sarah has sounded like these children.", "sentence_bad": "Sarah has sounded like this children.", "two_prefix_prefix_good": "Sarah has sounded like these", "two_prefix_prefix_bad": "Sarah has sounded like this", "two_prefix_word": "children", "field": "morphology", "linguistics_term": "determiner_noun_agreement", "UID": "determiner_noun_agreement_2", "simple_LM_method": true, "one_prefix_method": false, "two_prefix_method": true, "lexically_identical": true, "pairID": "2"}
{"sentence_good": "Laurie hasn't lifted those cacti.", "sentence_bad": "Laurie hasn't lifted those cactus.", "one_prefix_prefix": "Laurie hasn't lifted those", "one_prefix_word_good": "cacti", "one_prefix_word_bad": "cactus", "field": "morphology", "linguistics_term": "determiner_noun_agreement", "UID": "determiner_noun_agreement_irregular_1", "simple_LM_method": true, "one_prefix_method": true, "two_prefix_method": false, "lexically_identical": true, "pairID": "0"}
{"sentence_good": "Adam hadn't discussed these analyses.", "sentence_bad": "Adam hadn't discussed these analysis.", "one_prefix_prefix": "Adam hadn't discussed these", "one_prefix_word_good": "analyses", "one_prefix_word_bad": "analysis", "field": "morphology", "linguistics_term": "determiner_noun_agreement", "UID": "determiner_noun_agreement_irregular_1", "simple_LM_method": true, "one_prefix_method": true, "two_prefix_method": false, "lexically_identical": true, "pairID": "1"}
{"sentence_good": "Some customers know these men.", "sentence_bad": "Some customers know these man.", "one_prefix_prefix": "Some customers know these", "one_prefix_word_good": "men", "one_prefix_word_bad": "man", "field": "morphology", "linguistics_term": "determiner_noun_agreement", "UID": "determiner_noun_agreement_irregular_1", "simple_LM_method": true, "one_prefix_method": true, "two_prefix_method": false, "lexically_identical": true, "pairID": "2"}
{"sentence_good": "All boys boast about that child.", "sentence_bad": "All boys boast about those child.", "two_prefix_prefix_good": "All boys boast about that", "two_prefix_prefix_bad": "All boys boast about those", "two_prefix_word": "child", "field": "morphology", "linguistics_term": "determiner_noun_agreement", "UID": "determiner_noun_agreement_irregular_2", "simple_LM_method": true, "one_prefix_method": false, "two_prefix_method": true, "lexically_identical": true, "pairID": "0"}
{"sentence_good": "Candice has taken that axis.", "sentence_bad": "Candice has taken those axis.", "two_prefix_prefix_good": "Candice has taken that", "two_prefix_prefix_bad": "Candice has taken those", "two_prefix_word": "axis", "field": "morphology", "linguistics_term": "determiner_noun_agreement", "UID": "determiner_noun_agreement_irregular_2", "simple_LM_method": true, "one_prefix_method": false, "two_prefix_method": true, "lexically_identical": true, "pairID": "1"}
{"sentence_good": "Those ladies walk through those oases.", "sentence_bad": "Those ladies walk through that oases.", "two_prefix_prefix_good": "Those ladies walk through those", "two_prefix_prefix_bad": "Those ladies walk through that", "two_prefix_word": "oases", "field": "morphology", "linguistics_term": "determiner_noun_agreement", "UID": "determiner_noun_agreement_irregular_2", "simple_LM_method": true, "one_prefix_method": false, "two_prefix_method": true, "lexically_identical": true, "pairID": "2"}
{"sentence_good": "Cynthia scans these hard books.", "sentence_bad": "Cynthia scans this hard books.", "two_prefix_prefix_good": "Cynthia scans these hard", "two_prefix_prefix_bad": "Cynthia scans this hard", "two_prefix_word": "books", "field": "morphology", "linguistics_term": "determiner_noun_agreement", "UID": "determiner_noun_agreement_with_adj_2", "simple_LM_method": true, "one_prefix_method": false, "two_prefix_method": true, "lexically_identical": true, "pairID": "0"}
{"sentence_good": "Donna might hire this serious actress.", "sentence_bad": "Donna might hire these serious actress.", "two_prefix_prefix_good": "Donna might hire this serious", "two_prefix_prefix_bad": "Donna might hire these serious", "two_prefix_word": "actress", "field": "morphology", "linguistics_term": "determiner_noun_agreement", "UID": "determiner_noun_agreement_with_adj_2", "simple_LM_method": true, "one_prefix_method": false, "two_prefix_method": true, "lexically_identical": true, "pairID": "1"}
{"sentence_good": "Wendy forgot those upset doctors.", "sentence_bad": "Wendy forgot that upset doctors.", "two_prefix_prefix_good": "Wendy forgot those upset", "two_prefix_prefix_bad": "Wendy forgot that upset", "two_prefix_word": "doctors", "field": "morphology", "linguistics_term": "determiner_noun_agreement", "UID": "determiner_noun_agreement_with_adj_2", "simple_LM_method": true, "one_prefix_method": false, "two_prefix_method": true, "lexically_identical": true, "pairID": "2"}
{"sentence_good": "Some waiters broke this lost foot.", "sentence_bad": "Some waiters broke this lost feet.", "one_prefix_prefix": "Some waiters broke this lost", "one_prefix_word_good": "foot", "one_prefix_word_bad": "feet", "field": "morphology", "linguistics_term": "determiner_noun_agreement", "UID": "determiner_noun_agreement_with_adj_irregular_1", "simple_LM_method": true, "one_prefix_method": true, "two_prefix_method": false, "lexically_identical": true, "pairID": "0"}
{"sentence_good": "The company talks about those big women.", "sentence_bad": "The company talks about those big woman.", "one_prefix_prefix": "The company talks about those big", "one_prefix_word_good": "women", "one_prefix_word_bad": "woman", "field": "morphology", "linguistics_term": "determiner_noun_agreement", "UID": "determiner_noun_agreement_with_adj_irregular_1", "simple_LM_method": true, "one_prefix_method": true, "two_prefix_method": false, "lexically_identical": true, "pairID": "1"}
{"sentence_good": "This blouse astounds this lost woman.", "sentence_bad": "This blouse astounds this lost women.", "one_prefix_prefix": "This blouse astounds this lost", "one_prefix_word_good": "woman", "one_prefix_word_bad": "women", "field": "morphology", "linguistics_term": "determiner_noun_agreement", "UID": "determiner_noun_agreement_with_adj_irregular_1", "simple_LM_method": true, "one_prefix_method": true, "two_prefix_method": false, "lexically_identical": true, "pairID": "2"}
{"sentence_good": "Alexander didn't walk through that new oasis.", "sentence_bad": "Alexander didn't walk through those new oasis.", "two_prefix_prefix_good": "Alexander didn't walk through that new", "two_prefix_prefix_bad": "Alexander didn't walk through those new", "two_prefix_word": "oasis", "field": "morphology", "linguistics_term": "determiner_noun_agreement", "UID": "determiner_noun_agreement_with_adj_irregular_2", "simple_LM_method": true, "one_prefix_method": false, "two_prefix_method": true, "lexically_identical": true, "pairID": "0"}
{"sentence_good": "This hair irritates these old alumni.", "sentence_bad": "This hair irritates this old alumni.", "two_prefix_prefix_good": "This hair irritates these old", "two_prefix_prefix_bad": "This hair irritates this old", "two_prefix_word": "alumni", "field": "morphology", "linguistics_term": "determiner_noun_agreement", "UID": "determiner_noun_agreement_with_adj_irregular_2", "simple_LM_method": true, "one_prefix_method": false, "two_prefix_method": true, "lexically_identical": true, "pairID": "1"}
{"sentence_good": "Winston Churchill was escaping from this serious person.", "sentence_bad": "Winston Churchill was escaping from these serious person.", "two_prefix_prefix_good": "Winston Churchill was escaping from this serious", "two_prefix_prefix_bad": "Winston Churchill was escaping from these serious", "two_prefix_word": "person", "field": "morphology", "linguistics_term": "determiner_noun_agreement", "UID": "determiner_noun_agreement_with_adj_irregular_2", "simple_LM_method": true, "one_prefix_method": false, "two_prefix_method": true, "lexically_identical": true, "pairID": "2"}
{"sentence_good": "Rebecca was criticizing those good documentaries.", "sentence_bad": "Rebecca was criticizing those good documentary.", "one_prefix_prefix": "Rebecca was criticizing those good", "one_prefix_word_good": "documentaries", "one_prefix_word_bad": "documentary", "field": "morphology", "linguistics_term": "determiner_noun_agreement", "UID": "determiner_noun_agreement_with_adjective_1", "simple_LM_method": true, "one_prefix_method": true, "two_prefix_method": false, "lexically_identical": true, "pairID": "0"}
{"sentence_good": "Some college campus embarrassed those bad legislatures.", "sentence_bad": "Some college campus embarrassed those bad legislature.", "one_prefix_prefix": "Some college campus embarrassed those bad", "one_prefix_word_good": "legislatures", "one_prefix_word_bad": "legislature", "field": "morphology", "linguistics_term": "determiner_noun_agreement", "UID": "determiner_noun_agreement_with_adjective_1", "simple_LM_method": true, "one_prefix_method": true, "two_prefix_method": false, "lexically_identical": true, "pairID": "1"}
{"sentence_good": "All men weren't questioning these unemployed cashiers.", "sentence_bad": "All men weren't questioning these unemployed cashier.", "one_prefix_prefix": "All men weren't questioning these unemployed", "one_prefix_word_good": "cashiers", "one_prefix_word_bad": "cashier", "field": "morphology", "linguistics_term": "determiner_noun_agreement", "UID": "determiner_noun_agreement_with_adjective_1", "simple_LM_method": true, "one_prefix_method": true, "two_prefix_method": false, "lexically_identical": true, "pairID": "2"}
{"sentence_good": "A niece of most senators hasn't descended most slopes.", "sentence_bad": "A niece of most senators haven't descended most slopes.", "one_prefix_prefix": "A niece of most senators", "one_prefix_word_good": "hasn't", "one_prefix_word_bad": "haven't", "dependency_length": 5, "field": "morphology", "linguistics_term": "subject_verb_agreement", "UID": "distractor_agreement_relational_noun", "simple_LM_method": true, "one_prefix_method": true, "two_prefix_method": false, "lexically_identical": false, "pairID": "0"}
{"sentence_good": "A cousin of a lot of dancers anticipates Naomi to aggravate Angela.", "sentence_bad": "A cousin of a lot of dancers anticipate Naomi to aggravate Angela.", "one_prefix_prefix": "A cousin of a lot of dancers", "one_prefix_word_good": "anticipates", "one_prefix_word_bad": "anticipate", "dependency_length": 7, "field": "morphology", "linguistics_term": "subject_verb_agreement", "UID": "distractor_agreement_relational_noun", "simple_LM_method": true, "one_prefix_method": true, "two_prefix_method": false, "lexically_identical": false, "pairID": "6"}
{"sentence_good": "The daughter of those senators works with Patrick.", "sentence_bad": "The daughter of those senators work with Patrick.", "one_prefix_prefix": "The daughter of those senators", "one_prefix_word_good": "works with", "one_prefix_word_bad": "work with", "dependency_length": 5, "field": "morphology", "linguistics_term": "subject_verb_agreement", "UID": "distractor_agreement_relational_noun", "simple_LM_method": true, "one_prefix_method": true, "two_prefix_method": false, "lexically_identical": false, "pairID": "9"}
{"sentence_good": "This customer who had visited most children has worn some shoes.", "sentence_bad": "This customer who had visited most children have worn some shoes.", "one_prefix_prefix": "This customer who had visited most children", "one_prefix_word_good": "has", "one_prefix_word_bad": "have", "dependency_length": 5, "field": "morphology", "linguistics_term": "subject_verb_agreement", "UID": "distractor_agreement_relative_clause", "simple_LM_method": true, "one_prefix_method": true, "two_prefix_method": false, "lexically_identical": false, "pairID": "0"}
{"sentence_good": "Boys that aren't disturbing Natalie suffer.", "sentence_bad": "Boys that aren't disturbing Natalie suffers.", "one_prefix_prefix": "Boys that aren't disturbing Natalie", "one_prefix_word_good": "suffer", "one_prefix_word_bad": "suffers", "dependency_length": 4, "field": "morphology", "linguistics_term": "subject_verb_agreement", "UID": "distractor_agreement_relative_clause", "simple_LM_method": true, "one_prefix_method": true, "two_prefix_method": false, "lexically_identical": false, "pairID": "2"}
{"sentence_good": "The girl who doesn't annoy these adults works with Kristin.", "sentence_bad": "The girl who doesn't annoy these adults work with Kristin.", "one_prefix_prefix": "The girl who doesn't annoy these adults", "one_prefix_word_good": "works with", "one_prefix_word_bad": "work with", "dependency_length": 5, "field": "morphology", "linguistics_term": "subject_verb_agreement", "UID": "distractor_agreement_relative_clause", "simple_LM_method": true, "one_prefix_method": true, "two_prefix_method": false, "lexically_identical": false, "pairID": "11"}
{"sentence_good": "The hidden offspring aren't confident.", "sentence_bad": "The hid offspring aren't confident.", "two_prefix_prefix_good": "The hidden", "two_prefix_prefix_bad": "The hid", "two_prefix_word": "offspring", "field": "morphology", "linguistics_term": "irregular_forms", "UID": "irregular_past_participle_adjectives", "simple_LM_method": true, "one_prefix_method": false, "two_prefix_method": true, "lexically_identical": false, "pairID": "0"}
{"sentence_good": "The hidden bicycles weren't exposed.", "sentence_bad": "The hid bicycles weren't exposed.", "two_prefix_prefix_good": "The hidden", "two_prefix_prefix_bad": "The hid", "two_prefix_word": "bicycles", "field": "morphology", "linguistics_term": "irregular_forms", "UID": "irregular_past_participle_adjectives", "simple_LM_method": true, "one_prefix_method": false, "two_prefix_method": true, "lexically_identical": false, "pairID": "1"}
{"sentence_good": "The hidden glass was big.", "sentence_bad": "The hid glass was big.", "two_prefix_prefix_good": "The hidden", "two_prefix_prefix_bad": "The hid", "two_prefix_word": "glass", "field": "morphology", "linguistics_term": "irregular_forms", "UID": "irregular_past_participle_adjectives", "simple_LM_method": true, "one_prefix_method": false, "two_prefix_method": true, "lexically_identical": false, "pairID": "2"}
{"sentence_good": "The Borgias wore a lot of scarves.", "sentence_bad": "The Borgias worn a lot of scarves.", "one_prefix_prefix": "The Borgias", "one_prefix_word_good": "wore", "one_prefix_word_bad": "worn", "field": "morphology", "linguistics_term": "irregular_forms", "UID": "irregular_past_participle_verbs", "simple_LM_method": true, "one_prefix_method": true, "two_prefix_method": false, "lexically_identical": false, "pairID": "0"}
{"sentence_good": "The mushroom went bad.", "sentence_bad": "The mushroom gone bad.", "one_prefix_prefix": "The mushroom", "one_prefix_word_good": "went bad", "one_prefix_word_bad": "gone bad", "field": "morphology", "linguistics_term": "irregular_forms", "UID": "irregular_past_participle_verbs", "simple_LM_method": true, "one_prefix_method": true, "two_prefix_method": false, "lexically_identical": false, "pairID": "2"}
{"sentence_good": "Allison got a job.", "sentence_bad": "Allison gotten a job.", "one_prefix_prefix": "Allison", "one_prefix_word_good": "got a job", "one_prefix_word_bad": "gotten a job", "field": "morphology", "linguistics_term": "irregular_forms", "UID": "irregular_past_participle_verbs", "simple_LM_method": true, "one_prefix_method": true, "two_prefix_method": false, "lexically_identical": false, "pairID": "46"}
{"sentence_good": "Those radii have scared that teenager.", "sentence_bad": "Those radii has scared that teenager.", "one_prefix_prefix": "Those radii", "one_prefix_word_good": "have", "one_prefix_word_bad": "has", "field": "morphology", "linguistics_term": "subject_verb_agreement", "UID": "irregular_plural_subject_verb_agreement_1", "simple_LM_method": true, "one_prefix_method": true, "two_prefix_method": false, "lexically_identical": false, "pairID": "0"}
{"sentence_good": "The axes haven't stunned that teenager.", "sentence_bad": "The axes hasn't stunned that teenager.", "one_prefix_prefix": "The axes", "one_prefix_word_good": "haven't", "one_prefix_word_bad": "hasn't", "field": "morphology", "linguistics_term": "subject_verb_agreement", "UID": "irregular_plural_subject_verb_agreement_1", "simple_LM_method": true, "one_prefix_method": true, "two_prefix_method": false, "lexically_identical": false, "pairID": "2"}
{"sentence_good": "An alumnus doubts every sweater flattens.", "sentence_bad": "An alumnus doubt every sweater flattens.", "one_prefix_prefix": "An alumnus", "one_prefix_word_good": "doubts", "one_prefix_word_bad": "doubt", "field": "morphology", "linguistics_term": "subject_verb_agreement", "UID": "irregular_plural_subject_verb_agreement_1", "simple_LM_method": true, "one_prefix_method": true, "two_prefix_method": false, "lexically_identical": false, "pairID": "6"}
{"sentence_good": "The women meet.", "sentence_bad": "The woman meet.", "two_prefix_prefix_good": "The women", "two_prefix_prefix_bad": "The woman", "two_prefix_word": "meet", "field": "morphology", "linguistics_term": "subject_verb_agreement", "UID": "irregular_plural_subject_verb_agreement_2", "simple_LM_method": true, "one_prefix_method": false, "two_prefix_method": true, "lexically_identical": false, "pairID": "0"}
{"sentence_good": "The child isn't attacking Becky.", "sentence_bad": "The children isn't attacking Becky.", "two_prefix_prefix_good": "The child", "two_prefix_prefix_bad": "The children", "two_prefix_word": "isn't", "field": "morphology", "linguistics_term": "subject_verb_agreement", "UID": "irregular_plural_subject_verb_agreement_2", "simple_LM_method": true, "one_prefix_method": false, "two_prefix_method": true, "lexically_identical": false, "pairID": "1"}
{"sentence_good": "The woman cleans every public park.", "sentence_bad": "The women cleans every public park.", "two_prefix_prefix_good": "The woman", "two_prefix_prefix_bad": "The women", "two_prefix_word": "cleans", "field": "morphology", "linguistics_term": "subject_verb_agreement", "UID": "irregular_plural_subject_verb_agreement_2", "simple_LM_method": true, "one_prefix_method": false, "two_prefix_method": true, "lexically_identical": false, "pairID": "2"}
{"sentence_good": "Paula references Robert.", "sentence_bad": "Paula reference Robert.", "one_prefix_prefix": "Paula", "one_prefix_word_good": "references", "one_prefix_word_bad": "reference", "field": "morphology", "linguistics_term": "subject_verb_agreement", "UID": "regular_plural_subject_verb_agreement_1", "simple_LM_method": true, "one_prefix_method": true, "two_prefix_method": false, "lexically_identical": false, "pairID": "0"}
{"sentence_good": "Most legislatures haven't disliked children.", "sentence_bad": "Most legislatures hasn't disliked children.", "one_prefix_prefix": "Most legislatures", "one_prefix_word_good": "haven't", "one_prefix_word_bad": "hasn't", "field": "morphology", "linguistics_term": "subject_verb_agreement", "UID": "regular_plural_subject_verb_agreement_1", "simple_LM_method": true, "one_prefix_method": true, "two_prefix_method": false, "lexically_identical": false, "pairID": "1"}
{"sentence_good": "Some organizations aren't disturbing Vanessa.", "sentence_bad": "Some organizations isn't disturbing Vanessa.", "one_prefix_prefix": "Some organizations", "one_prefix_word_good": "aren't", "one_prefix_word_bad": "isn't", "field": "morphology", "linguistics_term": "subject_verb_agreement", "UID": "regular_plural_subject_verb_agreement_1", "simple_LM_method": true, "one_prefix_method": true, "two_prefix_method": false, "lexically_identical": false, "pairID": "2"}
{"sentence_good": "The students perform.", "sentence_bad": "The student perform.", "two_prefix_prefix_good": "The students", "two_prefix_prefix_bad": "The student", "two_prefix_word": "perform", "field": "morphology", "linguistics_term": "subject_verb_agreement", "UID": "regular_plural_subject_verb_agreement_2", "simple_LM_method": true, "one_prefix_method": false, "two_prefix_method": true, "lexically_identical": false, "pairID": "0"}
{"sentence_good": "The associations talk about Stacey.", "sentence_bad": "The association talk about Stacey.", "two_prefix_prefix_good": "The associations", "two_prefix_prefix_bad": "The association", "two_prefix_word": "talk", "field": "morphology", "linguistics_term": "subject_verb_agreement", "UID": "regular_plural_subject_verb_agreement_2", "simple_LM_method": true, "one_prefix_method": false, "two_prefix_method": true, "lexically_identical": false, "pairID": "1"}
{"sentence_good": "The glove tightens.", "sentence_bad": "The gloves tightens.", "two_prefix_prefix_good": "The glove", "two_prefix_prefix_bad": "The gloves", "two_prefix_word": "tightens", "field": "morphology", "linguistics_term": "subject_verb_agreement", "UID": "regular_plural_subject_verb_agreement_2", "simple_LM_method": true, "one_prefix_method": false, "two_prefix_method": true, "lexically_identical": false, "pairID": "2"}
{"sentence_good": "Aaron breaks the glass.", "sentence_bad": "Aaron appeared the glass.", "field": "syntax", "linguistics_term": "argument_structure", "UID": "causative", "simple_LM_method": true, "one_prefix_method": false, "two_prefix_method": false, "lexically_identical": false, "pairID": "0"}
{"sentence_good": "April had dropped the truck.", "sentence_bad": "April had existed the truck.", "field": "syntax", "linguistics_term": "argument_structure", "UID": "causative", "simple_LM_method": true, "one_prefix_method": false, "two_prefix_method": false, "lexically_identical": false, "pairID": "1"}
{"sentence_good": "Most students hide away sisters of Gerald.", "sentence_bad": "Most students wept sisters of Gerald.", "field": "syntax", "linguistics_term": "argument_structure", "UID": "causative", "simple_LM_method": true, "one_prefix_method": false, "two_prefix_method": false, "lexically_identical": false, "pairID": "5"}
{"sentence_good": "Travis is touring.", "sentence_bad": "Travis is revealing.", "field": "syntax", "linguistics_term": "argument_structure", "UID": "drop_argument", "simple_LM_method": true, "one_prefix_method": false, "two_prefix_method": false, "lexically_identical": false, "pairID": "0"}
{"sentence_good": "Noah approached.", "sentence_bad": "Noah works with.", "field": "syntax", "linguistics_term": "argument_structure", "UID": "drop_argument", "simple_LM_method": true, "one_prefix_method": false, "two_prefix_method": false, "lexically_identical": false, "pairID": "1"}
{"sentence_good": "The Lutherans couldn't skate around.", "sentence_bad": "The Lutherans couldn't disagree with.", "field": "syntax", "linguistics_term": "argument_structure", "UID": "drop_argument", "simple_LM_method": true, "one_prefix_method": false, "two_prefix_method": false, "lexically_identical": false, "pairID": "2"}
{"sentence_good": "Patricia had changed.", "sentence_bad": "Patricia had forgotten.", "field": "syntax", "linguistics_term": "argument_structure", "UID": "inchoative", "simple_LM_method": true, "one_prefix_method": false, "two_prefix_method": false, "lexically_identical": false, "pairID": "0"}
{"sentence_good": "A lot of closets could fling open.", "sentence_bad": "A lot of closets could buy.", "field": "syntax", "linguistics_term": "argument_structure", "UID": "inchoative", "simple_LM_method": true, "one_prefix_method": false, "two_prefix_method": false, "lexically_identical": false, "pairID": "1"}
{"sentence_good": "Those boxes won't fling open.", "sentence_bad": "Those boxes won't look like.", "field": "syntax", "linguistics_term": "argument_structure", "UID": "inchoative", "simple_LM_method": true, "one_prefix_method": false, "two_prefix_method": false, "lexically_identical": false, "pairID": "85"}
{"sentence_good": "Todd can't yawn.", "sentence_bad": "Todd can't walk through.", "field": "syntax", "linguistics_term": "argument_structure", "UID": "intransitive", "simple_LM_method": true, "one_prefix_method": false, "two_prefix_method": false, "lexically_identical": false, "pairID": "0"}
{"sentence_good": "This guest's plumber complains.", "sentence_bad": "This guest's plumber wore.", "field": "syntax", "linguistics_term": "argument_structure", "UID": "intransitive", "simple_LM_method": true, "one_prefix_method": false, "two_prefix_method": false, "lexically_identical": false, "pairID": "4"}
{"sentence_good": "Kimberley wakes up.", "sentence_bad": "Kimberley returned to.", "field": "syntax", "linguistics_term": "argument_structure", "UID": "intransitive", "simple_LM_method": true, "one_prefix_method": false, "two_prefix_method": false, "lexically_identical": false, "pairID": "41"}
{"sentence_good": "Lucille's sisters are confused by Amy.", "sentence_bad": "Lucille's sisters are communicated by Amy.", "field": "syntax", "linguistics_term": "argument_structure", "UID": "passive_1", "simple_LM_method": true, "one_prefix_method": false, "two_prefix_method": false, "lexically_identical": false, "pairID": "0"}
{"sentence_good": "A lot of hospitals were astounded by some actress.", "sentence_bad": "A lot of hospitals were cooperated by some actress.", "field": "syntax", "linguistics_term": "argument_structure", "UID": "passive_1", "simple_LM_method": true, "one_prefix_method": false, "two_prefix_method": false, "lexically_identical": false, "pairID": "1"}
{"sentence_good": "Larry's oncologists aren't helped by Spain.", "sentence_bad": "Larry's oncologists aren't struggled by Spain.", "field": "syntax", "linguistics_term": "argument_structure", "UID": "passive_1", "simple_LM_method": true, "one_prefix_method": false, "two_prefix_method": false, "lexically_identical": false, "pairID": "2"}
{"sentence_good": "A lot of nieces of some actor aren't scared.", "sentence_bad": "A lot of nieces of some actor aren't wept.", "field": "syntax", "linguistics_term": "argument_structure", "UID": "passive_2", "simple_LM_method": true, "one_prefix_method": false, "two_prefix_method": false, "lexically_identical": false, "pairID": "0"}
{"sentence_good": "Mitchell's grandfathers are forgotten.", "sentence_bad": "Mitchell's grandfathers are concurred.", "field": "syntax", "linguistics_term": "argument_structure", "UID": "passive_2", "simple_LM_method": true, "one_prefix_method": false, "two_prefix_method": false, "lexically_identical": false, "pairID": "1"}
{"sentence_good": "The Clintons were attacked.", "sentence_bad": "The Clintons were replied.", "field": "syntax", "linguistics_term": "argument_structure", "UID": "passive_2", "simple_LM_method": true, "one_prefix_method": false, "two_prefix_method": false, "lexically_identical": false, "pairID": "2"}
{"sentence_good": "Some turtles alarm Kimberley.", "sentence_bad": "Some turtles come here Kimberley.", "two_prefix_prefix_good": "Some turtles alarm", "two_prefix_prefix_bad": "Some turtles come here", "two_prefix_word": "Kimberley", "field": "syntax", "linguistics_term": "argument_structure", "UID": "transitive", "simple_LM_method": true, "one_prefix_method": false, "two_prefix_method": true, "lexically_identical": false, "pairID": "0"}
{"sentence_good": "Diane watched Alan.", "sentence_bad": "Diane screamed Alan.", "two_prefix_prefix_good": "Diane watched", "two_prefix_prefix_bad": "Diane screamed", "two_prefix_word": "Alan", "field": "syntax", "linguistics_term": "argument_structure", "UID": "transitive", "simple_LM_method": true, "one_prefix_method": false, "two_prefix_method": true, "lexically_identical": false, "pairID": "1"}
{"sentence_good": "This cousin of Theodore buys some mushroom.", "sentence_bad": "This cousin of Theodore wept some mushroom.", "two_prefix_prefix_good": "This cousin of Theodore buys", "two_prefix_prefix_bad": "This cousin of Theodore wept", "two_prefix_word": "some", "field": "syntax", "linguistics_term": "argument_structure", "UID": "transitive", "simple_LM_method": true, "one_prefix_method": false, "two_prefix_method": true, "lexically_identical": false, "pairID": "2"}
{"sentence_good": "Amanda was respected by some waitresses.", "sentence_bad": "Amanda was respected by some picture.", "one_prefix_prefix": "Amanda was respected by some", "one_prefix_word_good": "waitresses", "one_prefix_word_bad": "picture", "field": "syntax", "linguistics_term": "s-selection", "UID": "animate_subject_passive", "simple_LM_method": true, "one_prefix_method": true, "two_prefix_method": false, "lexically_identical": false, "pairID": "0"}
{"sentence_good": "A story wasn't scanned by the doctor.", "sentence_bad": "A story wasn't scanned by the newspaper article.", "one_prefix_prefix": "A story wasn't scanned by the", "one_prefix_word_good": "doctor", "one_prefix_word_bad": "newspaper article", "field": "syntax", "linguistics_term": "s-selection", "UID": "animate_subject_passive", "simple_LM_method": true, "one_prefix_method": true, "two_prefix_method": false, "lexically_identical": false, "pairID": "40"}
{"sentence_good": "Tina revealed Margaret.", "sentence_bad": "The horse revealed Margaret.", "two_prefix_prefix_good": "Tina", "two_prefix_prefix_bad": "The horse", "two_prefix_word": " revealed", "field": "syntax", "linguistics_term": "s-selection", "UID": "animate_subject_trans", "simple_LM_method": true, "one_prefix_method": false, "two_prefix_method": true, "lexically_identical": false, "pairID": "0"}
{"sentence_good": "Most banks have praised Raymond.", "sentence_bad": "The jackets have praised Raymond.", "two_prefix_prefix_good": "Most banks", "two_prefix_prefix_bad": "The jackets", "two_prefix_word": "have praised", "field": "syntax", "linguistics_term": "s-selection", "UID": "animate_subject_trans", "simple_LM_method": true, "one_prefix_method": false, "two_prefix_method": true, "lexically_identical": false, "pairID": "3"}
{"sentence_good": "Denise wasn't referencing Homer.", "sentence_bad": "Rice wasn't referencing Homer.", "two_prefix_prefix_good": "Denise", "two_prefix_prefix_bad": "Rice", "two_prefix_word": "wasn't referencing", "field": "syntax", "linguistics_term": "s-selection", "UID": "animate_subject_trans", "simple_LM_method": true, "one_prefix_method": false, "two_prefix_method": true, "lexically_identical": false, "pairID": "13"}
{"sentence_good": "There was a documentary about music irritating Allison.", "sentence_bad": "There was each documentary about music irritating Allison.", "field": "semantics", "linguistics_term": "quantifiers", "UID": "existential_there_quantifiers_1", "simple_LM_method": true, "one_prefix_method": false, "two_prefix_method": false, "lexically_identical": false, "pairID": "0"}
{"sentence_good": "There were no legislatures working hard.", "sentence_bad": "There were most legislatures working hard.", "field": "semantics", "linguistics_term": "quantifiers", "UID": "existential_there_quantifiers_1", "simple_LM_method": true, "one_prefix_method": false, "two_prefix_method": false, "lexically_identical": false, "pairID": "1"}
{"sentence_good": "There was a sweater shocking David.", "sentence_bad": "There was each sweater shocking David.", "field": "semantics", "linguistics_term": "quantifiers", "UID": "existential_there_quantifiers_1", "simple_LM_method": true, "one_prefix_method": false, "two_prefix_method": false, "lexically_identical": false, "pairID": "2"}
{"sentence_good": "All convertibles weren't there existing.", "sentence_bad": "There weren't all convertibles existing.", "field": "semantics", "linguistics_term": "quantifiers", "UID": "existential_there_quantifiers_2", "simple_LM_method": true, "one_prefix_method": false, "two_prefix_method": false, "lexically_identical": false, "pairID": "0"}
{"sentence_good": "Every newspaper article wasn't there wasting away.", "sentence_bad": "There wasn't every newspaper article wasting away.", "field": "semantics", "linguistics_term": "quantifiers", "UID": "existential_there_quantifiers_2", "simple_LM_method": true, "one_prefix_method": false, "two_prefix_method": false, "lexically_identical": false, "pairID": "5"}
{"sentence_good": "No girl attacked fewer than two waiters.", "sentence_bad": "No girl attacked at most two waiters.", "crucial_item": "at most", "field": "semantics", "linguistics_term": "quantifiers", "UID": "superlative_quantifiers_1", "simple_LM_method": true, "one_prefix_method": false, "two_prefix_method": false, "lexically_identical": false, "pairID": "0"}
{"sentence_good": "No person would bring fewer than three gates.", "sentence_bad": "No person would bring at most three gates.", "crucial_item": "at most", "field": "semantics", "linguistics_term": "quantifiers", "UID": "superlative_quantifiers_1", "simple_LM_method": true, "one_prefix_method": false, "two_prefix_method": false, "lexically_identical": false, "pairID": "1"}
{"sentence_good": "No actor had driven to fewer than four malls.", "sentence_bad": "No actor had driven to at most four malls.", "crucial_item": "at most", "field": "semantics", "linguistics_term": "quantifiers", "UID": "superlative_quantifiers_1", "simple_LM_method": true, "one_prefix_method": false, "two_prefix_method": false, "lexically_identical": false, "pairID": "2"}
{"sentence_good": "The teenager does tour at most nine restaurants.", "sentence_bad": "No teenager does tour at most nine restaurants.", "crucial_item": "at most", "two_prefix_prefix_good": "The teenager does tour at", "two_prefix_prefix_bad": "No teenager does tour at", "two_prefix_word": "most", "field": "semantics", "linguistics_term": "quantifiers", "UID": "superlative_quantifiers_2", "simple_LM_method": true, "one_prefix_method": false, "two_prefix_method": true, "lexically_identical": false, "pairID": "0"}
{"sentence_good": "The doctor brought at most eight gates.", "sentence_bad": "No doctor brought at most eight gates.", "crucial_item": "at most", "two_prefix_prefix_good": "The doctor brought at", "two_prefix_prefix_bad": "No doctor brought at", "two_prefix_word": "most", "field": "semantics", "linguistics_term": "quantifiers", "UID": "superlative_quantifiers_2", "simple_LM_method": true, "one_prefix_method": false, "two_prefix_method": true, "lexically_identical": false, "pairID": "2"}
{"sentence_good": "Each dancer would return to at least seven schools.", "sentence_bad": "No dancer would return to at least seven schools.", "crucial_item": "at least", "two_prefix_prefix_good": "Each dancer would return to at", "two_prefix_prefix_bad": "No dancer would return to at", "two_prefix_word": "least", "field": "semantics", "linguistics_term": "quantifiers", "UID": "superlative_quantifiers_2", "simple_LM_method": true, "one_prefix_method": false, "two_prefix_method": true, "lexically_identical": false, "pairID": "10"}
{"sentence_good": "Even Suzanne has really joked around.", "sentence_bad": "Even Suzanne has ever joked around.", "one_prefix_prefix": "Even Suzanne has", "one_prefix_word_good": "really", "one_prefix_word_bad": "ever", "field": "semantics", "linguistics_term": "npi_licensing", "UID": "npi_present_1", "simple_LM_method": true, "one_prefix_method": true, "two_prefix_method": false, "lexically_identical": false, "pairID": "0"}
{"sentence_good": "Even many teenagers clearly boycott those legislatures.", "sentence_bad": "Even many teenagers ever boycott those legislatures.", "one_prefix_prefix": "Even many teenagers", "one_prefix_word_good": "clearly", "one_prefix_word_bad": "ever", "field": "semantics", "linguistics_term": "npi_licensing", "UID": "npi_present_1", "simple_LM_method": true, "one_prefix_method": true, "two_prefix_method": false, "lexically_identical": false, "pairID": "1"}
{"sentence_good": "Even every cashier had clearly found out who hasn't sung.", "sentence_bad": "Even every cashier had ever found out who hasn't sung.", "one_prefix_prefix": "Even every cashier had", "one_prefix_word_good": "clearly", "one_prefix_word_bad": "ever", "field": "semantics", "linguistics_term": "npi_licensing", "UID": "npi_present_1", "simple_LM_method": true, "one_prefix_method": true, "two_prefix_method": false, "lexically_identical": false, "pairID": "2"}
{"sentence_good": "Tamara really exited those mountains.", "sentence_bad": "Tamara ever exited those mountains.", "one_prefix_prefix": "Tamara", "one_prefix_word_good": "really", "one_prefix_word_bad": "ever", "field": "semantics", "linguistics_term": "npi_licensing", "UID": "npi_present_2", "simple_LM_method": true, "one_prefix_method": true, "two_prefix_method": false, "lexically_identical": false, "pairID": "0"}
{"sentence_good": "Karen could certainly boycott this association.", "sentence_bad": "Karen could ever boycott this association.", "one_prefix_prefix": "Karen could", "one_prefix_word_good": "certainly", "one_prefix_word_bad": "ever", "field": "semantics", "linguistics_term": "npi_licensing", "UID": "npi_present_2", "simple_LM_method": true, "one_prefix_method": true, "two_prefix_method": false, "lexically_identical": false, "pairID": "1"}
{"sentence_good": "Every committee could often sell a river.", "sentence_bad": "Every committee could ever sell a river.", "one_prefix_prefix": "Every committee could", "one_prefix_word_good": "often", "one_prefix_word_bad": "ever", "field": "semantics", "linguistics_term": "npi_licensing", "UID": "npi_present_2", "simple_LM_method": true, "one_prefix_method": true, "two_prefix_method": false, "lexically_identical": false, "pairID": "2"}
{"sentence_good": "Only Bill would ever complain.", "sentence_bad": "Even Bill would ever complain.", "two_prefix_prefix_good": "Only Bill would", "two_prefix_prefix_bad": "Even Bill would", "two_prefix_word": "ever", "field": "semantics", "linguistics_term": "npi_licensing", "UID": "only_npi_licensor_present", "simple_LM_method": true, "one_prefix_method": false, "two_prefix_method": true, "lexically_identical": false, "pairID": "0"}
{"sentence_good": "Only Alexander ever looked like this drawing.", "sentence_bad": "Even Alexander ever looked like this drawing.", "two_prefix_prefix_good": "Only Alexander", "two_prefix_prefix_bad": "Even Alexander", "two_prefix_word": "ever", "field": "semantics", "linguistics_term": "npi_licensing", "UID": "only_npi_licensor_present", "simple_LM_method": true, "one_prefix_method": false, "two_prefix_method": true, "lexically_identical": false, "pairID": "3"}
{"sentence_good": "Only some cashiers had ever replied.", "sentence_bad": "Even some cashiers had ever replied.", "two_prefix_prefix_good": "Only some cashiers had", "two_prefix_prefix_bad": "Even some cashiers had", "two_prefix_word": "ever", "field": "semantics", "linguistics_term": "npi_licensing", "UID": "only_npi_licensor_present", "simple_LM_method": true, "one_prefix_method": false, "two_prefix_method": true, "lexically_identical": false, "pairID": "21"}
{"sentence_good": "Teresa had not ever sold a movie theater.", "sentence_bad": "Teresa had probably ever sold a movie theater.", "two_prefix_prefix_good": "Teresa had not", "two_prefix_prefix_bad": "Teresa had probably", "two_prefix_word": "ever", "field": "semantics", "linguistics_term": "npi_licensing", "UID": "sentential_negation_npi_licensor_present", "simple_LM_method": true, "one_prefix_method": false, "two_prefix_method": true, "lexically_identical": false, "pairID": "0"}
{"sentence_good": "Allison has not ever taken that ice cream.", "sentence_bad": "Allison has fortunately ever taken that ice cream.", "two_prefix_prefix_good": "Allison has not", "two_prefix_prefix_bad": "Allison has fortunately", "two_prefix_word": "ever", "field": "semantics", "linguistics_term": "npi_licensing", "UID": "sentential_negation_npi_licensor_present", "simple_LM_method": true, "one_prefix_method": false, "two_prefix_method": true, "lexically_identical": false, "pairID": "1"}
{"sentence_good": "Teresa would not ever ascertain Carmen to remember Jessica.", "sentence_bad": "Teresa would fortunately ever ascertain Carmen to remember Jessica.", "two_prefix_prefix_good": "Teresa would not", "two_prefix_prefix_bad": "Teresa would fortunately", "two_prefix_word": "ever", "field": "semantics", "linguistics_term": "npi_licensing", "UID": "sentential_negation_npi_licensor_present", "simple_LM_method": true, "one_prefix_method": false, "two_prefix_method": true, "lexically_identical": false, "pairID": "2"}
{"sentence_good": "Had Bruce ever played?", "sentence_bad": "Bruce had ever played.", "two_prefix_prefix_good": "Had Bruce", "two_prefix_prefix_bad": "Bruce had", "two_prefix_word": "ever", "field": "semantics", "linguistics_term": "npi_licensing", "UID": "matrix_question_npi_licensor_present", "simple_LM_method": true, "one_prefix_method": false, "two_prefix_method": true, "lexically_identical": true, "pairID": "0"}
{"sentence_good": "Do some carts ever accelerate?", "sentence_bad": "Some carts do ever accelerate.", "two_prefix_prefix_good": "Do some carts", "two_prefix_prefix_bad": "Some carts do", "two_prefix_word": "ever", "field": "semantics", "linguistics_term": "npi_licensing", "UID": "matrix_question_npi_licensor_present", "simple_LM_method": true, "one_prefix_method": false, "two_prefix_method": true, "lexically_identical": true, "pairID": "2"}
{"sentence_good": "Would many customers ever bake?", "sentence_bad": "Many customers would ever bake.", "two_prefix_prefix_good": "Would many customers", "two_prefix_prefix_bad": "Many customers would", "two_prefix_word": "ever", "field": "semantics", "linguistics_term": "npi_licensing", "UID": "matrix_question_npi_licensor_present", "simple_LM_method": true, "one_prefix_method": false, "two_prefix_method": true, "lexically_identical": true, "pairID": "8"}
{"sentence_good": "Brad passed one big museum and Eva passed several.", "sentence_bad": "Brad passed one museum and Eva passed several big.", "field": "syntax", "linguistics_term": "ellipsis", "UID": "ellipsis_n_bar_1", "simple_LM_method": true, "one_prefix_method": false, "two_prefix_method": false, "lexically_identical": false, "pairID": "3"}
{"sentence_good": "Most ladies can appreciate one good essay and Matt's dermatologist can appreciate two.", "sentence_bad": "Most ladies can appreciate one essay and Matt's dermatologist can appreciate two good.", "field": "syntax", "linguistics_term": "ellipsis", "UID": "ellipsis_n_bar_1", "simple_LM_method": true, "one_prefix_method": false, "two_prefix_method": false, "lexically_identical": false, "pairID": "5"}
{"sentence_good": "That lady has resembled one hidden print and Guy's colleague has resembled four.", "sentence_bad": "That lady has resembled one print and Guy's colleague has resembled four hidden.", "field": "syntax", "linguistics_term": "ellipsis", "UID": "ellipsis_n_bar_1", "simple_LM_method": true, "one_prefix_method": false, "two_prefix_method": false, "lexically_identical": false, "pairID": "7"}
{"sentence_good": "Larry talked to five dermatologists and Rose talked to four displeased dermatologists.", "sentence_bad": "Larry talked to five small dermatologists and Rose talked to four displeased.", "field": "syntax", "linguistics_term": "ellipsis", "UID": "ellipsis_n_bar_2", "simple_LM_method": true, "one_prefix_method": false, "two_prefix_method": false, "lexically_identical": false, "pairID": "1"}
{"sentence_good": "Curtis's boss discussed four sons and Andrew discussed five sick sons.", "sentence_bad": "Curtis's boss discussed four happy sons and Andrew discussed five sick.", "field": "syntax", "linguistics_term": "ellipsis", "UID": "ellipsis_n_bar_2", "simple_LM_method": true, "one_prefix_method": false, "two_prefix_method": false, "lexically_identical": false, "pairID": "7"}
{"sentence_good": "Phillip's ex-girlfriends examine four newspaper articles and Tamara's ex-wives examine five smooth newspaper articles.", "sentence_bad": "Phillip's ex-girlfriends examine four black newspaper articles and Tamara's ex-wives examine five smooth.", "field": "syntax", "linguistics_term": "ellipsis", "UID": "ellipsis_n_bar_2", "simple_LM_method": true, "one_prefix_method": false, "two_prefix_method": false, "lexically_identical": false, "pairID": "87"}
{"sentence_good": "Joel discovered the vase that Patricia might take.", "sentence_bad": "Joel discovered what Patricia might take the vase.", "field": "syntax", "linguistics_term": "filler_gap_dependency", "UID": "wh_questions_object_gap", "simple_LM_method": true, "one_prefix_method": false, "two_prefix_method": false, "lexically_identical": false, "pairID": "0"}
{"sentence_good": "Amy has seen every skateboard that all guests see.", "sentence_bad": "Amy has seen what all guests see every skateboard.", "field": "syntax", "linguistics_term": "filler_gap_dependency", "UID": "wh_questions_object_gap", "simple_LM_method": true, "one_prefix_method": false, "two_prefix_method": false, "lexically_identical": false, "pairID": "4"}
{"sentence_good": "Bill wasn't noticing the pedestrian that Joseph wasn't talking to.", "sentence_bad": "Bill wasn't noticing who Joseph wasn't talking to the pedestrian.", "field": "syntax", "linguistics_term": "filler_gap_dependency", "UID": "wh_questions_object_gap", "simple_LM_method": true, "one_prefix_method": false, "two_prefix_method": false, "lexically_identical": false, "pairID": "11"}
{"sentence_good": "Brian had questioned an association that can astound Diana.", "sentence_bad": "Brian had questioned who an association can astound Diana.", "field": "syntax", "linguistics_term": "filler_gap_dependency", "UID": "wh_questions_subject_gap", "simple_LM_method": true, "one_prefix_method": false, "two_prefix_method": false, "lexically_identical": false, "pairID": "0"}
{"sentence_good": "Leslie remembered some guest that has bothered women.", "sentence_bad": "Leslie remembered who some guest has bothered women.", "field": "syntax", "linguistics_term": "filler_gap_dependency", "UID": "wh_questions_subject_gap", "simple_LM_method": true, "one_prefix_method": false, "two_prefix_method": false, "lexically_identical": false, "pairID": "1"}
{"sentence_good": "Rebecca knew all alumni that have helped a boy.", "sentence_bad": "Rebecca knew who all alumni have helped a boy.", "field": "syntax", "linguistics_term": "filler_gap_dependency", "UID": "wh_questions_subject_gap", "simple_LM_method": true, "one_prefix_method": false, "two_prefix_method": false, "lexically_identical": false, "pairID": "7"}
{"sentence_good": "Dennis has seen this tooth that Kristin wasn't concealing that is astounding men.", "sentence_bad": "Dennis has seen who this tooth that Kristin wasn't concealing is astounding men.", "field": "syntax", "linguistics_term": "filler_gap_dependency", "UID": "wh_questions_subject_gap_long_distance", "simple_LM_method": true, "one_prefix_method": false, "two_prefix_method": false, "lexically_identical": false, "pairID": "0"}
{"sentence_good": "All pedestrians research those ellipses that Ellen has appreciated that disgusted this actress.", "sentence_bad": "All pedestrians research who those ellipses that Ellen has appreciated disgusted this actress.", "field": "syntax", "linguistics_term": "filler_gap_dependency", "UID": "wh_questions_subject_gap_long_distance", "simple_LM_method": true, "one_prefix_method": false, "two_prefix_method": false, "lexically_identical": false, "pairID": "3"}
{"sentence_good": "The Lutherans know the man that the casserole confuses that impressed the waitresses.", "sentence_bad": "The Lutherans know who the man that the casserole confuses impressed the waitresses.", "field": "syntax", "linguistics_term": "filler_gap_dependency", "UID": "wh_questions_subject_gap_long_distance", "simple_LM_method": true, "one_prefix_method": false, "two_prefix_method": false, "lexically_identical": false, "pairID": "5"}
{"sentence_good": "Mark figured out that most governments appreciate Steve.", "sentence_bad": "Mark figured out who most governments appreciate Steve.", "field": "syntax", "linguistics_term": "filler_gap_dependency", "UID": "wh_vs_that_no_gap", "simple_LM_method": true, "one_prefix_method": false, "two_prefix_method": false, "lexically_identical": false, "pairID": "0"}
{"sentence_good": "Some girls revealed that all waitresses hadn't cleaned the cup.", "sentence_bad": "Some girls revealed what all waitresses hadn't cleaned the cup.", "field": "syntax", "linguistics_term": "filler_gap_dependency", "UID": "wh_vs_that_no_gap", "simple_LM_method": true, "one_prefix_method": false, "two_prefix_method": false, "lexically_identical": false, "pairID": "5"}
{"sentence_good": "Deborah has forgotten that the offspring ran around the mountains.", "sentence_bad": "Deborah has forgotten what the offspring ran around the mountains.", "field": "syntax", "linguistics_term": "filler_gap_dependency", "UID": "wh_vs_that_no_gap", "simple_LM_method": true, "one_prefix_method": false, "two_prefix_method": false, "lexically_identical": false, "pairID": "10"}
{"sentence_good": "Every association figured out that most drivers that forfeit investigated Irene.", "sentence_bad": "Every association figured out who most drivers that forfeit investigated Irene.", "field": "syntax", "linguistics_term": "filler_gap_dependency", "UID": "wh_vs_that_no_gap_long_distance", "simple_LM_method": true, "one_prefix_method": false, "two_prefix_method": false, "lexically_identical": false, "pairID": "0"}
{"sentence_good": "Melinda investigated that this girl that looked like those drawings might attack Cindy.", "sentence_bad": "Melinda investigated who this girl that looked like those drawings might attack Cindy.", "field": "syntax", "linguistics_term": "filler_gap_dependency", "UID": "wh_vs_that_no_gap_long_distance", "simple_LM_method": true, "one_prefix_method": false, "two_prefix_method": false, "lexically_identical": false, "pairID": "7"}
{"sentence_good": "Martin had remembered that this man that sold most eyes hides the coat.", "sentence_bad": "Martin had remembered what this man that sold most eyes hides the coat.", "field": "syntax", "linguistics_term": "filler_gap_dependency", "UID": "wh_vs_that_no_gap_long_distance", "simple_LM_method": true, "one_prefix_method": false, "two_prefix_method": false, "lexically_identical": false, "pairID": "9"}
{"sentence_good": "A lady has remembered who the actors conceal.", "sentence_bad": "A lady has remembered that the actors conceal.", "field": "syntax", "linguistics_term": "filler_gap_dependency", "UID": "wh_vs_that_with_gap", "simple_LM_method": true, "one_prefix_method": false, "two_prefix_method": false, "lexically_identical": false, "pairID": "0"}
{"sentence_good": "Teenagers know what all ladies haven't examined.", "sentence_bad": "Teenagers know that all ladies haven't examined.", "field": "syntax", "linguistics_term": "filler_gap_dependency", "UID": "wh_vs_that_with_gap", "simple_LM_method": true, "one_prefix_method": false, "two_prefix_method": false, "lexically_identical": false, "pairID": "1"}
{"sentence_good": "Those teenagers realize who all guests flee from.", "sentence_bad": "Those teenagers realize that all guests flee from.", "field": "syntax", "linguistics_term": "filler_gap_dependency", "UID": "wh_vs_that_with_gap", "simple_LM_method": true, "one_prefix_method": false, "two_prefix_method": false, "lexically_identical": false, "pairID": "11"}
{"sentence_good": "Martin did find out what every cashier that shouldn't drink wore.", "sentence_bad": "Martin did find out that every cashier that shouldn't drink wore.", "field": "syntax", "linguistics_term": "filler_gap_dependency", "UID": "wh_vs_that_with_gap_long_distance", "simple_LM_method": true, "one_prefix_method": false, "two_prefix_method": false, "lexically_identical": false, "pairID": "1"}
{"sentence_good": "A waiter has realized who all hospitals that protested listened to.", "sentence_bad": "A waiter has realized that all hospitals that protested listened to.", "field": "syntax", "linguistics_term": "filler_gap_dependency", "UID": "wh_vs_that_with_gap_long_distance", "simple_LM_method": true, "one_prefix_method": false, "two_prefix_method": false, "lexically_identical": false, "pairID": "6"}
{"sentence_good": "Carmen discovered who many cashiers that have sold every report returned to.", "sentence_bad": "Carmen discovered that many cashiers that have sold every report returned to.", "field": "syntax", "linguistics_term": "filler_gap_dependency", "UID": "wh_vs_that_with_gap_long_distance", "simple_LM_method": true, "one_prefix_method": false, "two_prefix_method": false, "lexically_identical": false, "pairID": "10"}
{"sentence_good": "Only a popsicle that Danielle admires ever freezes.", "sentence_bad": "A popsicle that only Danielle admires ever freezes.", "two_prefix_prefix_good": "Only a popsicle that Danielle admires", "two_prefix_prefix_bad": "A popsicle that only Danielle admires", "two_prefix_word": "ever", "field": "syntax_semantics", "linguistics_term": "npi_licensing", "UID": "only_npi_scope", "simple_LM_method": true, "one_prefix_method": false, "two_prefix_method": true, "lexically_identical": true, "pairID": "2"}
{"sentence_good": "Only every government that Lawrence confused has ever respected Dana.", "sentence_bad": "Every government that only Lawrence confused has ever respected Dana.", "two_prefix_prefix_good": "Only every government that Lawrence confused has", "two_prefix_prefix_bad": "Every government that only Lawrence confused has", "two_prefix_word": "ever", "field": "syntax_semantics", "linguistics_term": "npi_licensing", "UID": "only_npi_scope", "simple_LM_method": true, "one_prefix_method": false, "two_prefix_method": true, "lexically_identical": true, "pairID": "11"}
{"sentence_good": "Only cashiers that broccoli was distracting had ever thought about a face.", "sentence_bad": "Cashiers that only broccoli was distracting had ever thought about a face.", "two_prefix_prefix_good": "Only cashiers that broccoli was distracting had", "two_prefix_prefix_bad": "Cashiers that only broccoli was distracting had", "two_prefix_word": "ever", "field": "syntax_semantics", "linguistics_term": "npi_licensing", "UID": "only_npi_scope", "simple_LM_method": true, "one_prefix_method": false, "two_prefix_method": true, "lexically_identical": true, "pairID": "14"}
{"sentence_good": "Only these shirts that paintings have looked like could ever soak.", "sentence_bad": "These shirts that only paintings have looked like could ever soak.", "two_prefix_prefix_good": "Only these shirts that paintings have looked like could", "two_prefix_prefix_bad": "These shirts that only paintings have looked like could", "two_prefix_word": "ever", "field": "syntax_semantics", "linguistics_term": "npi_licensing", "UID": "only_npi_scope", "simple_LM_method": true, "one_prefix_method": false, "two_prefix_method": true, "lexically_identical": true, "pairID": "13"}
{"sentence_good": "Only children who these teenagers had argued about should ever donate.", "sentence_bad": "Children who only these teenagers had argued about should ever donate.", "two_prefix_prefix_good": "Only children who these teenagers had argued about should", "two_prefix_prefix_bad": "Children who only these teenagers had argued about should", "two_prefix_word": "ever", "field": "syntax_semantics", "linguistics_term": "npi_licensing", "UID": "only_npi_scope", "simple_LM_method": true, "one_prefix_method": false, "two_prefix_method": true, "lexically_identical": true, "pairID": "102"}
{"sentence_good": "The associations that had worried Cynthia have not ever planned to shock every actress.", "sentence_bad": "The associations that had not worried Cynthia have ever planned to shock every actress.", "two_prefix_prefix_good": "The associations that had worried Cynthia have not", "two_prefix_prefix_bad": "The associations that had not worried Cynthia have", "two_prefix_word": "ever", "field": "syntax_semantics", "linguistics_term": "npi_licensing", "UID": "sentential_negation_npi_scope", "simple_LM_method": true, "one_prefix_method": false, "two_prefix_method": true, "lexically_identical": true, "pairID": "0"}
{"sentence_good": "Every son of Jerry who has insulted Jerry can not ever die.", "sentence_bad": "Every son of Jerry who has not insulted Jerry can ever die.", "two_prefix_prefix_good": "Every son of Jerry who has insulted Jerry can not", "two_prefix_prefix_bad": "Every son of Jerry who has not insulted Jerry can", "two_prefix_word": "ever", "field": "syntax_semantics", "linguistics_term": "npi_licensing", "UID": "sentential_negation_npi_scope", "simple_LM_method": true, "one_prefix_method": false, "two_prefix_method": true, "lexically_identical": true, "pairID": "1"}
{"sentence_good": "The doctor that has referenced Diane might not ever move.", "sentence_bad": "The doctor that has not referenced Diane might ever move.", "two_prefix_prefix_good": "The doctor that has referenced Diane might not", "two_prefix_prefix_bad": "The doctor that has not referenced Diane might", "two_prefix_word": "ever", "field": "syntax_semantics", "linguistics_term": "npi_licensing", "UID": "sentential_negation_npi_scope", "simple_LM_method": true, "one_prefix_method": false, "two_prefix_method": true, "lexically_identical": true, "pairID": "3"}
{"sentence_good": "There is soon to be a cat existing.", "sentence_bad": "There is willing to be a cat existing.", "field": "syntax_semantics", "linguistics_term": "control_raising", "UID": "existential_there_subject_raising", "simple_LM_method": true, "one_prefix_method": false, "two_prefix_method": false, "lexically_identical": false, "pairID": "0"}
{"sentence_good": "There was bound to be a fish escaping.", "sentence_bad": "There was unable to be a fish escaping.", "field": "syntax_semantics", "linguistics_term": "control_raising", "UID": "existential_there_subject_raising", "simple_LM_method": true, "one_prefix_method": false, "two_prefix_method": false, "lexically_identical": false, "pairID": "1"}
{"sentence_good": "There weren't about to be few prints of this eggplant scaring Paula.", "sentence_bad": "There weren't unwilling to be few prints of this eggplant scaring Paula.", "field": "syntax_semantics", "linguistics_term": "control_raising", "UID": "existential_there_subject_raising", "simple_LM_method": true, "one_prefix_method": false, "two_prefix_method": false, "lexically_identical": false, "pairID": "2"}
{"sentence_good": "James is pleasant to flee from.", "sentence_bad": "James is apt to flee from.", "field": "syntax_semantics", "linguistics_term": "control_raising", "UID": "tough_vs_raising_1", "simple_LM_method": true, "one_prefix_method": false, "two_prefix_method": false, "lexically_identical": false, "pairID": "0"}
{"sentence_good": "Samuel's lawyer was easy to reference.", "sentence_bad": "Samuel's lawyer was certain to reference.", "field": "syntax_semantics", "linguistics_term": "control_raising", "UID": "tough_vs_raising_1", "simple_LM_method": true, "one_prefix_method": false, "two_prefix_method": false, "lexically_identical": false, "pairID": "1"}
{"sentence_good": "Laura isn't interesting to cure.", "sentence_bad": "Laura isn't soon to cure.", "field": "syntax_semantics", "linguistics_term": "control_raising", "UID": "tough_vs_raising_1", "simple_LM_method": true, "one_prefix_method": false, "two_prefix_method": false, "lexically_identical": false, "pairID": "3"}
{"sentence_good": "Rachel was apt to talk to Alicia.", "sentence_bad": "Rachel was exciting to talk to Alicia.", "field": "syntax_semantics", "linguistics_term": "control_raising", "UID": "tough_vs_raising_2", "simple_LM_method": true, "one_prefix_method": false, "two_prefix_method": false, "lexically_identical": false, "pairID": "1"}
{"sentence_good": "This doctor's cousins aren't soon to question Kirsten.", "sentence_bad": "This doctor's cousins aren't interesting to question Kirsten.", "field": "syntax_semantics", "linguistics_term": "control_raising", "UID": "tough_vs_raising_2", "simple_LM_method": true, "one_prefix_method": false, "two_prefix_method": false, "lexically_identical": false, "pairID": "2"}
{"sentence_good": "Sheila is certain to find Stephen to describe this customer.", "sentence_bad": "Sheila is difficult to find Stephen to describe this customer.", "field": "syntax_semantics", "linguistics_term": "control_raising", "UID": "tough_vs_raising_2", "simple_LM_method": true, "one_prefix_method": false, "two_prefix_method": false, "lexically_identical": false, "pairID": "3"}
{"sentence_good": "Vanessa thinks that she complained about Adam.", "sentence_bad": "Vanessa thinks that herself complained about Adam.", "one_prefix_prefix": "Vanessa thinks that", "one_prefix_word_good": "she", "one_prefix_word_bad": "herself", "field": "syntax_semantics", "linguistics_term": "binding", "UID": "principle_A_case_1", "simple_LM_method": true, "one_prefix_method": true, "two_prefix_method": false, "lexically_identical": false, "pairID": "782"}
{"sentence_good": "Nicole imagines that she isn't investigating some guest.", "sentence_bad": "Nicole imagines that herself isn't investigating some guest.", "one_prefix_prefix": "Nicole imagines that", "one_prefix_word_good": "she", "one_prefix_word_bad": "herself", "field": "syntax_semantics", "linguistics_term": "binding", "UID": "principle_A_case_1", "simple_LM_method": true, "one_prefix_method": true, "two_prefix_method": false, "lexically_identical": false, "pairID": "64"}
{"sentence_good": "Students explain that they alarm Katherine.", "sentence_bad": "Students explain that themselves alarm Katherine.", "one_prefix_prefix": "Students explain that", "one_prefix_word_good": "they", "one_prefix_word_bad": "themselves", "field": "syntax_semantics", "linguistics_term": "binding", "UID": "principle_A_case_1", "simple_LM_method": true, "one_prefix_method": true, "two_prefix_method": false, "lexically_identical": false, "pairID": "120"}
{"sentence_good": "Bradley isn't imagining himself attacking Dawn.", "sentence_bad": "Bradley isn't imagining himself attacked Dawn.", "one_prefix_prefix": "Bradley isn't imagining himself", "one_prefix_word_good": "attacking", "one_prefix_word_bad": "attacked", "field": "syntax/semantics", "linguistics_term": "binding", "UID": "principle_A_case_2", "simple_LM_method": true, "one_prefix_method": true, "two_prefix_method": false, "lexically_identical": false, "pairID": "137"}
{"sentence_good": "Keith imagines himself breaking all chairs.", "sentence_bad": "Keith imagines himself broke all chairs.", "one_prefix_prefix": "Keith imagines himself", "one_prefix_word_good": "breaking", "one_prefix_word_bad": "broke", "field": "syntax/semantics", "linguistics_term": "binding", "UID": "principle_A_case_2", "simple_LM_method": true, "one_prefix_method": true, "two_prefix_method": false, "lexically_identical": false, "pairID": "782"}
{"sentence_good": "Brad can't think about himself firing Jane.", "sentence_bad": "Brad can't think about himself fires Jane.", "one_prefix_prefix": "Brad can't think about himself", "one_prefix_word_good": "firing", "one_prefix_word_bad": "fires", "field": "syntax/semantics", "linguistics_term": "binding", "UID": "principle_A_case_2", "simple_LM_method": true, "one_prefix_method": true, "two_prefix_method": false, "lexically_identical": false, "pairID": "261"}
{"sentence_good": "A woman who has known those guys loves herself.", "sentence_bad": "A woman who has known those guys loves themselves.", "one_prefix_prefix": "A woman who has known those guys loves", "one_prefix_word_good": "herself", "one_prefix_word_bad": "themselves", "field": "syntax_semantics", "linguistics_term": "binding", "UID": "principle_A_c_command", "simple_LM_method": true, "one_prefix_method": true, "two_prefix_method": false, "lexically_identical": false, "pairID": "582"}
{"sentence_good": "These doctors that didn't flee from Michael visited themselves.", "sentence_bad": "These doctors that didn't flee from Michael visited himself.", "one_prefix_prefix": "These doctors that didn't flee from Michael visited", "one_prefix_word_good": "themselves", "one_prefix_word_bad": "himself", "field": "syntax_semantics", "linguistics_term": "binding", "UID": "principle_A_c_command", "simple_LM_method": true, "one_prefix_method": true, "two_prefix_method": false, "lexically_identical": false, "pairID": "64"}
{"sentence_good": "Most cashiers who conceal Bruce would reveal themselves.", "sentence_bad": "Most cashiers who conceal Bruce would reveal himself.", "one_prefix_prefix": "Most cashiers who conceal Bruce would reveal", "one_prefix_word_good": "themselves", "one_prefix_word_bad": "himself", "field": "syntax_semantics", "linguistics_term": "binding", "UID": "principle_A_c_command", "simple_LM_method": true, "one_prefix_method": true, "two_prefix_method": false, "lexically_identical": false, "pairID": "120"}
{"sentence_good": "Keith explained that Diane wasn't attacking him.", "sentence_bad": "Keith explained that Diane wasn't attacking himself.", "one_prefix_prefix": "Keith explained that Diane wasn't attacking", "one_prefix_word_good": "him", "one_prefix_word_bad": "himself", "field": "syntax_semantics", "linguistics_term": "binding", "UID": "principle_A_domain_1", "simple_LM_method": true, "one_prefix_method": true, "two_prefix_method": false, "lexically_identical": false, "pairID": "582"}
{"sentence_good": "Stacy imagined that Russell had escaped from her.", "sentence_bad": "Stacy imagined that Russell had escaped from herself.", "one_prefix_prefix": "Stacy imagined that Russell had escaped from", "one_prefix_word_good": "her", "one_prefix_word_bad": "herself", "field": "syntax_semantics", "linguistics_term": "binding", "UID": "principle_A_domain_1", "simple_LM_method": true, "one_prefix_method": true, "two_prefix_method": false, "lexically_identical": false, "pairID": "867"}
{"sentence_good": "These men say that Gina wasn't concealing them.", "sentence_bad": "These men say that Gina wasn't concealing themselves.", "one_prefix_prefix": "These men say that Gina wasn't concealing", "one_prefix_word_good": "them", "one_prefix_word_bad": "themselves", "field": "syntax_semantics", "linguistics_term": "binding", "UID": "principle_A_domain_1", "simple_LM_method": true, "one_prefix_method": true, "two_prefix_method": false, "lexically_identical": false, "pairID": "261"}
{"sentence_good": "Amy explains Douglas was firing himself.", "sentence_bad": "Amy explains Douglas was firing herself.", "one_prefix_prefix": "Amy explains Douglas was firing", "one_prefix_word_good": "himself", "one_prefix_word_bad": "herself", "field": "syntax_semantics", "linguistics_term": "binding", "UID": "principle_A_domain_2", "simple_LM_method": true, "one_prefix_method": true, "two_prefix_method": false, "lexically_identical": false, "pairID": "821"}
{"sentence_good": "Omar says Marla kissed herself.", "sentence_bad": "Omar says Marla kissed himself.", "one_prefix_prefix": "Omar says Marla kissed", "one_prefix_word_good": "herself", "one_prefix_word_bad": "himself", "field": "syntax_semantics", "linguistics_term": "binding", "UID": "principle_A_domain_2", "simple_LM_method": true, "one_prefix_method": true, "two_prefix_method": false, "lexically_identical": false, "pairID": "261"}
{"sentence_good": "Marie says the Impressionists had healed themselves.", "sentence_bad": "Marie says the Impressionists had healed herself.", "one_prefix_prefix": "Marie says the Impressionists had healed", "one_prefix_word_good": "themselves", "one_prefix_word_bad": "herself", "field": "syntax_semantics", "linguistics_term": "binding", "UID": "principle_A_domain_2", "simple_LM_method": true, "one_prefix_method": true, "two_prefix_method": false, "lexically_identical": false, "pairID": "582"}
{"sentence_good": "Eva says Dennis investigates himself.", "sentence_bad": "Dennis says Eva investigates himself.", "two_prefix_prefix_good": "Eva says Dennis investigates", "two_prefix_prefix_bad": "Dennis says Eva investigates", "two_prefix_word": "himself", "field": "syntax_semantics", "linguistics_term": "binding", "UID": "principle_A_domain_3", "simple_LM_method": true, "one_prefix_method": false, "two_prefix_method": true, "lexically_identical": true, "pairID": "782"}
{"sentence_good": "Liam thinks Catherine does observe herself.", "sentence_bad": "Catherine thinks Liam does observe herself.", "two_prefix_prefix_good": "Liam thinks Catherine does observe", "two_prefix_prefix_bad": "Catherine thinks Liam does observe", "two_prefix_word": "herself", "field": "syntax_semantics", "linguistics_term": "binding", "UID": "principle_A_domain_3", "simple_LM_method": true, "one_prefix_method": false, "two_prefix_method": true, "lexically_identical": true, "pairID": "867"}
{"sentence_good": "Samuel should explain Melanie would return to herself.", "sentence_bad": "Melanie should explain Samuel would return to herself.", "two_prefix_prefix_good": "Samuel should explain Melanie would return to", "two_prefix_prefix_bad": "Melanie should explain Samuel would return to", "two_prefix_word": "herself", "field": "syntax_semantics", "linguistics_term": "binding", "UID": "principle_A_domain_3", "simple_LM_method": true, "one_prefix_method": false, "two_prefix_method": true, "lexically_identical": true, "pairID": "137"}
{"sentence_good": "It's herself that Maria kisses.", "sentence_bad": "It's herself that kisses Maria.", "field": "syntax_semantics", "linguistics_term": "binding", "UID": "principle_A_reconstruction", "simple_LM_method": true, "one_prefix_method": false, "two_prefix_method": false, "lexically_identical": true, "pairID": "782"}
{"sentence_good": "It's himself that this cashier attacked.", "sentence_bad": "It's himself that attacked this cashier.", "field": "syntax_semantics", "linguistics_term": "binding", "UID": "principle_A_reconstruction", "simple_LM_method": true, "one_prefix_method": false, "two_prefix_method": false, "lexically_identical": true, "pairID": "0"}
{"sentence_good": "It's themselves who most senators had fired.", "sentence_bad": "It's themselves who had fired most senators.", "field": "syntax_semantics", "linguistics_term": "binding", "UID": "principle_A_reconstruction", "simple_LM_method": true, "one_prefix_method": false, "two_prefix_method": false, "lexically_identical": true, "pairID": "867"}
{"sentence_good": "Diana declares there to be a print worrying Bruce.", "sentence_bad": "Diana compelled there to be a print worrying Bruce.", "two_prefix_prefix_good": "Diana declares", "two_prefix_prefix_bad": "Diana compelled", "two_prefix_word": "there", "field": "syntax_semantics", "linguistics_term": "control_raising", "UID": "existential_there_object_raising", "simple_LM_method": true, "one_prefix_method": false, "two_prefix_method": true, "lexically_identical": false, "pairID": "821"}
{"sentence_good": "Many children haven't predicted there to be many mirrors bothering Heidi.", "sentence_bad": "Many children haven't advised there to be many mirrors bothering Heidi.", "two_prefix_prefix_good": "Many children haven't predicted", "two_prefix_prefix_bad": "Many children haven't advised", "two_prefix_word": "there", "field": "syntax_semantics", "linguistics_term": "control_raising", "UID": "existential_there_object_raising", "simple_LM_method": true, "one_prefix_method": false, "two_prefix_method": true, "lexically_identical": false, "pairID": "782"}
{"sentence_good": "These men expect there to be some glasses falling.", "sentence_bad": "These men spurred there to be some glasses falling.", "two_prefix_prefix_good": "These men expect", "two_prefix_prefix_bad": "These men spurred", "two_prefix_word": "there", "field": "syntax_semantics", "linguistics_term": "control_raising", "UID": "existential_there_object_raising", "simple_LM_method": true, "one_prefix_method": false, "two_prefix_method": true, "lexically_identical": false, "pairID": "261"}
{"sentence_good": "Sherry judges it to be expected that Eric has loved every man.", "sentence_bad": "Sherry was requiring it to be expected that Eric has loved every man.", "two_prefix_prefix_good": "Sherry judges it to be", "two_prefix_prefix_bad": "Sherry was requiring it to be", "two_prefix_word": "expected", "field": "syntax_semantics", "linguistics_term": "control_raising", "UID": "expletive_it_object_raising", "simple_LM_method": true, "one_prefix_method": false, "two_prefix_method": true, "lexically_identical": false, "pairID": "582"}
{"sentence_good": "Keith believes it to be lucky that these guests escape from David.", "sentence_bad": "Keith compelled it to be lucky that these guests escape from David.", "two_prefix_prefix_good": "Keith believes it to be", "two_prefix_prefix_bad": "Keith compelled it to be", "two_prefix_word": "lucky", "field": "syntax_semantics", "linguistics_term": "control_raising", "UID": "expletive_it_object_raising", "simple_LM_method": true, "one_prefix_method": false, "two_prefix_method": true, "lexically_identical": false, "pairID": "64"}
{"sentence_good": "Tara would ascertain it to be noteworthy that Kenneth didn't wash.", "sentence_bad": "Tara wouldn't entice it to be noteworthy that Kenneth didn't wash.", "two_prefix_prefix_good": "Tara would ascertain it to be", "two_prefix_prefix_bad": "Tara wouldn't entice it to be", "two_prefix_word": "noteworthy", "field": "syntax_semantics", "linguistics_term": "control_raising", "UID": "expletive_it_object_raising", "simple_LM_method": true, "one_prefix_method": false, "two_prefix_method": true, "lexically_identical": false, "pairID": "0"}
{"sentence_good": "Who should Derek hug after shocking Richard?", "sentence_bad": "Who should Derek hug Richard after shocking?", "field": "syntax", "linguistics_term": "island_effects", "UID": "adjunct_island", "simple_LM_method": true, "one_prefix_method": false, "two_prefix_method": false, "lexically_identical": true, "pairID": "0"}
{"sentence_good": "What had Theresa walked through while talking about that high school?", "sentence_bad": "What had Theresa walked through that high school while talking about?", "field": "syntax", "linguistics_term": "island_effects", "UID": "adjunct_island", "simple_LM_method": true, "one_prefix_method": false, "two_prefix_method": false, "lexically_identical": true, "pairID": "1"}
{"sentence_good": "Who hadn't some driver who would fire Jennifer's colleague embarrassed?", "sentence_bad": "Who hadn't Jennifer's colleague embarrassed some driver who would fire?", "field": "syntax", "linguistics_term": "island_effects", "UID": "complex_NP_island", "simple_LM_method": true, "one_prefix_method": false, "two_prefix_method": false, "lexically_identical": true, "pairID": "3"}
{"sentence_good": "Who was Gary's lawyer who could respect Tonya approaching?", "sentence_bad": "Who was Tonya approaching Gary's lawyer who could respect?", "field": "syntax", "linguistics_term": "island_effects", "UID": "complex_NP_island", "simple_LM_method": true, "one_prefix_method": false, "two_prefix_method": false, "lexically_identical": true, "pairID": "10"}
{"sentence_good": "What senators was Alicia approaching and some teachers scaring?", "sentence_bad": "What was Alicia approaching senators and some teachers scaring?", "two_prefix_prefix_good": "What senators was Alicia approaching and", "two_prefix_prefix_bad": "What was Alicia approaching senators and", "two_prefix_word": "some teachers", "field": "syntax", "linguistics_term": "island_effects", "UID": "coordinate_structure_constraint_complex_left_branch", "simple_LM_method": true, "one_prefix_method": false, "two_prefix_method": true, "lexically_identical": true, "pairID": "0"}
{"sentence_good": "What paintings has Melissa looked like and Erin revealed?", "sentence_bad": "What has Melissa looked like paintings and Erin revealed?", "two_prefix_prefix_good": "What paintings has Melissa looked like and", "two_prefix_prefix_bad": "What has Melissa looked like paintings and", "two_prefix_word": " Erin", "field": "syntax", "linguistics_term": "island_effects", "UID": "coordinate_structure_constraint_complex_left_branch", "simple_LM_method": true, "one_prefix_method": false, "two_prefix_method": true, "lexically_identical": true, "pairID": "4"}
{"sentence_good": "Who were all men and Eric leaving?", "sentence_bad": "Who were all men leaving and Eric?", "field": "syntax", "linguistics_term": "island_effects", "UID": "coordinate_structure_constraint_object_extraction", "simple_LM_method": true, "one_prefix_method": false, "two_prefix_method": false, "lexically_identical": false, "pairID": "0"}
{"sentence_good": "What had Jesus and Andrea arrived at?", "sentence_bad": "What had Jesus arrived at and Andrea?", "field": "syntax", "linguistics_term": "island_effects", "UID": "coordinate_structure_constraint_object_extraction", "simple_LM_method": true, "one_prefix_method": false, "two_prefix_method": false, "lexically_identical": false, "pairID": "9"}
{"sentence_good": "All women had known what teachers?", "sentence_bad": "What had all women known teachers?", "two_prefix_prefix_good": "All women had known what", "two_prefix_prefix_bad": "What had all women known", "two_prefix_word": "teachers", "field": "syntax", "linguistics_term": "island_effects", "UID": "left_branch_island_echo_question", "simple_LM_method": true, "one_prefix_method": false, "two_prefix_method": true, "lexically_identical": true, "pairID": "3"}
{"sentence_good": "Some documentary has disagreed with what commentaries?", "sentence_bad": "What has some documentary disagreed with commentaries?", "two_prefix_prefix_good": "Some documentary has disagreed with what", "two_prefix_prefix_bad": "What has some documentary disagreed with", "two_prefix_word": "commentaries", "field": "syntax", "linguistics_term": "island_effects", "UID": "left_branch_island_echo_question", "simple_LM_method": true, "one_prefix_method": false, "two_prefix_method": true, "lexically_identical": true, "pairID": "6"}
{"sentence_good": "Whose museums had Dana alarmed?", "sentence_bad": "Whose had Dana alarmed museums?", "field": "syntax", "linguistics_term": "island_effects", "UID": "left_branch_island_simple_question", "simple_LM_method": true, "one_prefix_method": false, "two_prefix_method": false, "lexically_identical": true, "pairID": "0"}
{"sentence_good": "Which newspaper article has Ellen researched?", "sentence_bad": "Which has Ellen researched newspaper article?", "field": "syntax", "linguistics_term": "island_effects", "UID": "left_branch_island_simple_question", "simple_LM_method": true, "one_prefix_method": false, "two_prefix_method": false, "lexically_identical": true, "pairID": "102"}
{"sentence_good": "Who had the patients' cleaning those banks upset.", "sentence_bad": "Who had the patients' cleaning upset those banks.", "field": "syntax", "linguistics_term": "island_effects", "UID": "sentential_subject_island", "simple_LM_method": true, "one_prefix_method": false, "two_prefix_method": false, "lexically_identical": true, "pairID": "0"}
{"sentence_good": "Who has the waitress's observing Christine bothered.", "sentence_bad": "Who has the waitress's observing bothered Christine.", "field": "syntax", "linguistics_term": "island_effects", "UID": "sentential_subject_island", "simple_LM_method": true, "one_prefix_method": false, "two_prefix_method": false, "lexically_identical": true, "pairID": "1"}
{"sentence_good": "Who have those men revealed they helped?", "sentence_bad": "Who have those men revealed who helped?", "one_prefix_prefix": "Who have those men revealed", "one_prefix_word_good": "they", "one_prefix_word_bad": "who", "field": "syntax", "linguistics_term": "island_effects", "UID": "wh_island", "simple_LM_method": true, "one_prefix_method": true, "two_prefix_method": false, "lexically_identical": false, "pairID": "0"}
{"sentence_good": "What could Alan discover he has run around?", "sentence_bad": "What could Alan discover who has run around?", "one_prefix_prefix": "What could Alan discover", "one_prefix_word_good": "he", "one_prefix_word_bad": "who", "field": "syntax", "linguistics_term": "island_effects", "UID": "wh_island", "simple_LM_method": true, "one_prefix_method": true, "two_prefix_method": false, "lexically_identical": false, "pairID": "4"}
"""
RELEASE = [json.loads(line) for line in RELEASE_JSONL.splitlines()]


def release_of(uid: str) -> list[dict]:
    return [row for row in RELEASE if row["UID"] == uid]


@pytest.fixture(scope="module")
def lexicon():
    return load_lexicon()


@pytest.fixture(scope="module")
def generated(lexicon) -> dict[str, list[dict]]:
    """300 pairs of every paradigm, seed 11."""
    return {uid: generate(uid, 300, 11, lexicon=lexicon) for uid in GENERATED}


# --- the paradigms ---

ARGUMENT_STRUCTURE = ("causative", "drop_argument", "inchoative", "intransitive", "passive_1", "passive_2",
                      "transitive")


S_SELECTION = ("animate_subject_passive", "animate_subject_trans")
QUANTIFIERS = ("existential_there_quantifiers_1", "existential_there_quantifiers_2", "superlative_quantifiers_1",
               "superlative_quantifiers_2")
NPI = ("npi_present_1", "npi_present_2", "only_npi_licensor_present", "sentential_negation_npi_licensor_present",
       "matrix_question_npi_licensor_present", "only_npi_scope", "sentential_negation_npi_scope")
ELLIPSIS = ("ellipsis_n_bar_1", "ellipsis_n_bar_2")
FILLER_GAP = ("wh_questions_object_gap", "wh_questions_subject_gap", "wh_questions_subject_gap_long_distance",
              "wh_vs_that_no_gap", "wh_vs_that_no_gap_long_distance", "wh_vs_that_with_gap",
              "wh_vs_that_with_gap_long_distance")
CONTROL_RAISING = ("existential_there_subject_raising", "tough_vs_raising_1", "tough_vs_raising_2",
                   "existential_there_object_raising", "expletive_it_object_raising")
BINDING = ("principle_A_case_1", "principle_A_case_2", "principle_A_c_command", "principle_A_domain_1",
           "principle_A_domain_2", "principle_A_domain_3", "principle_A_reconstruction")
ISLANDS = ("adjunct_island", "complex_NP_island", "coordinate_structure_constraint_complex_left_branch",
           "coordinate_structure_constraint_object_extraction", "left_branch_island_echo_question",
           "left_branch_island_simple_question", "sentential_subject_island", "wh_island")


def test_every_morphology_and_argument_structure_paradigm_of_the_release_is_generated():
    morphology = {row["UID"] for row in RELEASE if row["field"] == "morphology"}
    argument = {row["UID"] for row in RELEASE if row["linguistics_term"] == "argument_structure"}
    assert argument == set(ARGUMENT_STRUCTURE) and not morphology & argument
    by_term = {term: {row["UID"] for row in RELEASE if row["linguistics_term"] == term}
               for term in ("s-selection", "quantifiers", "npi_licensing", "ellipsis", "filler_gap_dependency",
                            "control_raising", "binding", "island_effects")}
    assert by_term == {"s-selection": set(S_SELECTION), "quantifiers": set(QUANTIFIERS), "npi_licensing": set(NPI),
                       "ellipsis": set(ELLIPSIS), "filler_gap_dependency": set(FILLER_GAP),
                       "control_raising": set(CONTROL_RAISING), "binding": set(BINDING), "island_effects": set(ISLANDS)}
    assert set(GENERATED) == morphology | argument | set(S_SELECTION + QUANTIFIERS + NPI + ELLIPSIS + FILLER_GAP
                                                         + CONTROL_RAISING + BINDING + ISLANDS)
    assert len(GENERATED) == 18 + 7 + 2 + 4 + 7 + 2 + 7 + 5 + 7 + 8 == 67
    assert set(GENERATED) == {row["UID"] for row in RELEASE}
    assert {row["field"] for row in RELEASE if row["UID"] in ISLANDS} == {"syntax"}
    # the NPI-scope and control/raising paradigms carry the release's field, "syntax_semantics"
    assert {row["field"] for row in RELEASE if row["UID"] in CONTROL_RAISING + NPI[5:]} == {"syntax_semantics"}
    # as do the binding paradigms, principle_A_case_2 its release file's typo "syntax/semantics"
    assert {row["UID"]: row["field"] for row in RELEASE if row["UID"] in BINDING} == {
        **dict.fromkeys(BINDING, "syntax_semantics"), "principle_A_case_2": "syntax/semantics"}
    assert {r["field"] for uid in BINDING for r in generate(uid, 3, 0)} == {"syntax_semantics", "syntax/semantics"}
    assert set(GENERATED) <= set(PARADIGM_CATEGORY)


# --- determinism ---

def test_same_seed_gives_the_same_bytes_and_another_seed_other_pairs(lexicon):
    for uid in GENERATED:
        first = to_jsonl(generate(uid, 60, 5, lexicon=lexicon))
        assert to_jsonl(generate(uid, 60, 5, lexicon=lexicon)) == first, uid
        other = generate(uid, 60, 6, lexicon=lexicon)
        assert to_jsonl(other) != first, uid
        assert {r["sentence_good"] for r in other} != {json.loads(l)["sentence_good"] for l in first.splitlines()}


def test_fewer_pairs_are_the_first_pairs_of_more():
    assert generate("determiner_noun_agreement_1", 10, 3) == generate("determiner_noun_agreement_1", 40, 3)[:10]


def test_output_does_not_depend_on_the_interpreters_hash_seed():
    """Sets never decide an order: two interpreters with other string hashes write the same bytes."""
    code = ("import hashlib; from lmprobes.suites.blimp.generator import GENERATED, generate, to_jsonl; "
            "print(hashlib.sha256(''.join(to_jsonl(generate(u, 80, 2)) for u in GENERATED).encode()).hexdigest())")
    digests = {subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True,
                              env={**os.environ, "PYTHONHASHSEED": seed}).stdout for seed in ("1", "2")}
    local = hashlib.sha256("".join(to_jsonl(generate(u, 80, 2)) for u in GENERATED).encode()).hexdigest()
    assert digests == {local + "\n"}


def test_pairs_are_distinct_numbered_and_avoid_excluded_sentences(generated, lexicon):
    for uid, rows in generated.items():
        assert [r["pairID"] for r in rows] == [str(i) for i in range(300)]
        assert len({r["sentence_good"] for r in rows}) == len({r["sentence_bad"] for r in rows}) == 300, uid
        assert all(r["sentence_good"] != r["sentence_bad"] for r in rows)
    first = generated["anaphor_gender_agreement"]
    again = generate("anaphor_gender_agreement", 300, 11, lexicon=lexicon, exclude=release_sentences(first[:100]))
    assert not release_sentences(again) & release_sentences(first[:100])
    assert again[:0] == [] and again != first
    bad_only = {r["sentence_bad"] for r in first[:100]}
    again = generate("anaphor_gender_agreement", 300, 11, lexicon=lexicon, exclude=bad_only)
    assert not {r["sentence_bad"] for r in again} & bad_only


def test_bad_arguments_are_refused():
    with pytest.raises(GeneratorError, match="no generator for BLiMP paradigm 'adjunct_islands'"):
        generate("adjunct_islands", 3, 0)
    for n, seed in ((-1, 0), (3, -2), (True, 0), (3, 1.5)):
        with pytest.raises(GeneratorError, match="non-negative integer"):
            generate("determiner_noun_agreement_1", n, seed)


def test_a_lexicon_too_small_for_n_says_so(tmp_path):
    lines = [",".join(COLUMNS)]

    def row(**values):
        lines.append(",".join(values.get(c, "") for c in COLUMNS))

    row(category="noun", lemma="dog", plural="dogs", irregular="no", countable="yes", animate="yes",
        **{"class": "animal"})
    row(category="name", lemma="Anna", animate="yes", gender="f", **{"class": "person"})
    row(category="verb", lemma="see", third="sees", past="saw", participle="seen", gerund="seeing",
        irregular="yes", subject="person", object="animal", stative="yes", adjectival="no")
    path = tmp_path / "lexicon.csv"
    path.write_text("\n".join(lines) + "\n")
    assert len(generate("determiner_noun_agreement_2", 5, 0, lexicon=path)) == 5
    with pytest.raises(GeneratorError, match=r"only \d+ distinct pairs of the 500 asked for"):
        generate("determiner_noun_agreement_2", 500, 0, lexicon=path)


# --- the lexicon ---

def plural_by_rule(singular: str) -> set[str]:
    """The plurals the spelling rules allow (-es after a sibilant, -ies after consonant + y, -s or -es after -o)."""
    head, _, last = singular.rpartition(" ")
    head = f"{head} " if head else ""
    if last.endswith(("s", "x", "z", "ch", "sh")):
        forms = {last + "es"}
    elif last.endswith("y") and last[-2] not in "aeiou":
        forms = {last[:-1] + "ies"}
    elif last.endswith("o"):
        forms = {last + "s", last + "es"}
    else:
        forms = {last + "s"}
    return {head + form for form in forms}


def cvc(base: str) -> bool:
    return len(base) > 2 and base[-1] not in "aeiouwxy" and base[-2] in "aeiou" and base[-3] not in "aeiou"


def ed_by_rule(base: str) -> set[str]:
    if base.endswith("e"):
        return {base + "d"}
    if base.endswith("y") and base[-2] not in "aeiou":
        return {base[:-1] + "ied"}
    return {base + "ed"} | ({base + base[-1] + "ed"} if cvc(base) else set())


def third_by_rule(base: str) -> str:
    if base.endswith(("s", "x", "z", "ch", "sh", "o")):
        return base + "es"
    if base.endswith("y") and base[-2] not in "aeiou":
        return base[:-1] + "ies"
    return base + "s"


def ing_by_rule(base: str) -> set[str]:
    if base.endswith("ie"):
        return {base[:-2] + "ying"}
    if base.endswith("e") and not base.endswith(("ee", "ye", "oe")):
        return {base[:-1] + "ing"}
    return {base + "ing"} | ({base + base[-1] + "ing"} if cvc(base) else set())


def test_every_count_noun_has_two_different_forms_and_its_irregular_flag_is_right(lexicon):
    assert len(lexicon.nouns) >= 250
    for noun in lexicon.nouns:
        if not noun.countable:
            assert noun.plural == "", noun
            continue
        assert noun.singular and noun.plural and noun.singular != noun.plural, noun
        assert (noun.plural not in plural_by_rule(noun.singular)) == noun.irregular, noun
    irregular = {(n.singular, n.plural) for n in lexicon.nouns if n.irregular}
    assert len(irregular) >= 40
    assert {("mouse", "mice"), ("child", "children"), ("man", "men"), ("woman", "women"), ("person", "people"),
            ("foot", "feet"), ("tooth", "teeth"), ("goose", "geese"), ("cactus", "cacti"), ("analysis", "analyses"),
            ("phenomenon", "phenomena"), ("criterion", "criteria"), ("knife", "knives"), ("wolf", "wolves"),
            ("alumnus", "alumni"), ("ox", "oxen")} <= irregular


def test_no_form_is_both_singular_and_plural(lexicon):
    singulars = {n.singular for n in lexicon.nouns} | {n.name for n in lexicon.names}
    plurals = {n.plural for n in lexicon.count_nouns}
    assert not singulars & plurals


def test_every_verb_form_follows_the_spelling_rules_or_is_flagged_irregular(lexicon):
    assert len(lexicon.verbs) >= 150
    for verb in lexicon.verbs:
        assert verb.third == third_by_rule(verb.base), verb
        assert verb.gerund in ing_by_rule(verb.base), verb
        regular = verb.past in ed_by_rule(verb.base) and verb.participle == verb.past
        assert regular != verb.irregular, verb
    forms = {(v.base, v.past, v.participle) for v in lexicon.verbs}
    assert {("break", "broke", "broken"), ("write", "wrote", "written"), ("hide", "hid", "hidden"),
            ("wear", "wore", "worn"), ("go", "went", "gone"), ("eat", "ate", "eaten"), ("see", "saw", "seen"),
            ("take", "took", "taken"), ("sing", "sang", "sung"), ("freeze", "froze", "frozen"),
            ("choose", "chose", "chosen"), ("steal", "stole", "stolen"), ("forget", "forgot", "forgotten"),
            ("drive", "drove", "driven"), ("speak", "spoke", "spoken"), ("shrink", "shrank", "shrunk"),
            ("tear", "tore", "torn"), ("bite", "bit", "bitten"), ("teach", "taught", "taught")} <= forms


def test_names_adjectives_and_every_paradigms_pools(lexicon):
    assert {n.gender for n in lexicon.names} == {"f", "m"}
    assert min(sum(n.gender == g for n in lexicon.names) for g in "fm") >= 30
    assert all(n.name[0].isupper() for n in lexicon.names)
    assert len(lexicon.adjectives) >= 50
    pools = Pools(lexicon)
    for irregular in (False, True):
        for adjective in (False, True):
            assert len(pools.object_nouns(irregular, adjective)) >= 20
        assert len(pools.subject_nouns(irregular)) >= 20
    assert len(pools.reflexive_verbs) >= 30 and len(pools.adjectival_verbs) >= 8
    assert len(pools.participle_verbs) >= 25 and len(pools.relational_nouns) >= 20


@pytest.mark.parametrize(("edit", "message"), [
    (("chair,chairs", "chair,chair"), "is the singular"),
    (("chair,chairs,,,,,no,yes,no,artifact", "chair,chairs,,,,,no,yes,no,furniture"), "class must be one of"),
    (("chair,chairs,,,,,no,yes,no", "chair,chairs,,,,,no,maybe,no"), "countable must be yes or no"),
    (("noun,chair,chairs,,,,,no,yes,no,artifact,", "noun,chair,chairs,,,,,no,yes,yes,artifact,"), "animate must be"),
    (("noun,chair,", "noun,dog,"), "already on line"),
    (("noun,chair,chairs", "verb,chair,chairs"), "a verb needs third"),
    (("person|animal|vehicle,no,no,,none,,", "person|animal|vehicle,no,no,,nil,,"), "valency must be one of"),
    (("person|animal|vehicle,no,no,,none,,", "person|animal|vehicle,no,no,,required,,"),
     "valency required has an object and no intransitive use"),
    (("cooked,cooking,no,,,,,,,person,food,person,no,no,,optional",
      "cooked,cooking,no,,,,,,,person,food,,no,no,,optional"), "valency optional has an object"),
    (("cooked,cooking,no,,,,,,,person,food,person,no,no,,optional",
      "cooked,cooking,no,,,,,,,person,food,food,no,no,,optional"), "an intransitive use by one of its subjects"),
    (("cooked,cooking,no,,,,,,,person,food,person,no,no,,optional",
      "cooked,cooking,no,,,,,,,person,food,person,no,no,,required"),
     "valency required has an object and no intransitive use"),
    (("organization|self,,no,no,,required,,\nverb,look,", "organization|self,,no,no,,required,,no\nverb,look,"),
     "passive (yes or no) is given only for verbs with an object and no particle"),  # "talk to"
    (("artifact|vehicle,no,yes,,,artifact|vehicle,yes", "artifact|vehicle,no,yes,,,artifact|body,yes"),
     "inchoative classes are object and intransitive classes"),
    (("person|animal|vehicle,no,no,,none,,", "person|animal|vehicle,no,no,,none,,yes"), "passive (yes or no)"),
    (("organization|self,,no,no,,required,,yes", "organization|self,,no,no,,required,,maybe"),
     "passive must be yes or no"),
    (("noun,chair,chairs,,,,,no,yes,no,artifact,", "noun,chair,chairs,,,,,no,yes,no,artifact,,"), "expected 23 columns"),
    (("noun,chair,chairs,,,,,no,yes,no,artifact,,,,,,,,,,,,\n", "noun,chair,chairs,,,,,no,yes,no,artifact\n"),
     "expected 23 columns"),
    (("noun,chair,", "nouns,chair,"), "category must be one of"),
    (("noun,chair,", "noun, chair,"), "lemma must be a word (or words) without stray spaces"),
    (("noun,chair,", "noun,arm  chair,"), "lemma must be a word (or words) without stray spaces"),
    (("noun,chair,chairs,,,,,no,yes,no,artifact,,,,", "noun,chair,chairs,,,,,no,yes,no,artifact,,,up,"),
     "a noun fills no ['particle']"),
    (("noun,chair,chairs,", "noun,chair,chairs ,"), "plural has stray spaces: 'chairs '"),
    (("name,Katherine,,,,,,,,yes,person,f,", "name,Katherine,,,,,,,,yes,person,n,"), "a name is an animate person"),
    (("name,Katherine,,,,,,,,yes,person,f,", "name,Katherine,,,,,,,,no,person,f,"), "a name is an animate person"),
    (("name,Katherine,,,,,,,,yes,person,f,", "name,Katherine,,,,,,,,yes,animal,f,"), "a name is an animate person"),
    (("noun,chair,chairs,,,,,no,yes,", "noun,chair,chairs,,,,,no,no,"), "a countable noun has a plural"),
    (("noun,dog,dogs,,,,,no,yes,yes,animal,,", "noun,dog,dogs,,,,,no,yes,yes,animal,m,"),
     "gender (f, m or n) is given for persons and only for them"),
    (("noun,actress,actresses,,,,,no,yes,yes,person,f,", "noun,actress,actresses,,,,,no,yes,yes,person,,"),
     "gender (f, m or n) is given for persons and only for them"),
    (("person,f,of_person,", "person,f,of_nobody,"), "relation must be one of"),
    (("verb,annoy,,annoys,", "verb,annoy,,an noys,"), "third must be one word"),
    (("verb,annoy,,annoys,annoyed,annoyed,annoying,", "verb,annoy,,annoys,annoyed,annoyed,annoy ing,"),
     "gerund must be one word"),
    ((",looked,looking,no,,,,,,at,", ",looked,looking,no,,,,,,atop,"), "particle must be one of"),
    (("annoying,no,,,,,,,person|animal|organization|text|picture|film|abstract,person,",
      "annoying,no,,,,,,,person|animal|organization|text|picture|film|abstract,,"), "needs an object or an intransitive"),
    (("annoying,no,,,,,,,person|animal|organization|text|picture|film|abstract,person,", "annoying,no,,,,,,,,person,"),
     "a transitive verb needs its subject classes"),
    (("annoying,no,,,,,,,person|animal|organization|text|picture|film|abstract,person,",
      "annoying,no,,,,,,,person|animal|organization|text|picture|film|abstract,self,"), "not only self"),
    (("confusing,no,,,,,,,person|animal|organization|text|picture|film|abstract,person|self,",
      "confusing,no,,,,,,,animal,person|self,"), "a reflexive object needs a person subject"),
    (("abstract,person,,no,no,,required,,yes", "abstract,person,,no,no,,none,,yes"),
     "a verb of valency none has no object and no particle"),
    (("verb,arrive,,arrives,arrived,arrived,arriving,no,,,,,,,", "verb,arrive,,arrives,arrived,arrived,arriving,no,,,,,,at,"),
     "a verb of valency none has no object and no particle"),
    (("adjective,big,,,,,,,,,,,,,,,,,,person|", "adjective,big,,,,,,,,,,,,,,,,,,person|person|"),
     "applies_to must list distinct classes"),
    (("adjective,big,,,,,,,,,,,,,,,,,,person|", "adjective,big,,,,,,,,,,,,,,,,,,self|person|"),
     "applies_to must list distinct classes"),  # "self" is an object's only
    (("artifact|vehicle|body,artifact|vehicle,no,yes,,,artifact|vehicle,yes",
      "artifact|vehicle|body,artifact|vehicle|person,no,yes,,optional,artifact|vehicle,yes"),
     "inchoative classes are object and intransitive classes (valency empty)"),
])
def test_a_malformed_lexicon_line_is_refused_naming_it(tmp_path, edit, message):
    text = DEFAULT_LEXICON.read_text()
    old, new = edit
    assert old in text
    path = tmp_path / "lexicon.csv"
    path.write_text(text.replace(old, new, 1))
    line = text[:text.index(old)].count("\n") + 1
    with pytest.raises(LexiconError, match=rf"lexicon.csv:{line}: .*{re.escape(message)}"):
        load_lexicon(path)


def test_a_lexicon_with_another_header_is_refused(tmp_path):
    path = tmp_path / "lexicon.csv"
    path.write_text(DEFAULT_LEXICON.read_text().replace("category,lemma,", "kind,lemma,", 1))
    with pytest.raises(LexiconError, match=r"lexicon.csv: the header must be category,lemma,.*got \['kind', 'lemma'"):
        load_lexicon(path)


def test_the_argument_structure_columns(lexicon):
    """valency, inchoative and passive: enough verbs of each kind for the argument-structure paradigms, and
    the verbs they are meant for."""
    by = {(v.base, v.particle): v for v in lexicon.verbs}
    valency = {kind: [v for v in lexicon.verbs if v.valency == kind] for kind in ("none", "required", "optional")}
    assert len(valency["none"]) >= 15 and len(valency["required"]) >= 50 and len(valency["optional"]) >= 15
    for verb in valency["none"]:  # no object, and so no passive: "*The glass was arrived."
        assert not verb.object and not verb.particle and verb.intransitive and not verb.passive, verb
        assert not verb.adjectival and not verb.inchoative, verb
    for verb in valency["required"]:
        assert verb.object - {"self"} and not verb.intransitive, verb
    assert all(v.valency == "required" for v in lexicon.verbs if v.particle and not v.intransitive)
    for verb in valency["optional"]:
        assert verb.object and verb.subject & verb.intransitive, verb
    alternating = [v for v in lexicon.verbs if v.inchoative]
    assert len(alternating) >= 15
    for verb in alternating:  # "Mary broke the vase." / "The vase broke."
        assert verb.inchoative <= (verb.object & verb.intransitive) and not verb.valency, verb
        assert not verb.inchoative & {"person", "animal"} or verb.label == "wake up", verb
    passivisable = [v for v in lexicon.verbs if v.passive]
    assert len(passivisable) >= 100 and all(v.object and not v.particle for v in passivisable)
    assert all((v.passive is not None) == bool(v.object and not v.particle) for v in lexicon.verbs)
    assert {by["arrive", ""].valency, by["vanish", ""].valency, by["exist", ""].valency} == {"none"}
    assert (by["admire", ""].valency, by["talk", "about"].valency, by["eat", ""].valency) == \
        ("required", "required", "optional")
    assert by["break", ""].inchoative == {"artifact", "vehicle"} and by["spill", ""].inchoative == {"drink"}
    assert by["describe", ""].passive and not by["want", ""].passive and not by["arrive", ""].passive
    # the new rows follow the spelling rules (checked for every verb above) and are new lemmas
    assert len({(v.base, v.particle) for v in lexicon.verbs}) == len(lexicon.verbs)


# --- grammar: the good sentence agrees, the bad one does not ---

SG_AUX = {"is", "was", "has", "isn't", "wasn't", "hasn't", "doesn't"}
PL_AUX = {"are", "were", "have", "aren't", "weren't", "haven't", "don't"}
DEMONSTRATIVE = {"this": "sg", "that": "sg", "these": "pl", "those": "pl"}
REFLEXIVE = {"herself": "f", "himself": "m", "itself": "n", "themselves": "pl"}


class Grammar:
    """The lexicon's word forms by number, to judge what the generator wrote."""

    def __init__(self, lexicon):
        self.number: dict[str, str] = {}
        self.gender: dict[str, str] = {n.name: n.gender for n in lexicon.names}
        self.lemma: dict[str, str] = {}
        for noun in lexicon.nouns:
            last_sg = noun.singular.split(" ")[-1]
            self.number[last_sg] = "sg"
            self.lemma[last_sg] = noun.singular
            self.gender.setdefault(last_sg, noun.gender)
            if noun.countable:
                last_pl = noun.plural.split(" ")[-1]
                self.number[last_pl] = "pl"
                self.lemma[last_pl] = noun.singular
        for name in lexicon.names:
            self.number[name.name] = "sg"
        self.verb_number = {**{w: "sg" for w in SG_AUX}, **{w: "pl" for w in PL_AUX}}
        for verb in lexicon.verbs:
            self.verb_number[verb.third] = "sg"
            self.verb_number.setdefault(verb.base, "pl")
        self.past_participle = {(v.past, v.participle) for v in lexicon.verbs}
        self.adjectival = {(v.participle, v.past) for v in lexicon.verbs if v.adjectival}

    def noun(self, word: str) -> str | None:
        """``word`` as the lexicon has it (sentence-initial capitals undone), or None if it is no noun or name."""
        word = word.rstrip(".")
        for form in (word, word[:1].lower() + word[1:]):
            if form in self.number:
                return form
        return None

    def np_number(self, word: str) -> str:
        return self.number[self.noun(word)]

    def subject_gender(self, tokens: list[str]) -> str:
        return self.gender[tokens[0]] if tokens[0] in self.gender else self.gender[tokens[1]]


def words(text: str) -> list[str]:
    return text.rstrip(".").split(" ")


def test_determiners_agree_with_their_noun_in_good_sentences_only(generated, lexicon):
    g = Grammar(lexicon)
    irregular = {n.singular.split(" ")[-1] for n in lexicon.nouns if n.irregular}
    irregular |= {n.plural.split(" ")[-1] for n in lexicon.nouns if n.irregular}
    for uid in [u for u in GENERATED if u.startswith("determiner_noun")]:
        adjective = "_adj" in uid
        for row in generated[uid]:
            good, bad = words(row["sentence_good"]), words(row["sentence_bad"])
            noun_good, noun_bad = good[-1], bad[-1]  # the last word of a compound ("grocery store")
            at = max(i for i, w in enumerate(good) if w in DEMONSTRATIVE)  # the object's, not the subject's
            det_good, det_bad = good[at], bad[at]
            assert len(good) - at - 1 >= 1 + adjective, row
            assert DEMONSTRATIVE[det_good] == g.np_number(noun_good), row
            assert DEMONSTRATIVE[det_bad] != g.np_number(noun_bad), row
            assert g.lemma[noun_good] == g.lemma[noun_bad] and (noun_good in irregular) == ("irregular" in uid), row
            if row["one_prefix_method"]:
                assert det_good == det_bad and noun_good != noun_bad
            else:
                assert det_good != det_bad and noun_good == noun_bad
                # near stays near, far stays far, as the release swaps them: "this committee" / "these committee"
                assert {det_good, det_bad} in ({"this", "these"}, {"that", "those"}), row


def test_verbs_agree_with_their_subject_in_good_sentences_only(generated, lexicon):
    g = Grammar(lexicon)
    for uid in [u for u in GENERATED if "subject_verb" in u]:
        for row in generated[uid]:
            if row["one_prefix_method"]:
                subject = row["one_prefix_prefix"].split(" ")[-1]
                assert g.verb_number[row["one_prefix_word_good"]] == g.np_number(subject), row
                assert g.verb_number[row["one_prefix_word_bad"]] != g.np_number(subject), row
                if uid == "regular_plural_subject_verb_agreement_1":  # as the release's: an object after the verb
                    assert g.noun(words(row["sentence_good"])[-1]), row
            else:
                good, bad = row["two_prefix_prefix_good"].split(" "), row["two_prefix_prefix_bad"].split(" ")
                assert good[0] == bad[0] == "The" and g.lemma[good[-1]] == g.lemma[bad[-1]], row
                assert g.verb_number[row["two_prefix_word"]] == g.np_number(good[-1]) != g.np_number(bad[-1]), row


def test_an_agreement_error_is_never_a_past_tense(generated, lexicon):
    """A verb whose past is its base form ("hurt", "read", "upset") is never the agreeing verb: "Aaron read
    these synopses." and "The report upset Julia." would be grammatical bad sentences."""
    past_as_base = {v.base for v in lexicon.verbs if v.base == v.past}
    assert past_as_base
    for uid in [u for u in GENERATED if "subject_verb" in u or u.startswith("distractor_agreement")]:
        for row in generated[uid]:
            agreeing = ((row["one_prefix_word_good"], row["one_prefix_word_bad"]) if row["one_prefix_method"]
                        else (row["two_prefix_word"],))
            assert not past_as_base & set(agreeing), row


def test_distractors_have_the_other_number_and_the_verb_agrees_with_the_head(generated, lexicon):
    g = Grammar(lexicon)
    for uid, pronouns in (("distractor_agreement_relational_noun", ("of", "about")),
                          ("distractor_agreement_relative_clause", ("who", "that"))):
        for row in generated[uid]:
            prefix = row["one_prefix_prefix"].split(" ")
            at = next(i for i, w in enumerate(prefix) if i and w in pronouns)
            head, attractor = g.np_number(prefix[at - 1]), g.np_number(prefix[-1])
            assert head != attractor, row
            assert g.verb_number[row["one_prefix_word_good"]] == head != g.verb_number[row["one_prefix_word_bad"]]
            expected = len(prefix) if uid.endswith("relational_noun") else len(prefix) - at
            assert row["dependency_length"] == expected, row


def test_participles_and_pasts_are_in_their_places(generated, lexicon):
    g, a = Grammar(lexicon), Arguments(lexicon)
    for row in generated["irregular_past_participle_verbs"]:
        assert (row["one_prefix_word_good"], row["one_prefix_word_bad"]) in g.past_participle, row
        assert row["one_prefix_word_good"] != row["one_prefix_word_bad"]
        prefix = row["one_prefix_prefix"].split(" ")
        rest = words(row["sentence_good"])[len(prefix) + 1:]  # the particle, then the object if used transitively
        subject = a.noun_class(prefix[-1])
        assert any(v.past == row["one_prefix_word_good"] and rest[:len(v.particle.split())] == v.particle.split()
                   and subject in (v.subject if rest[len(v.particle.split()):] else v.intransitive)
                   for v in lexicon.verbs), row
    for row in generated["irregular_past_participle_adjectives"]:
        (the, participle), (the_bad, past) = (row[k].split(" ") for k in ("two_prefix_prefix_good",
                                                                           "two_prefix_prefix_bad"))
        assert the == the_bad == "The" and (participle, past) in g.adjectival and participle != past, row


def test_reflexives_match_their_subject_in_good_sentences_only(generated, lexicon):
    g = Grammar(lexicon)
    for row in generated["anaphor_gender_agreement"]:
        gender = g.subject_gender(row["one_prefix_prefix"].split(" "))
        assert gender in ("f", "m") and REFLEXIVE[row["one_prefix_word_good"]] == gender, row
        assert REFLEXIVE[row["one_prefix_word_bad"]] in {"f", "m", "n"} - {gender}, row
    # the release's bad reflexive is the other gender's or "itself", each in about half of its pairs
    itself = sum(row["one_prefix_word_bad"] == "itself" for row in generated["anaphor_gender_agreement"])
    assert 0.3 < itself / len(generated["anaphor_gender_agreement"]) < 0.7
    for row in generated["anaphor_number_agreement"]:
        prefix = row["one_prefix_prefix"].split(" ")
        number = g.np_number(next(w for w in prefix if g.noun(w)))  # a name or the subject's noun
        good, bad = REFLEXIVE[row["one_prefix_word_good"]], REFLEXIVE[row["one_prefix_word_bad"]]
        assert (good == "pl") == (number == "pl") and (bad == "pl") != (number == "pl"), row
        if number == "sg":
            assert good == g.subject_gender(prefix), row


def test_articles_and_negation_after_every_or_all(generated):
    assert [article(w) for w in ("apple", "university", "hour", "umbrella", "dog", "European", "oasis")] == \
        ["an", "a", "an", "an", "a", "a", "an"]
    for rows in generated.values():
        for row in rows:
            for sentence in (row["sentence_good"], row["sentence_bad"]):
                tokens = words(sentence)
                for det, word in itertools.pairwise(tokens):
                    if det.lower() in ("a", "an") and word != "lot":
                        assert det.lower() == article(word), sentence
                if tokens[0] in ("Every", "All"):
                    assert not any(t.endswith("n't") for t in tokens), sentence



def finite_numbers(lexicon) -> dict[str, str]:
    """The verb words that show their subject's number: the auxiliaries of one number, does / do, third-person
    forms (sg) and the base forms that are no past or participle (a plural present), of the lexicon's verbs and
    the templates' closed lists."""
    verbs = lexicon.verbs + SAY_VERBS + PICTURE_VERBS + OBJECT_RAISING_VERBS + OBJECT_CONTROL_VERBS
    not_present = {f for v in verbs for f in (v.past, v.participle)}
    numbers = {v.base: "pl" for v in verbs if v.base not in not_present}
    numbers |= {v.third: "sg" for v in verbs}
    return numbers | {w: "sg" for w in SG_AUX | {"does"}} | {w: "pl" for w in PL_AUX | {"do"}}


def first_noun(g: Grammar, tokens: list[str]) -> int:
    """Where the first noun or name of ``tokens`` is (a subject's head, but for "a lot of")."""
    return next(i for i, w in enumerate(tokens) if g.noun(w) and w != "lot")


def test_every_verb_agrees_with_its_own_subject_outside_the_critical_words(generated, lexicon):
    """The words both sentences share are grammatical: the verb group after each subject (a relative clause's,
    an embedded clause's, a copula after an adjectival participle's noun, the auxiliary of an NPI sentence) agrees
    with that subject, not with another noun phrase of the sentence."""
    g, numbers = Grammar(lexicon), finite_numbers(lexicon)
    gerunds = {v.gerund for v in lexicon.verbs}
    pronoun_number = {"he": "sg", "she": "sg", "they": "pl"}

    def agrees(verb: str, noun: str, row) -> None:
        number = g.np_number(noun)
        assert numbers.get(verb, number) == number, (verb, noun, row)

    def after_subject(tokens: list[str], row, skip=()) -> None:
        at = first_noun(g, tokens)
        verb = next(w for w in tokens[at + 1:] if w not in skip)
        agrees(verb, tokens[at], row)

    for row in generated["anaphor_number_agreement"]:  # "These patients respect themselves."
        after_subject(row["one_prefix_prefix"].split(" "), row)
    for row in generated["distractor_agreement_relative_clause"]:  # "The boy who has met those girls ..."
        prefix = row["one_prefix_prefix"].split(" ")
        at = next(i for i, w in enumerate(prefix) if i and w in ("who", "that"))
        agrees(prefix[at + 1], prefix[at - 1], row)
    for row in generated["irregular_past_participle_adjectives"]:  # "The broken chairs are old."
        tokens = words(row["sentence_good"])
        agrees(tokens[-2], tokens[-3], row)
    for uid in ("npi_present_1", "npi_present_2", "only_npi_licensor_present",
                "sentential_negation_npi_licensor_present"):
        for row in generated[uid]:  # "Even the dogs have really left.", "The dogs have not ever left."
            after_subject(words(row["sentence_good"]), row, skip={*NPI_ADVERBS, "ever"})
    for row in generated["matrix_question_npi_licensor_present"]:  # the statement: "The dogs have ever left."
        after_subject(words(row["sentence_bad"]), row)
    for row in generated["existential_there_subject_raising"]:  # "There were likely to be some cats sleeping."
        tokens = words(row["sentence_good"])
        noun = next(i for i in range(6, len(tokens)) if tokens[i] in gerunds and g.noun(tokens[i - 1])) - 1
        agrees(tokens[1], tokens[noun], row)
    for uid in ("tough_vs_raising_1", "tough_vs_raising_2"):  # "The cats are easy to talk to."
        for row in generated[uid]:
            good, bad = words(row["sentence_good"]), words(row["sentence_bad"])
            at = next(i for i, (a, b) in enumerate(zip(good, bad, strict=True)) if a != b)
            agrees(good[at - 1], good[at - 2], row)
    say = {f for v in SAY_VERBS for f in (v.base, v.third, v.past, v.gerund)}
    verbs = {f for v in lexicon.verbs for f in (v.base, v.third, v.past, v.participle, v.gerund)}
    for row in generated["principle_A_c_command"]:  # "The girl who knows those men loves herself."
        prefix = row["one_prefix_prefix"].split(" ")
        at = next(i for i, w in enumerate(prefix) if i and w in ("who", "that"))
        agrees(prefix[at + 1], prefix[at - 1], row)  # the relative clause's verb group
        persons = _persons_in(g, prefix[at + 1:], verbs)
        if len(persons) == 1:
            inner = at + 1 + prefix[at + 1:].index(persons[0])
            agrees(prefix[inner + 1], prefix[at - 1], row)  # the matrix verb group: the head's, not the inner NP's
    for uid in ("principle_A_domain_1", "principle_A_domain_2"):  # "Amy says (that) the men were helping ..."
        for row in generated[uid]:
            prefix = row["one_prefix_prefix"].split(" ")
            at = next(i for i, w in enumerate(prefix) if w in say)
            after_subject(prefix[at + 1:], row)  # the embedded subject and its verb group
    for row in generated["principle_A_case_1"]:  # "Nicole says that she is helping Adam."
        tokens = words(row["sentence_good"])
        pronoun = len(row["one_prefix_prefix"].split(" "))
        number = pronoun_number[tokens[pronoun]]
        assert numbers.get(tokens[pronoun + 1], number) == number, row
    for row in generated["principle_A_reconstruction"]:  # "It's themselves that the men like."
        after_subject(words(row["sentence_good"])[3:], row)
    for row in generated["only_npi_scope"]:  # "Only the doctors who Karla respects have ever left."
        good, bad = words(row["sentence_good"]), words(row["sentence_bad"])
        pronoun, ever = next(i for i, w in enumerate(bad) if i and w in ("that", "who")), good.index("ever")
        after_subject(bad[pronoun + 2:], row)  # the relative clause's subject, after "only", and its verb group
        before = good[ever - 1]
        if before in SG_AUX | PL_AUX:  # the matrix auxiliary, or the matrix verb after "ever"
            agrees(before, bad[pronoun - 1], row)
        elif before not in {*MODALS, "had"}:
            agrees(good[ever + 1], bad[pronoun - 1], row)
    for row in generated["sentential_negation_npi_scope"]:  # "The cats that have seen Amy do not ever leave."
        good = words(row["sentence_good"])
        pronoun, ever = next(i for i, w in enumerate(good) if i and w in ("that", "who")), good.index("ever")
        agrees(good[pronoun + 1], good[pronoun - 1], row)  # the subject relative's auxiliary
        agrees(good[ever - 2], good[pronoun - 1], row)  # the matrix auxiliary, before "not ever"
    for uid in ("existential_there_object_raising", "expletive_it_object_raising"):
        for row in generated[uid]:  # "The men expect it to be clear that Amy likes Eva."
            for sentence in (row["sentence_good"], row["sentence_bad"]):
                after_subject(words(sentence), row)
            if uid == "expletive_it_object_raising":
                good = words(row["sentence_good"])
                after_subject(good[good.index(row["two_prefix_word"]) + 2:], row)
    for uid in ELLIPSIS:  # "The boys have seen one big museum and Eva has seen several."
        for row in generated[uid]:
            good = words(row["sentence_good"])
            after_subject(good, row)
            after_subject(good[good.index("and") + 1:], row)
    for uid in FILLER_GAP:
        for row in generated[uid]:
            good, bad = words(row["sentence_good"]), words(row["sentence_bad"])
            diffs = [i for i, (x, y) in enumerate(zip(good, bad, strict=True)) if x != y]
            if uid.startswith("wh_vs_that"):  # "... that|who the boys (that sing) have seen (Amy)."
                after_subject(good[diffs[0] + 1:], row)
                if uid.endswith("long_distance"):
                    head = diffs[0] + 1 + first_noun(g, good[diffs[0] + 1:])
                    agrees(good[head + 2], good[head], row)  # "drivers that forfeit"
            elif uid == "wh_questions_object_gap":  # "... the vase that the boys have taken."
                after_subject(good[diffs[0] + 3:], row)
            else:  # "... the boys (that Amy likes) that have seen Eva."
                agrees(good[diffs[-1] + 1], good[diffs[0] + 1], row)
                if uid.endswith("long_distance"):
                    after_subject(good[diffs[0] + 3:], row)

AUXILIARY_WORDS = SG_AUX | PL_AUX | {"had", "hadn't", "didn't", "be", "been", "will", "would", "can", "could",
                                    "might", "should", "won't", "wouldn't", "can't", "couldn't", "shouldn't"}


class Arguments:
    """What the lexicon says of the verbs and nouns of an argument-structure pair."""

    def __init__(self, lexicon):
        self.verbs: dict[tuple[str, str], list] = {}
        for verb in lexicon.verbs:
            for form in {verb.base, verb.third, verb.past, verb.participle, verb.gerund}:
                self.verbs.setdefault((form, verb.particle), []).append(verb)
        self.cls = {n.name: "person" for n in lexicon.names}
        for noun in lexicon.nouns:
            self.cls[noun.singular.split(" ")[-1]] = noun.cls
            if noun.countable:
                self.cls[noun.plural.split(" ")[-1]] = noun.cls

    def split(self, row) -> tuple[list[str], list[str], list[str], list[str]]:
        """The words both sentences begin with, the good and the bad words, and the words both end with."""
        good, bad = words(row["sentence_good"]), words(row["sentence_bad"])
        start = next(i for i, (g, b) in enumerate(zip(good, bad)) if g != b)
        end = 0
        while end < min(len(good), len(bad)) - start and good[-1 - end] == bad[-1 - end]:
            end += 1
        return good[:start], good[start:len(good) - end], bad[start:len(bad) - end], good[len(good) - end:]

    def entries(self, span: list[str]) -> list:
        """The verbs ``span`` (a verb form, and its particle) may be; it must be some."""
        assert 1 <= len(span) <= 2, span
        found = self.verbs.get((span[0], span[1] if len(span) == 2 else ""), [])
        assert found, span
        return found

    def noun_class(self, word: str) -> str:
        return self.cls[word] if word in self.cls else self.cls[word[:1].lower() + word[1:]]

    def subject(self, prefix: list[str]) -> str:
        """The subject's head: the last word before the auxiliaries."""
        return next(w for w in reversed(prefix) if w not in AUXILIARY_WORDS)


def test_argument_structure_good_verbs_take_their_arguments_and_bad_ones_do_not(generated, lexicon):
    a, g = Arguments(lexicon), Grammar(lexicon)
    for uid in ARGUMENT_STRUCTURE:
        for row in generated[uid]:
            prefix, good, bad, rest = a.split(row)
            head = a.subject(prefix)
            subject = a.noun_class(head)
            frame = prefix[prefix.index(head) + 1:]
            if frame and frame[0] in g.verb_number:  # the auxiliary agrees with the subject in both sentences
                assert g.verb_number[frame[0]] == g.np_number(head), row
            # the bad verb takes the subject's class where a verb of its valency (not the good one) does
            valency = "none" if uid in ("causative", "transitive") or uid.startswith("passive") else "required"
            good_bases = {v.base for v in a.entries(good)}
            if any(subject in v.subject | v.intransitive for v in lexicon.verbs
                   if v.valency == valency and v.base not in good_bases):
                assert any(subject in v.subject | v.intransitive for v in a.entries(bad)), row
            if uid == "causative":
                obj = a.noun_class(rest[-1])
                assert any(obj in v.inchoative and subject in v.subject for v in a.entries(good)), row
                assert all(v.valency == "none" for v in a.entries(bad)), row
            elif uid == "transitive":
                obj = a.noun_class(rest[-1])
                assert any(obj in v.object and subject in v.subject for v in a.entries(good)), row
                assert all(v.valency == "none" for v in a.entries(bad)), row
                assert row["two_prefix_word"] == rest[0] and row["two_prefix_prefix_good"].endswith(" ".join(good))
            elif uid.startswith("passive"):
                assert frame[-1] in ("is", "are", "was", "were", "isn't", "aren't", "wasn't", "weren't", "be", "been")
                assert any(v.passive and subject in v.object and good == [v.participle] for v in a.entries(good)), row
                assert all(v.valency == "none" and bad == [v.participle] for v in a.entries(bad)), row
                if uid == "passive_1":
                    assert rest[0] == "by" and any(a.noun_class(rest[-1]) in v.subject for v in a.entries(good)), row
                else:
                    assert rest == [], row
            else:
                assert rest == [], row  # the sentence ends at the verb (and its particle)
                takes = {"inchoative": lambda v, cls: cls in v.inchoative,
                         "intransitive": lambda v, cls: not v.object and cls in v.intransitive,
                         "drop_argument": lambda v, cls: v.valency == "optional" and cls in v.subject & v.intransitive}
                assert any(takes[uid](v, subject) for v in a.entries(good)), row
                assert all(v.valency == "required" for v in a.entries(bad)), row


class Selection:
    """What the lexicon and the templates say of the s-selection, quantifier and NPI pairs."""

    def __init__(self, lexicon):
        self.a, self.g = Arguments(lexicon), Grammar(lexicon)
        self.passives: dict[str, list] = {}
        for verb in lexicon.verbs:
            if verb.passive:
                self.passives.setdefault(verb.participle, []).append(verb)

    def cls(self, word: str) -> str:
        return self.a.noun_class(word)


def test_s_selection_good_subjects_are_animate_and_bad_ones_inanimate(generated, lexicon):
    s = Selection(lexicon)
    for row in generated["animate_subject_passive"]:
        prefix, good, bad, rest = s.a.split(row)
        assert rest == [] and prefix[-1] in ("the", "some") and prefix[-2] == "by", row
        verbs = [v for v in s.passives[prefix[-3]] if v.subject <= ANIMATE and v.label not in INANIMATE_CAUSES]
        assert any(s.cls(good[-1]) in v.subject and s.cls(s.a.subject(prefix[:-3])) in v.object for v in verbs), row
        assert s.cls(bad[-1]) in INANIMATE and s.g.np_number(good[-1]) == s.g.np_number(bad[-1]), row
        head = s.a.subject(prefix[:-3])
        aux, number = prefix[prefix.index(head) + 1], s.g.np_number(head)  # "The dogs were / have been ..."
        assert s.g.verb_number.get(aux, number) == number, row
    for row in generated["animate_subject_trans"]:
        good_subject, bad_subject = row["two_prefix_prefix_good"].split(" "), row["two_prefix_prefix_bad"].split(" ")
        assert s.cls(good_subject[-1]) in ANIMATE and s.cls(bad_subject[-1]) in INANIMATE, row
        assert s.g.np_number(good_subject[-1]) == s.g.np_number(bad_subject[-1]), row
        tail = words(row["sentence_good"])[len(good_subject):]
        at = 1 if tail[0] in AUXILIARY_WORDS | {"doesn't", "don't", "didn't"} else 0
        verbs = s.a.verbs.get(tuple(tail[at:at + 2]), []) or s.a.entries(tail[at:at + 1])
        assert any(s.cls(good_subject[-1]) in v.subject and v.subject <= ANIMATE and not v.inchoative
                   and v.label not in INANIMATE_CAUSES for v in verbs), row


def test_existential_there_takes_weak_quantifiers_only(generated, lexicon):
    g = Grammar(lexicon)
    gerunds = {v.gerund for v in lexicon.verbs if not v.stative}
    weak = {"a", "an", "some", "no", "many", "few"}
    strong = {"each", "every", "all", "most"}
    for row in generated["existential_there_quantifiers_1"]:
        good, bad = words(row["sentence_good"]), words(row["sentence_bad"])
        assert good[0] == bad[0] == "There" and good[1] == bad[1] and good[3:] == bad[3:], row
        assert good[2] in weak and bad[2] in strong, row
        noun = good[next(i for i in range(4, len(good)) if good[i] in gerunds) - 1]  # the head before the gerund
        assert g.verb_number[good[1]] == g.np_number(noun), row
        assert not (good[2] == "no" and good[1].endswith("n't")), row  # no double negation
        assert (good[2] in ("a", "an")) == (bad[2] in ("each", "every")), row
        if good[2] in ("a", "an"):
            assert good[2] == article(good[3]), row
    for row in generated["existential_there_quantifiers_2"]:
        good, bad = words(row["sentence_good"]), words(row["sentence_bad"])
        assert sorted(w.lower() for w in good) == sorted(w.lower() for w in bad), row
        assert good[0].lower() in strong and bad[0] == "There" and bad[2] == good[0].lower(), row
        at = good.index("there")
        assert good[at - 1] == bad[1] and g.verb_number[bad[1]] == g.np_number(good[at - 2]), row
        assert bad[3:at + 1] == good[1:at - 1] and good[at + 1:] == bad[at + 1:] and good[at + 1].endswith("ing")


def test_superlatives_are_bad_under_no_and_comparatives_good(generated):
    for row in generated["superlative_quantifiers_1"]:
        good, bad = row["sentence_good"], row["sentence_bad"]
        assert good.startswith("No ") and bad.startswith("No "), row
        comparative = "fewer than" if " fewer than " in good else "more than"
        assert f" {comparative} " in good and row["crucial_item"] == {"fewer than": "at most",
                                                                       "more than": "at least"}[comparative]
        assert bad == good.replace(f" {comparative} ", f" {row['crucial_item']} "), row
        assert " at most " not in good and " at least " not in good, row
    for row in generated["superlative_quantifiers_2"]:
        good, bad = words(row["sentence_good"]), words(row["sentence_bad"])
        assert bad[0] == "No" and good[0] in ("The", "A", "An", "This", "That", "Some", "Every", "Each"), row
        assert good[1:] == bad[1:] and f" {row['crucial_item']} " in row["sentence_good"], row
        assert row["crucial_item"] in ("at most", "at least") and "not" not in good and not any(
            w.endswith("n't") for w in good), row


LICENSORS = {"not", "no", "few", "only", "never", "nobody", "nothing", "without", "if"}


def test_ever_is_licensed_in_good_sentences_only(generated):
    for uid in ("npi_present_1", "npi_present_2"):
        for row in generated[uid]:
            good, bad = words(row["sentence_good"]), words(row["sentence_bad"])
            assert row["one_prefix_word_bad"] == "ever" and row["one_prefix_word_good"] in NPI_ADVERBS, row
            assert (good[0] == bad[0] == "Even") == (uid == "npi_present_1"), row
            assert not {w.lower() for w in good} & LICENSORS and not any(w.endswith("n't") for w in good), row
            assert "ever" not in good and not {"every", "all", "each"} & {w.lower() for w in words(
                row["one_prefix_prefix"])}, row  # no subject that licenses "ever" in its restrictor
    for row in generated["only_npi_licensor_present"]:
        good, bad = words(row["sentence_good"]), words(row["sentence_bad"])
        assert good[0] == "Only" and bad[0] == "Even" and good[1:] == bad[1:] and good.count("ever") == 1, row
        assert not {w.lower() for w in good[1:]} & LICENSORS and not any(w.endswith("n't") for w in good), row
    for row in generated["sentential_negation_npi_licensor_present"]:
        good, bad = words(row["sentence_good"]), words(row["sentence_bad"])
        at = good.index("ever")
        assert good[at - 1] == "not" and bad[at - 1] in SENTENCE_ADVERBS and good[at:] == bad[at:], row
        assert good[at - 2] in AUXILIARY_WORDS | {"do", "does", "did"}, row
        assert not {w.lower() for w in good[:at - 1]} & LICENSORS and "not" not in bad, row


def test_matrix_questions_license_ever_and_the_statement_with_the_same_words_does_not(generated):
    for row in generated["matrix_question_npi_licensor_present"]:
        good, bad = row["sentence_good"], row["sentence_bad"]
        assert good.endswith("?") and bad.endswith(".") and good.count("?") == 1 and "?" not in bad, row
        good_words, bad_words = good[:-1].split(" "), bad[:-1].split(" ")
        assert sorted(w.lower() for w in good_words) == sorted(w.lower() for w in bad_words), row
        at = good_words.index("ever")
        assert bad_words.index("ever") == at and good_words[at:] == bad_words[at:], row
        aux = good_words[0].lower()  # inverted: the auxiliary first, then the subject, then "ever"
        assert aux in AUXILIARY_WORDS | {"do", "does", "did"} and bad_words[at - 1] == aux, row
        assert [w.lower() for w in good_words[1:at]] == [w.lower() for w in bad_words[:at - 1]], row
        assert 2 <= at <= 3 and not {w.lower() for w in good_words} & LICENSORS, row
        assert not any(w.endswith("n't") for w in good_words), row


def test_only_and_negation_scope_over_ever_in_good_sentences_only(generated):
    """only_npi_scope: "only" starts the good sentence (its subject, the matrix clause with "ever", in its scope)
    and is inside the subject's relative clause in the bad one, which ends before "ever"; sentential_negation_
    npi_scope: "not ever" after the matrix auxiliary in the good sentence, "not" after the relative clause's
    auxiliary in the bad one (the relative clause, between the head's pronoun and the matrix auxiliary before
    "ever", holds it). Both lexically identical, no other licensor."""
    for row in generated["only_npi_scope"]:
        good, bad = words(row["sentence_good"]), words(row["sentence_bad"])
        assert sorted(w.lower() for w in good) == sorted(w.lower() for w in bad), row
        assert good[0] == "Only" and "only" not in good[1:] and [w.lower() for w in good[1:]] == [
            w.lower() for w in bad if w != "only"], row
        ever = good.index("ever")
        assert bad.index("ever") == ever and good.count("ever") == 1 and good[ever:] == bad[ever:], row
        pronoun = next(i for i, w in enumerate(bad) if i and w in ("that", "who"))
        assert bad[pronoun + 1] == "only" and pronoun + 2 < ever, row  # "only" on the relative's subject
        assert not {w.lower() for w in good[1:]} & LICENSORS and not any(w.endswith("n't") for w in good), row
        assert not {"every", "all", "each"} & {w.lower() for w in good[:ever]}, row
    for row in generated["sentential_negation_npi_scope"]:
        good, bad = words(row["sentence_good"]), words(row["sentence_bad"])
        assert sorted(good) == sorted(bad) and good.count("not") == bad.count("not") == 1, row
        ever = good.index("ever")
        assert good[ever - 1] == "not" and good[ever - 2] in AUXILIARY_WORDS | {"do", "does", "did"}, row
        assert bad.index("ever") == ever and bad[ever - 1] == good[ever - 2] and good[ever:] == bad[ever:], row
        pronoun = next(i for i, w in enumerate(good) if i and w in ("that", "who"))
        aux = good[pronoun + 1]  # the relative clause's auxiliary, then "not" in the bad sentence only
        assert aux in AUXILIARY_WORDS | {"do", "does", "did", "is", "are", "was", "were"}, row
        assert bad[pronoun + 1] == aux and bad[pronoun + 2] == "not" and good[pronoun + 2] != "not", row
        assert good[:pronoun + 2] == bad[:pronoun + 2] and pronoun + 2 < ever - 2, row
        assert not {w.lower() for w in good} & (LICENSORS - {"not"}) and not any(w.endswith("n't") for w in good), row
        assert not {"every", "all", "each"} & {w.lower() for w in good[:ever]}, row


def test_raising_and_control_predicates_are_where_the_templates_put_them(generated, lexicon):
    """tough_vs_raising_1: a tough adjective whose subject is the object of an infinitive that requires one
    (good) / a raising adjective, the object then missing (bad); _2: a raising adjective before an infinitive
    with its object (good) / a tough one, with no gap (bad); existential_there_subject_raising: "there" the
    subject of a raising adjective (good) / of a control one (bad)."""
    assert not set(TOUGH_ADJECTIVES) & set(RAISING_ADJECTIVES) and not set(RAISING_ADJECTIVES) & set(
        CONTROL_ADJECTIVES) and not set(TOUGH_ADJECTIVES) & set(CONTROL_ADJECTIVES)
    verbs = {}
    for v in lexicon.verbs:
        verbs.setdefault(v.base, []).append(v)
    for uid in ("tough_vs_raising_1", "tough_vs_raising_2"):
        for row in generated[uid]:
            good, bad = words(row["sentence_good"]), words(row["sentence_bad"])
            diffs = [i for i, (g, b) in enumerate(zip(good, bad, strict=True)) if g != b]
            assert len(diffs) == 1 and good[diffs[0] + 1] == "to", row
            at = diffs[0]
            assert good[at - 1] in {"is", "was", "isn't", "wasn't", "are", "were", "aren't", "weren't"}, row
            after = good[at + 2:]  # the infinitive's verb, its particle, its object
            candidates = verbs[after[0]]
            if uid == "tough_vs_raising_1":
                assert good[at] in TOUGH_ADJECTIVES and bad[at] in RAISING_ADJECTIVES, row
                assert any(v.valency == "required" and "person" in v.subject
                           and after[1:] == ([v.particle] if v.particle else []) for v in candidates), row
            else:
                assert good[at] in RAISING_ADJECTIVES and bad[at] in TOUGH_ADJECTIVES, row
                assert any(v.object - {"self"} and len(after) > 1 + bool(v.particle) for v in candidates), row
    for row in generated["existential_there_subject_raising"]:
        good, bad = words(row["sentence_good"]), words(row["sentence_bad"])
        assert good[0] == bad[0] == "There" and good[1] == bad[1] and good[3:5] == bad[3:5] == ["to", "be"], row
        assert good[2] in RAISING_ADJECTIVES and bad[2] in CONTROL_ADJECTIVES and good[3:] == bad[3:], row
        assert good[5] in ("a", "an", "some", "no", "many", "few"), row  # "there" needs a weak quantifier


def test_object_raising_verbs_take_an_expletive_and_control_verbs_do_not(generated):
    """existential_there_object_raising / expletive_it_object_raising: the same subject and frame, then a
    raising-to-object verb (good) / an object-control verb (bad) before "there to be" / "it to be <adjective>
    that"."""
    raising = {f for v in OBJECT_RAISING_VERBS for f in (v.base, v.third, v.past, v.gerund)}
    control = {f for v in OBJECT_CONTROL_VERBS for f in (v.base, v.third, v.past, v.gerund)}
    assert not raising & control
    for uid, tail in (("existential_there_object_raising", ["there", "to", "be"]),
                      ("expletive_it_object_raising", ["it", "to", "be"])):
        for row in generated[uid]:
            good, bad = words(row["sentence_good"]), words(row["sentence_bad"])
            at = good.index(tail[0])  # the expletive, right after the verb
            assert good[at:at + 3] == bad[at:at + 3] == tail and good[:at - 1] == bad[:at - 1], row
            assert good[at + 3:] == bad[at + 3:] and good[at - 1] in raising and bad[at - 1] in control, row
            if uid == "expletive_it_object_raising":
                assert good[at + 3] == row["two_prefix_word"] in CLAUSE_ADJECTIVES and good[at + 4] == "that", row


def _person_agreement(g: Grammar, tokens: list[str]) -> str:
    """f, m or pl: what a pronoun of the person ``tokens`` (a name or a determiner and a noun) agrees with."""
    noun = next(g.noun(w) for w in reversed(tokens) if g.noun(w) and w != "lot")
    return "pl" if g.number[noun] == "pl" else g.gender[noun]


def _persons_in(g: Grammar, tokens: list[str], verbs: set[str]) -> list[str]:
    """The nouns and names of ``tokens`` that are no verb form (the verb groups between them)."""
    return [w for w in tokens if g.noun(w) and w != "lot" and w not in verbs]


REFLEXIVE_OF = {"f": "herself", "m": "himself", "pl": "themselves"}


def test_reflexives_are_bound_locally_by_a_c_commanding_antecedent_in_good_sentences_only(generated, lexicon):
    """Principle A: the good sentence's reflexive agrees with its local, c-commanding antecedent; the bad
    sentence's agrees only with a noun phrase that is not local (domain) or does not c-command it (c_command),
    or is a subject a reflexive cannot be (case) or binds nothing (reconstruction)."""
    g = Grammar(lexicon)
    say = {f for v in SAY_VERBS for f in (v.base, v.third, v.past, v.gerund)}
    verbs = {f for v in lexicon.verbs for f in (v.base, v.third, v.past, v.participle, v.gerund)}
    for row in generated["principle_A_case_1"]:  # "<antecedent> <say> that he | himself <verb> ..."
        prefix = row["one_prefix_prefix"].split(" ")
        key = _person_agreement(g, _persons_in(g, prefix, say)[:1])  # the matrix subject's noun or name
        assert prefix[-1] == "that" and prefix[-2] in say and "that" not in prefix[:-1], row
        assert row["one_prefix_word_good"] == SUBJECT_PRONOUNS[key], row
        assert row["one_prefix_word_bad"] == REFLEXIVE_OF[key], row
    picture = {f for v in PICTURE_VERBS for f in (v.base, v.third, v.past, v.participle, v.gerund)} | {"about"}
    for row in generated["principle_A_case_2"]:  # "<antecedent> <imagine> himself taking | took ..."
        prefix = row["one_prefix_prefix"].split(" ")
        assert prefix[-2] in picture and REFLEXIVE[prefix[-1]] == _person_agreement(g, prefix[:-2]), row
        gerund, finite = row["one_prefix_word_good"], row["one_prefix_word_bad"]
        verb = next(v for v in lexicon.verbs if v.gerund == gerund)  # "bring" ends in -ing and is no gerund
        assert finite in (verb.base, verb.third, verb.past) and finite != gerund, row
    checked = 0
    for row in generated["principle_A_c_command"]:  # "<head> who|that <verb> <inner> <verb> <reflexive>"
        prefix = row["one_prefix_prefix"].split(" ")
        pronoun = next(i for i, w in enumerate(prefix) if i and w in ("who", "that"))
        head = _person_agreement(g, prefix[:pronoun])
        persons = _persons_in(g, prefix[pronoun + 1:], verbs)
        if len(persons) != 1:  # a noun that is also a verb form ("guard"): judged in other rows
            continue
        checked += 1
        inner = _person_agreement(g, persons)
        assert head != inner and REFLEXIVE[row["one_prefix_word_good"]] == head, row
        assert REFLEXIVE[row["one_prefix_word_bad"]] == inner, row
    assert checked >= 250
    for uid in ("principle_A_domain_1", "principle_A_domain_2"):
        for row in generated[uid]:  # "<matrix subject> <say> [that] <subject> <verb group> <object>"
            prefix = row["one_prefix_prefix"].split(" ")
            at = next(i for i, w in enumerate(prefix) if w in say)
            matrix = _person_agreement(g, prefix[:at])
            rest = prefix[at + 1:]
            assert (rest[0] == "that") == (uid == "principle_A_domain_1"), row
            local = _person_agreement(g, _persons_in(g, rest, verbs)[:1])
            assert matrix != local, row
            if uid == "principle_A_domain_1":  # a pronoun for the matrix subject / a reflexive for it
                assert row["one_prefix_word_good"] == OBJECT_PRONOUNS[matrix], row
                assert row["one_prefix_word_bad"] == REFLEXIVE_OF[matrix], row
            else:
                assert REFLEXIVE[row["one_prefix_word_good"]] == local, row
                assert REFLEXIVE[row["one_prefix_word_bad"]] == matrix, row
    for row in generated["principle_A_domain_3"]:  # "<A> <say> <B> <verb group> <reflexive of B>" / B, A swapped
        good, bad = row["two_prefix_prefix_good"].split(" "), row["two_prefix_prefix_bad"].split(" ")
        assert sorted(good) == sorted(bad) and good[0] != bad[0] and good[0] in bad and bad[0] in good, row
        local = bad[0]  # the good sentence's embedded subject is the bad sentence's matrix subject
        assert good.index(local) > 1 and good[1] in say | {"will", "would", "can", "could", "might", "should",
                                                           "does", "did", "doesn't", "didn't", "won't",
                                                           "wouldn't", "can't", "couldn't", "shouldn't", "has",
                                                           "had", "hasn't", "hadn't", "is", "was", "isn't",
                                                           "wasn't"}, row
        assert g.gender[local] != g.gender[good[0]] and REFLEXIVE[row["two_prefix_word"]] == g.gender[local], row
    for row in generated["principle_A_reconstruction"]:  # "It's <reflexive> that|who <subject> <verb group>."
        good, bad = words(row["sentence_good"]), words(row["sentence_bad"])
        assert good[:3] == bad[:3] and good[0] == "It's" and good[2] in ("that", "who") and sorted(good) == sorted(
            bad), row
        n = len(good) - 3
        subject = next(k for k in range(1, n) if bad[3:] == good[3 + k:] + good[3:3 + k])  # moved after the verbs
        assert REFLEXIVE[good[1]] == _person_agreement(g, good[3:3 + subject]), row
        assert bad[-subject:] == good[3:3 + subject] and g.noun(good[2 + subject]), row  # the subject last


def test_the_binding_and_object_raising_closed_lists(lexicon):
    """The closed verb lists of the binding and object-raising templates: forms by the spelling rules unless
    flagged irregular, no progressive of a stative verb (the flags checked), raising and control apart."""
    for verb in SAY_VERBS + PICTURE_VERBS + OBJECT_RAISING_VERBS + OBJECT_CONTROL_VERBS:
        assert verb.third == third_by_rule(verb.base) and verb.gerund in ing_by_rule(verb.base), verb
        assert (not verb.irregular) == ({verb.past, verb.participle} <= ed_by_rule(verb.base)), verb
        assert verb.particle in ("", "about") and (verb.particle == "") == (verb not in PICTURE_VERBS[1:3]), verb
    assert {v.base for v in SAY_VERBS if v.irregular} == {"say", "think"}
    assert {v.base for v in SAY_VERBS + OBJECT_RAISING_VERBS if v.stative} >= {"believe", "want", "need", "think"}
    assert set(THAT_DROP_VERBS) < set(SAY_VERBS) and "explain" not in {v.base for v in THAT_DROP_VERBS}
    assert not {v.base for v in OBJECT_RAISING_VERBS} & {v.base for v in OBJECT_CONTROL_VERBS}
    assert len(OBJECT_RAISING_VERBS) >= 8 and len(OBJECT_CONTROL_VERBS) >= 8 and len(set(CLAUSE_ADJECTIVES)) >= 10
    pools = Pools(lexicon)
    persons = [v for v in lexicon.verbs if "person" in v.subject and "person" in v.object]
    assert len(persons) >= 40 and len([v for v in persons if "self" in v.object]) >= 20
    assert len(pools.names("f")) >= 20 and len(pools.names("m")) >= 20 and len(pools.persons) >= 20


def test_the_ellipsis_site_follows_a_quantifier_in_good_sentences_and_an_adjective_in_bad_ones(generated, lexicon):
    adjectives = {a.word for a in lexicon.adjectives}
    second = {q for q in ELLIPSIS_SECOND}
    for uid in ELLIPSIS:
        for row in generated[uid]:
            good, bad = words(row["sentence_good"]), words(row["sentence_bad"])
            assert good.count("and") == bad.count("and") == 1, row
            assert bad[-1] in adjectives and bad[-2] in second, row  # the noun elided after an adjective
            cut = good.index("and")
            first_quantifier = next(w for w in good[:cut] if w in ELLIPSIS_FIRST)
            at = good.index(first_quantifier, 1)
            if uid == "ellipsis_n_bar_1":  # "one big museum and ... several" / "one museum and ... several big"
                assert good[-1] in second and good[at + 1] == bad[-1], row
                assert good[:at + 1] + good[at + 2:] == bad[:-1], row
            else:  # "five dermatologists and ... four displeased dermatologists" / "five small ... four displeased."
                assert good[-2] == bad[-1], row  # the same adjective, with / without its noun
                assert bad[at + 1] in adjectives and bad[at + 1] != bad[-1], row
                assert good[:at + 1] + good[at + 1:-1] == bad[:at + 1] + bad[at + 2:], row
                noun = good[-1]
                assert any(n.plural == noun for n in lexicon.count_nouns), row  # the second noun is plural
                assert good[at + 1] in {n.form("sg" if first_quantifier == "one" else "pl") for n in
                                        lexicon.count_nouns if n.plural == noun}, row


def verb_words(lexicon) -> set[str]:
    return {form for v in lexicon.verbs for form in (v.base, v.third, v.past, v.participle, v.gerund)}


def noun_words(lexicon) -> set[str]:
    return ({n.singular.split(" ")[-1] for n in lexicon.nouns} | {n.plural.split(" ")[-1] for n in lexicon.count_nouns}
            | {n.name for n in lexicon.names})


def test_fillers_have_a_gap_in_good_sentences_and_none_in_bad_ones(generated, lexicon):
    """A clause ending in its verb (or the verb's particle) has a gap where the object goes; one ending in a
    noun has its object; a clause whose first word after "that" is a verb has a gap where the subject goes."""
    verbs, nouns, a = verb_words(lexicon), noun_words(lexicon), Arguments(lexicon)
    ends_in_gap = verbs | set(PARTICLES)
    finite = verbs | AUXILIARY_WORDS | {"do", "does", "did"}
    for row in generated["wh_questions_object_gap"]:
        good, bad = words(row["sentence_good"]), words(row["sentence_bad"])
        first = next(i for i, (g, b) in enumerate(zip(good, bad, strict=True)) if g != b)
        head, at = good[first:first + 2], first + 2  # a determiner and a noun, moved to the end of the bad one
        assert good[at] == "that" and good[-1] in ends_in_gap and bad[-1] in nouns and bad[-2:] == head, row
        assert bad[first] in ("who", "what") and good[at + 1:] == bad[first + 1:-2], row
        assert bad[first] == ("who" if a.noun_class(head[-1]) == "person" else "what"), row
    for uid in ("wh_questions_subject_gap", "wh_questions_subject_gap_long_distance"):
        for row in generated[uid]:
            good, bad = words(row["sentence_good"]), words(row["sentence_bad"])
            diffs = [i for i, (g, b) in enumerate(zip(good, bad, strict=True)) if g != b]
            wh, at = diffs[0], diffs[-1]  # the wh-word of the bad sentence, the good one's subject relative "that"
            assert good[at] == "that" and good[at + 1] in finite, row  # the relative's subject is the gap
            assert good[at + 1:] == bad[at + 1:] and bad[at] in ends_in_gap | nouns, row
            assert bad[wh] in ("who", "what") and good[wh] in {*SHORT_DETERMINERS["sg"], *SHORT_DETERMINERS["pl"], "an"}, row
            assert good[wh:at] == bad[wh + 1:at + 1], row  # the head (and its object relative) one place on
            if uid.endswith("long_distance"):
                assert good[wh + 2] == "that" and "that" in bad[wh + 3:at + 1], row  # the object relative
    for uid in ("wh_vs_that_no_gap", "wh_vs_that_no_gap_long_distance"):
        for row in generated[uid]:
            good, bad = words(row["sentence_good"]), words(row["sentence_bad"])
            at = good.index("that")
            assert bad[at] in ("who", "what") and good[:at] + good[at + 1:] == bad[:at] + bad[at + 1:], row
            assert good[-1] in nouns, row  # the object is there: no gap
    for uid in ("wh_vs_that_with_gap", "wh_vs_that_with_gap_long_distance"):
        for row in generated[uid]:
            good, bad = words(row["sentence_good"]), words(row["sentence_bad"])
            at = bad.index("that")
            assert good[at] in ("who", "what") and good[:at] + good[at + 1:] == bad[:at] + bad[at + 1:], row
            assert good[-1] in ends_in_gap, row  # the embedded verb (or its particle) ends the sentence
            last = {v for v in lexicon.verbs if good[-1] in (v.base, v.third, v.past, v.participle, v.gerund,
                                                             v.particle)}
            assert any(v.valency == "required" for v in last), row  # a verb that cannot drop its object
            assert any(WH_CLASSES[good[at]] & v.object for v in last), row  # the wh-word is its object
    clause_verbs = {f for v in lexicon.verbs if v.label in CLAUSE_VERBS for f in (v.base, v.third, v.past,
                                                                                  v.participle, v.gerund)}
    for uid in [u for u in FILLER_GAP if u.startswith("wh_vs_that")]:
        for row in generated[uid]:  # "that" / a wh-word right after a matrix verb that takes both
            good, bad = words(row["sentence_good"]), words(row["sentence_bad"])
            at = next(i for i, (g, b) in enumerate(zip(good, bad, strict=True)) if g != b)
            assert good[at - 1] in clause_verbs, row
    for uid in ("wh_vs_that_no_gap_long_distance", "wh_vs_that_with_gap_long_distance"):
        for row in generated[uid]:  # the embedded subject has its subject relative clause: "most drivers that forfeit"
            good = words(row["sentence_good"])
            wh = next(i for i, w in enumerate(good) if w in ("who", "what", "that"))
            assert "that" in good[wh + 2:] and good[good.index("that", wh + 2) + 1] in finite, row


def test_the_filler_gap_and_ellipsis_pools(lexicon):
    pools = Pools(lexicon)
    labels = [v.label for v in lexicon.verbs]
    assert set(QUESTION_VERBS) | set(CLAUSE_VERBS) <= set(labels)  # a misspelt label would drop its verb
    for verb in pools.labelled(QUESTION_VERBS + CLAUSE_VERBS):
        assert "person" in verb.subject and verb.object - {"self"}, verb
    assert len(pools.labelled(QUESTION_VERBS)) == len(QUESTION_VERBS)
    assert len(pools.labelled(CLAUSE_VERBS)) == len(CLAUSE_VERBS)
    required = pools.of_valency("required")
    assert len(required) >= 40 and all(v.object - {"self"} and not v.intransitive for v in required)
    assert len(pools.ellipsis_verbs) >= 80
    short = pools.short_nouns(frozenset(CLASSES))
    assert len(short) >= 200 and all(" " not in n.singular + n.plural and n.countable for n in short)
    assert "one" in ELLIPSIS_FIRST and "one" not in ELLIPSIS_SECOND  # the second quantifier takes a plural


def test_the_s_selection_and_quantifier_pools(lexicon):
    pools = Pools(lexicon)
    assert ANIMATE.isdisjoint(INANIMATE) and ANIMATE | INANIMATE | {"organization"} == set(CLASSES)
    labels = {v.label for v in lexicon.verbs}
    assert INANIMATE_CAUSES <= labels  # a misspelt entry would let its verb through
    assert len(pools.animate_passive) >= 30 and len(pools.animate_transitive) >= 40
    assert all(v.subject <= ANIMATE for v in pools.animate_passive + pools.animate_transitive)
    assert len(pools.inanimate_nouns) >= 100 and len(pools.active_nouns) >= 150
    assert len(pools.counting_verbs) >= 80


# --- islands ---

WH_CLASSES = {"who": {"person"}, "what": set(CLASSES) - {"person"}}


def verbs_ending(a: Arguments, tokens: list[str]) -> list:
    """The lexicon's verbs of which ``tokens`` end in a form (and its particle); none where no verb ends there."""
    if len(tokens) >= 2 and (tokens[-2], tokens[-1]) in a.verbs:
        return a.verbs[(tokens[-2], tokens[-1])]
    return a.verbs.get((tokens[-1], ""), [])


def gap_at_end(a: Arguments, tokens: list[str], classes: set[str]) -> bool:
    """``tokens`` end in a verb (or its particle) that takes an object of ``classes``: its object is missing there
    (a gap) or follows."""
    return any(classes & v.object for v in verbs_ending(a, tokens))


def moved_to_end(good: list[str], bad: list[str], start: int) -> int | None:
    """How many of ``good``'s words from ``start`` on ``bad`` has after the words that follow them (None: ``bad``
    is not so made)."""
    return next((k for k in range(1, len(good) - start)
                 if bad == good[:start] + good[start + k:] + good[start:start + k]), None)


def question_words(sentence: str) -> list[str]:
    return sentence[:-1].split(" ")


def test_island_pairs_move_their_words_as_the_release_does(generated):
    """The good and the bad sentence have the same words (wh_island: but the embedded subject) and differ as the
    release's do: the adjunct, the complex noun phrase, the second conjunct, the left branch's noun and the
    sentential subject's object move after the words that follow them; the echo question's wh-determiner moves to
    the front and its subject after the auxiliary."""
    for uid in ISLANDS:
        for row in generated[uid]:
            good, bad = question_words(row["sentence_good"]), question_words(row["sentence_bad"])
            mark = "." if uid == "sentential_subject_island" else "?"  # the release's
            assert row["sentence_good"][-1] == row["sentence_bad"][-1] == mark, row
            if uid != "wh_island":
                assert sorted(w.lower() for w in good) == sorted(w.lower() for w in bad), row
            if uid == "adjunct_island":  # "... hug after shocking Richard" / "... hug Richard after shocking"
                at = next(i for i, w in enumerate(good) if w in ADJUNCT_WORDS)
                assert moved_to_end(good, bad, at) in (2, 3) and good[at + 1].endswith("ing"), row
            elif uid == "complex_NP_island":  # "Who <aux> <head> who|that <verbs> <NP> <verb>" / the NP first
                assert good[0] == "Who" and good[4] in ("who", "that") and moved_to_end(good, bad, 2) >= 4, row
            elif uid == "coordinate_structure_constraint_complex_left_branch":  # the noun after the first verb
                at = good.index("and")
                assert good[0].lower() in WH_DETERMINERS and moved_to_end(good[:at], bad[:at], 1) == 1, row
                assert good[at:] == bad[at:] and good[at + 1:at + 1 + len(row["two_prefix_word"].split(" "))] == \
                    row["two_prefix_word"].split(" "), row
            elif uid == "coordinate_structure_constraint_object_extraction":  # "and <NP>" after the verb
                assert good.count("and") == 1 and moved_to_end(good, bad, good.index("and")) >= 2, row
            elif uid == "left_branch_island_echo_question":  # "<subject> <aux> <verb> <wh> <noun>" / "<wh> <aux> ..."
                wh = len(row["two_prefix_prefix_good"].split(" ")) - 1
                assert good[wh] in WH_DETERMINERS and good[0].lower() not in WH_DETERMINERS, row
                assert [w.lower() for w in bad] == [good[wh], good[2], good[0].lower(), good[1], *good[3:wh],
                                                    *good[wh + 1:]], row
            elif uid == "left_branch_island_simple_question":  # "<wh> <noun> <aux> ..." / "<wh> <aux> ... <noun>"
                assert good[0].lower() in WH_DETERMINERS and moved_to_end(good, bad, 1) in (1, 2), row
            elif uid == "sentential_subject_island":  # "... cleaning those banks upset" / "... cleaning upset those banks"
                assert good[0] == "Who" and any(moved_to_end(good, bad, start) == len(good) - 1 - start
                                                for start in range(3, len(good) - 1)), row
            else:  # wh_island: the embedded subject only
                diffs = [i for i, (g, b) in enumerate(zip(good, bad, strict=True)) if g != b]
                assert diffs == [len(row["one_prefix_prefix"].split(" "))], row


def auxiliary_agrees(a: Arguments, g: Grammar, tokens: list[str], aux: int, end: int) -> bool:
    """Whether the question's auxiliary ``tokens[aux]`` agrees with the subject after it, whose verb (and the verb's
    particle) ends at ``end``, and is no progressive's of a stative verb."""
    particle = (tokens[end - 2], tokens[end - 1]) in a.verbs
    subject = tokens[aux + 1:end - 1 - particle]
    number = g.np_number(next(w for w in reversed(subject) if g.noun(w)))
    verb = a.verbs[(tokens[end - 2], tokens[end - 1]) if particle else (tokens[end - 1], "")]
    progressive = tokens[aux].removesuffix("n't") in ("is", "are", "was", "were")
    return g.verb_number.get(tokens[aux], number) == number and not (progressive and all(v.stative for v in verb))


def test_wh_words_leave_their_gap_outside_the_island_in_good_sentences_and_inside_it_in_bad_ones(generated, lexicon):
    """The good sentence's gap (a verb, or its particle, without its object) is the verb's object or a declarative
    clause's; the bad one's is inside an island: an adjunct, a relative clause on the object, a sentential
    subject, an embedded question. The wh-word and the noun phrases are of classes the verbs take, and the
    auxiliary agrees with every subject it stands for."""
    a, g = Arguments(lexicon), Grammar(lexicon)
    person = {"person"}
    for row in generated["adjunct_island"]:  # "<wh> <aux> <subject> <verb> <adjunct> <NP>" / "... <NP> <adjunct>"
        good, bad = question_words(row["sentence_good"]), question_words(row["sentence_bad"])
        wh, at = WH_CLASSES[good[0].lower()], next(i for i, w in enumerate(good) if w in ADJUNCT_WORDS)
        adjunct = good[at:at + moved_to_end(good, bad, at)]
        obj = good[at + len(adjunct):]
        assert g.noun(obj[-1]) and bad[at:] == [*obj, *adjunct], row
        assert gap_at_end(a, good[:at], wh) and gap_at_end(a, bad, wh), row  # the verb's gap / the adjunct's
        assert gap_at_end(a, adjunct, {a.noun_class(obj[-1])}) and gap_at_end(a, bad[:at], {a.noun_class(obj[-1])})
        assert auxiliary_agrees(a, g, good, 1, at), row
    for row in generated["complex_NP_island"]:  # "Who <aux> <head> that <verbs> <NP> <verb>" / "... <NP> <verb> <head> ..."
        good, bad = question_words(row["sentence_good"]), question_words(row["sentence_bad"])
        relative = good[2:2 + moved_to_end(good, bad, 2)]
        other, verb = good[2 + len(relative):4 + len(relative)], good[4 + len(relative):]
        assert g.noun(relative[1]) and relative[2] in ("who", "that") and g.noun(other[1]) and verb, row
        assert gap_at_end(a, good, person) and gap_at_end(a, relative, person), row  # the verb's gap; the NP follows
        assert bad[2:] == [*other, *verb, *relative] and gap_at_end(a, bad, person), row  # the relative clause's gap
        number = g.np_number(relative[1])
        assert g.np_number(other[1]) == number and g.verb_number.get(good[1], number) == number, row
    for row in generated["sentential_subject_island"]:  # "Who <aux> <possessor>'s <gerund> <object> <verb>."
        good, bad = question_words(row["sentence_good"]), question_words(row["sentence_bad"])
        at = next(i for i, w in enumerate(good) if w.endswith(("'", "'s")))
        start = at + 2 + ((good[at + 1], good[at + 2]) in a.verbs)  # after the gerund and its particle
        obj = good[start:start + moved_to_end(good, bad, start)]
        verb = good[start + len(obj):]
        assert good[at + 1].endswith("ing") and g.verb_number.get(good[1], "sg") == "sg", row  # a gerund's auxiliary
        assert g.noun(obj[-1]) and gap_at_end(a, good[:start], person), row  # the gerund and its object
        assert gap_at_end(a, good, person) and any("abstract" in v.subject for v in verbs_ending(a, verb)), row
        assert bad[start:] == [*verb, *obj], row  # the gerund's object missing: the gap inside the subject
    clause = {f for v in lexicon.verbs if v.label in CLAUSE_VERBS for f in (v.base, v.participle, v.gerund)}
    thirds = {v.third for v in lexicon.verbs}
    numbers = finite_numbers(lexicon)
    for row in generated["wh_island"]:  # "<wh> <aux> <subject> <know> he|she|they <verb group>?" / "... who ..."
        prefix, good = row["one_prefix_prefix"].split(" "), question_words(row["sentence_good"])
        pronoun = row["one_prefix_word_good"]
        assert prefix[-1] in clause and row["one_prefix_word_bad"] == "who", row
        assert pronoun == SUBJECT_PRONOUNS[_person_agreement(g, prefix[2:-1])], row  # the matrix subject's pronoun
        assert gap_at_end(a, good, WH_CLASSES[prefix[0].lower()]), row  # the embedded verb's object is the gap
        finite = good[len(prefix) + 1]  # agrees with the pronoun
        assert finite not in (PL_AUX if pronoun != "they" else SG_AUX | thirds), row
        if pronoun == "they":  # no agreeing verb group, so that "who" reads as well before it
            assert finite not in numbers, row


def test_coordinations_and_left_branches_move_whole_in_good_sentences_only(generated, lexicon):
    """The good sentence moves a whole phrase: the object of both conjuncts, the object of a verb with
    coordinated subjects, a wh-determiner with its noun; the bad one leaves part of it behind: the noun in the first
    conjunct, the second conjunct of a coordinated object, the wh-determiner's noun (its branch then has no gap)."""
    a, g = Arguments(lexicon), Grammar(lexicon)
    for row in generated["coordinate_structure_constraint_complex_left_branch"]:
        good, bad = row["two_prefix_prefix_good"].split(" "), row["two_prefix_prefix_bad"].split(" ")
        noun = {a.noun_class(good[1])}
        assert gap_at_end(a, good[:-1], noun) and gap_at_end(a, question_words(row["sentence_good"]), noun), row
        assert bad[-2] == good[1] and gap_at_end(a, bad[:-2], noun), row  # the noun left in the first conjunct
    for row in generated["coordinate_structure_constraint_object_extraction"]:
        good, bad = question_words(row["sentence_good"]), question_words(row["sentence_bad"])
        wh, at = WH_CLASSES[good[0].lower()], good.index("and")
        conjunct = good[at:at + moved_to_end(good, bad, at)]  # "and <NP>"
        assert gap_at_end(a, good, wh) and g.noun(good[at - 1]) and g.noun(conjunct[-1]), row  # coordinated subjects
        assert bad[-len(conjunct):] == conjunct and gap_at_end(a, bad[:-len(conjunct)], wh), row  # "<verb> _ and NP"
        assert a.noun_class(conjunct[-1]) in wh, row  # the conjuncts are of one kind ("who and Eric")
        first = g.np_number(good[at - 1])  # the auxiliary agrees with "A and B" and with A
        assert g.verb_number.get(good[1], "pl") == "pl" and g.verb_number.get(good[1], first) == first, row
    for row in generated["left_branch_island_echo_question"]:  # "<det> <noun> <aux> <verb> <wh> <noun>"
        good, bad = row["two_prefix_prefix_good"].split(" "), row["two_prefix_prefix_bad"].split(" ")
        noun = row["two_prefix_word"].split(" ")
        assert g.noun(good[1]) and g.noun(noun[-1]) and good[2] in AUXILIARY_WORDS, row
        assert gap_at_end(a, good[:-1], {a.noun_class(noun[-1])}) and gap_at_end(a, bad, {a.noun_class(noun[-1])}), row
        assert g.verb_number.get(good[2], g.np_number(good[1])) == g.np_number(good[1]), row
    for row in generated["left_branch_island_simple_question"]:  # "<wh> <noun> <aux> <subject> <verb>"
        good, bad = question_words(row["sentence_good"]), question_words(row["sentence_bad"])
        noun = good[1:1 + moved_to_end(good, bad, 1)]
        assert g.noun(noun[-1]) and bad[-len(noun):] == noun and bad[1] == good[1 + len(noun)], row
        assert gap_at_end(a, good, {a.noun_class(noun[-1])}), row  # the wh-phrase's gap
        assert auxiliary_agrees(a, g, good, 1 + len(noun), len(good)), row


# --- the structural check ---

def test_every_paradigm_passes_the_structural_check_against_release_rows(generated):
    for uid, rows in generated.items():
        report = check_against_release(rows, release_of(uid))
        assert report.ok, report.format()
        assert list(report.paradigms) == [uid] and report.paradigms[uid].release == len(release_of(uid)) >= 2


def test_the_release_rows_pass_their_own_check():
    report = check_against_release(RELEASE, RELEASE)
    assert report.ok and not report.warnings(), report.format()


def mutated(rows: list[dict], change) -> list[dict]:
    rows = [dict(r) for r in rows]
    change(rows[1])
    return rows


def swap_det(row):
    row["sentence_bad"] = row["sentence_bad"].replace(" those ", " a ").replace(" these ", " a ") \
        .replace(" this ", " a ").replace(" that ", " a ")
    row["two_prefix_prefix_bad"] = row["sentence_bad"].rsplit(" ", 1)[0]


def two_words(row):
    bad = row["sentence_bad"].split(" ")
    bad[0] = "Somebody"
    row["sentence_bad"] = " ".join(bad)


@pytest.mark.parametrize(("uid", "change", "check"), [
    ("determiner_noun_agreement_1", lambda r: r.update(lexically_identical=False), "constants"),
    ("determiner_noun_agreement_1", lambda r: r.update(UID="determiner_noun_agreement_2"), "release"),
    ("determiner_noun_agreement_1", lambda r: r.pop("one_prefix_word_bad"), "keys"),
    ("determiner_noun_agreement_1", lambda r: r.update(sentence_good=r["sentence_good"][:-1]), "form"),
    ("determiner_noun_agreement_1", lambda r: r.update(sentence_bad=r["sentence_bad"].lower()), "form"),
    ("determiner_noun_agreement_1", lambda r: r.update(one_prefix_prefix="Somebody likes"), "prefix"),
    ("determiner_noun_agreement_1", lambda r: r.update(one_prefix_word_bad=r["one_prefix_word_good"]), "prefix"),
    ("determiner_noun_agreement_1", two_words, "tokens"),
    ("determiner_noun_agreement_2", swap_det, "contrast"),
    ("regular_plural_subject_verb_agreement_2",
     lambda r: r.update(sentence_bad=r["sentence_bad"][:-1] + " now.", sentence_good=r["sentence_good"][:-1] + " now."),
     None),
    ("irregular_past_participle_verbs",
     lambda r: r.update(sentence_bad=r["sentence_bad"].replace(r["one_prefix_word_bad"], r["one_prefix_word_good"])
                        .rstrip(".") + " again."), "tokens"),
    ("distractor_agreement_relational_noun", lambda r: r.update(dependency_length=r["dependency_length"] + 1),
     "dependency_length"),
    ("distractor_agreement_relative_clause", lambda r: r.update(dependency_length="5"), "dependency_length"),
    ("anaphor_gender_agreement", lambda r: r.update(pairID="0"), "unique"),
    ("superlative_quantifiers_1", lambda r: r.pop("crucial_item"), "keys"),
    ("superlative_quantifiers_2", lambda r: r.update(field="syntax"), "constants"),
    ("existential_there_quantifiers_1", two_words, "tokens"),
    ("only_npi_licensor_present", lambda r: r.update(two_prefix_prefix_bad=r["two_prefix_prefix_good"]), "prefix"),
    ("animate_subject_passive", lambda r: r.update(sentence_bad=r["sentence_bad"].replace(" by ", " near ")),
     "prefix"),
    # the final mark is the release's: "?" / "." in matrix questions, "." elsewhere
    ("matrix_question_npi_licensor_present", lambda r: r.update(sentence_good=r["sentence_good"][:-1] + "."),
     "form"),
    ("matrix_question_npi_licensor_present", lambda r: r.update(sentence_bad=r["sentence_bad"][:-1] + "?"), "form"),
    ("matrix_question_npi_licensor_present", lambda r: r.update(sentence_good=r["sentence_good"] + "."), "form"),
    ("determiner_noun_agreement_1", lambda r: r.update(sentence_good=r["sentence_good"][:-1] + "?"), "form"),
    ("wh_vs_that_no_gap", lambda r: r.update(sentence_bad=r["sentence_bad"][:-1] + "?"), "form"),
    ("matrix_question_npi_licensor_present", lambda r: r.update(lexically_identical=False), "constants"),
    # the words move as the release's do
    ("wh_questions_subject_gap", lambda r: r.update(sentence_bad=r["sentence_good"].replace(" that ", " who ")),
     "tokens"),
    ("wh_questions_object_gap", lambda r: r.update(sentence_bad=r["sentence_good"].replace(" that ", " what ")),
     "tokens"),
    ("ellipsis_n_bar_1", lambda r: r.update(sentence_bad=r["sentence_good"].rsplit(" ", 1)[0] + " ones."), "tokens"),
    ("ellipsis_n_bar_1", lambda r: r.update(sentence_bad=r["sentence_bad"][:-1] + " ones."), "tokens"),
    ("ellipsis_n_bar_2", lambda r: r.update(sentence_bad=r["sentence_good"].rsplit(" ", 1)[0] + " ones."), "tokens"),
    ("wh_vs_that_with_gap", two_words, "tokens"),
    ("wh_questions_subject_gap_long_distance", lambda r: r.update(UID="wh_questions_subject_gap"), "release"),
    # NPI scope: "only" / "not" moved as the release's; the release's field "syntax_semantics"
    ("only_npi_scope", lambda r: r.update(sentence_bad=r["sentence_good"][5].upper() + r["sentence_good"][6:]
                                          .replace(" ever ", " only ever ")), "tokens"),
    ("sentential_negation_npi_scope", lambda r: r.update(sentence_bad=r["sentence_good"].replace(" not ", " ")
                                                         .replace(" ever ", " ever not ")), "tokens"),
    ("sentential_negation_npi_scope", lambda r: r.update(field="semantics"), "constants"),
    ("only_npi_scope", lambda r: r.update(lexically_identical=False), "constants"),
    ("tough_vs_raising_1", two_words, "tokens"),
    ("tough_vs_raising_2", lambda r: r.update(field="syntax"), "constants"),
    ("existential_there_subject_raising", lambda r: r.update(sentence_bad=r["sentence_bad"][:-1] + "?"), "form"),
    # binding and object raising: principle_A_case_2 keeps its release file's field; the swapped names of
    # principle_A_domain_3 must be swapped, not two other words; a reflexive where the release has a pronoun
    ("principle_A_case_2", lambda r: r.update(field="syntax_semantics"), "constants"),
    ("principle_A_domain_3", lambda r: r.update(sentence_bad=r["sentence_good"].split(" ", 1)[0] + " " + " ".join(
        r["sentence_good"].split(" ")[1:-1]) + " themselves."), "tokens"),
    ("principle_A_domain_3", lambda r: r.update(lexically_identical=False), "constants"),
    ("principle_A_domain_1", lambda r: r.update(sentence_good=r["sentence_bad"].rsplit(" ", 1)[0] + " themselves.",
                                                one_prefix_word_good="themselves"), "contrast"),
    ("principle_A_reconstruction", lambda r: r.update(sentence_bad=r["sentence_good"].replace("It's ", "It's not ")),
     "tokens"),
    ("existential_there_object_raising", lambda r: r.update(two_prefix_method=False), "constants"),
    ("expletive_it_object_raising", lambda r: r.update(sentence_bad=r["sentence_bad"].replace(" it ", " there ")),
     "prefix"),
    # islands: the words move as the release's (a word replaced, one added: no move), the release's flags and marks
    ("adjunct_island", lambda r: r.update(sentence_bad=r["sentence_bad"].rsplit(" ", 1)[0] + " him?"), "tokens"),
    ("complex_NP_island", lambda r: r.update(sentence_bad=r["sentence_bad"][:-1] + " again?"), "tokens"),
    ("sentential_subject_island", lambda r: r.update(sentence_good=r["sentence_good"][:-1] + "?"), "form"),
    ("coordinate_structure_constraint_object_extraction", lambda r: r.update(lexically_identical=True), "constants"),
    ("coordinate_structure_constraint_complex_left_branch",
     lambda r: r.update(two_prefix_prefix_bad=r["two_prefix_prefix_good"]), "prefix"),
    ("left_branch_island_echo_question", two_words, "prefix"),
    ("wh_island", lambda r: r.update(one_prefix_word_bad=r["one_prefix_word_good"]), "prefix"),
    ("adjunct_island", lambda r: r.update(sentence_bad=r["sentence_good"]), "unique"),
    ("determiner_noun_agreement_1",
     lambda r: r.update(sentence_good=r["sentence_good"] + ".", sentence_bad=r["sentence_bad"] + "."), "form"),
    ("distractor_agreement_relational_noun", lambda r: r.update(sentence_bad=r["sentence_bad"][:-1] + " again."),
     "prefix"),
])
def test_the_structural_check_fails_what_breaks_the_structure(generated, uid, change, check):
    rows = generated[uid][:20]
    assert check_against_release(rows, release_of(uid)).ok
    report = check_against_release(mutated(rows, change), release_of(uid))
    if check is None:  # the same change to both sentences keeps the structure
        assert report.ok, report.format()
        return
    assert not report.ok
    assert check in {f.check for f in report.errors()}, report.format()
    changed = mutated(rows, change)[1]
    text = report.format()
    assert f"{changed['UID']}: FAIL" in text and f"[{check}]" in text, text
    assert f"pairID {changed['pairID']}:" in text or check == "release", text


def test_the_difference_must_be_where_the_release_has_it(generated):
    """A two-prefix pair whose prefixes differ one word earlier than the release's (the noun, not the
    determiner, in determiner_noun_agreement_2)."""
    rows = [dict(r) for r in generated["determiner_noun_agreement_with_adj_2"][:5]]
    for row in rows:  # move the critical word: the adjective becomes the word, the noun the rest
        good = row["sentence_good"].rstrip(".").split(" ")
        row["two_prefix_prefix_good"] = " ".join(good[:-2])
        row["two_prefix_prefix_bad"] = " ".join(row["sentence_bad"].rstrip(".").split(" ")[:-2])
        row["two_prefix_word"] = good[-2]
    report = check_against_release(rows, release_of("determiner_noun_agreement_with_adj_2"))
    assert {f.check for f in report.errors()} == {"position"}, report.format()


def test_moved_words_are_checked_by_how_they_move_and_the_other_paradigms_by_their_count(generated):
    """Where every release pair's differing words are moved ones (the filler-gap questions, ellipsis, matrix
    questions, six of the islands), the check compares how they move, not how many they are; for every other
    paradigm the number of differing words must still be the release's."""
    moving = {"matrix_question_npi_licensor_present", "only_npi_scope", "sentential_negation_npi_scope",
              "principle_A_reconstruction", "principle_A_domain_3",
              "ellipsis_n_bar_1", "ellipsis_n_bar_2",
              "wh_questions_object_gap", "wh_questions_subject_gap", "wh_questions_subject_gap_long_distance",
              *(uid for uid in ISLANDS if uid not in ("left_branch_island_echo_question", "wh_island"))}
    for uid in GENERATED:
        moves = Profile.learn(release_of(uid)).moves
        assert (moves is not None) == (uid in moving), uid
        assert moves is None or moves <= set(MOVES) | {SWAPPED}
    # a pair whose object moved over more words than any of the 3 release rows' is still one of theirs
    rows = generated["wh_questions_object_gap"]
    release = release_of("wh_questions_object_gap")
    counts = {len(shape_of(r)) for r in release}
    longer = [r for r in rows if len(shape_of(r)) not in counts]
    assert longer and check_against_release(longer, release).ok
    # two words moved in a paradigm whose differing words are a count: refused
    rows = [dict(r) for r in generated["existential_there_quantifiers_1"][:5]]
    for row in rows:  # "There was a cat sleeping." -> "There was cat a sleeping."
        good = row["sentence_good"][:-1].split(" ")
        row["sentence_bad"] = " ".join(good[:2] + good[3:4] + good[2:3] + good[4:]) + "."
    report = check_against_release(rows, release_of("existential_there_quantifiers_1"))
    assert not report.ok and "tokens" in {f.check for f in report.errors()}, report.format()


def test_swapped_phrases_pass_only_where_the_release_swaps_them(generated):
    """principle_A_domain_3's names swapped around the words between them pass against its release rows; the same
    swap in a paradigm whose release never swaps (anaphor_gender_agreement) is a ``tokens`` error, as any two
    words apart are; a release with a single swapped pair does not allow swaps."""
    assert swapped(["eva", "says", "dennis"], ["dennis", "says", "eva"])
    assert swapped(["rose", "thinks", "melissa's", "ex-husband"], ["melissa's", "ex-husband", "thinks", "rose"])
    assert not swapped(["eva", "says", "dennis"], ["dennis", "says", "anna"])
    rows = generated["principle_A_domain_3"][:20]
    assert all(shape(r).move == SWAPPED for r in rows) and check_against_release(rows, release_of(
        "principle_A_domain_3")).ok
    assert Profile.learn(release_of("principle_A_domain_3")).swaps
    other = [dict(r) for r in generated["anaphor_gender_agreement"][:5]]
    for row in other:  # "Tina likes Eric ..." -> "Eric likes Tina ...": a swap the release never has
        tokens = row["sentence_good"][:-1].split(" ")
        tokens[0], tokens[2] = tokens[2].capitalize(), tokens[0].lower()
        row["sentence_bad"] = " ".join(tokens) + "."
        row["one_prefix_word_bad"] = row["one_prefix_word_good"]
    report = check_against_release(other, release_of("anaphor_gender_agreement"))
    assert not report.ok and "tokens" in {f.check for f in report.errors()}, report.format()
    assert "[tokens] 5 pairs: the differing words are not next to each other (two phrases swapped" in report.format()
    one = [dict(r) for r in release_of("anaphor_gender_agreement")] * 10
    one[0] = {**one[0], "sentence_good": "Tina likes Eric.", "sentence_bad": "Eric likes Tina.",
              "one_prefix_method": False}  # no prefix fields to rebuild: only the swap makes it unreadable
    assert shape(one[0]).move == SWAPPED and not shape(one[0]).problems  # one pair in 20 swapped: a slip, not a structure
    assert not Profile.learn(one).swaps and Profile.learn(one).unreadable >= 1


def shape_of(row: dict) -> tuple[int, ...]:
    return shape(row).diffs


def test_a_closed_class_word_the_release_never_has_is_a_warning(generated):
    rows = [dict(r) for r in generated["anaphor_number_agreement"][:40]]
    report = check_against_release(rows, release_of("anaphor_number_agreement"))
    assert report.ok
    assert "slot_vocabulary" in {f.check for f in report.warnings()}  # the 3 release rows lack e.g. bad "itself"


# --- the rule's script and the dataset builder ---

def run_script(tmp_path: Path, uid: str, release: list[dict], settings: dict) -> Path:
    out = tmp_path / "out" / f"{uid}.jsonl"
    release_files = []
    if release:
        release_file = tmp_path / "release" / f"{uid}.jsonl"
        release_file.parent.mkdir(exist_ok=True)
        release_file.write_text("".join(json.dumps(r) + "\n" for r in release))
        release_files = [str(release_file)]
    smk = SimpleNamespace(rule="blimp_generate", wildcards=SimpleNamespace(uid=uid), output=[str(out)],
                          input=SimpleNamespace(lexicon=str(DEFAULT_LEXICON), release=release_files),
                          params=SimpleNamespace(revision=1, settings=settings), log=[str(tmp_path / "job.log")])
    runpy.run_path(str(SCRIPT), init_globals={"snakemake": smk}, run_name="__main__")
    return out


def test_the_script_writes_the_pairs_checks_them_and_the_dataset_builder_reads_them(tmp_path):
    uid = "determiner_noun_agreement_with_adjective_1"
    release = release_of(uid)
    out = run_script(tmp_path, uid, release, {"seed": 4, "pairs": 50})
    expected = generate(uid, 50, 4, exclude=release_sentences(release))
    assert out.read_text() == to_jsonl(expected)
    log = (tmp_path / "job.log").read_text()
    assert f"{uid}: 50 pairs generated (seed 4" in log and f"{uid}: OK (50 generated vs 3 release pairs" in log
    df = build_blimp([out])
    assert len(df) == 50 and set(df["paradigm"]) == {uid} and set(df["category"]) == {"determiner_noun_agreement"}
    assert df["one_prefix_method"].all() and not df["two_prefix_method"].any() and not df["identical"].any()
    assert (df["n_words_good"] == df["n_words_bad"]).all()


def test_the_script_without_a_release_file_and_its_failure_on_a_structure_mismatch(tmp_path):
    uid = "irregular_plural_subject_verb_agreement_2"
    out = run_script(tmp_path, uid, [], {"seed": 0, "pairs": 30})
    assert out.read_text() == to_jsonl(generate(uid, 30, 0))
    out.unlink()
    flipped = [{**row, "lexically_identical": True} for row in release_of(uid)]
    with pytest.raises(GeneratorError, match=r"structure differs from the release's:\n.*FAIL"):
        run_script(tmp_path, uid, flipped, {"seed": 0, "pairs": 30})
    assert not out.exists()
    assert "lexically_identical is not the release's True" in (tmp_path / "job.log").read_text()


@pytest.mark.workflow
def test_the_rule_end_to_end_on_the_demo_release_with_and_without_it(tmp_path):
    from demo_workflow import DEMO, copy_workflow, snakemake, write_config

    uid = "irregular_past_participle_verbs"
    target = f"results/datasets/blimp/generated/{uid}.jsonl"
    settings = demo_generator_settings()
    n, seed = settings["pairs"], settings["seed"]
    workdir = copy_workflow(tmp_path / "wf")
    run = snakemake(workdir, target, configs=(DEMO,))
    assert run.returncode == 0, run.stderr[-3000:]
    release = [json.loads(line) for line in (workdir / f"resources/sources/blimp/{uid}.jsonl").read_text().splitlines()]
    rows = [json.loads(line) for line in (workdir / target).read_text().splitlines()]
    assert len(rows) == n and rows == generate(uid, n, seed, exclude=release_sentences(release))
    assert check_against_release(rows, release).ok
    # Without the release (exclude_release false): no download, and the pairs may repeat no release sentence only by chance.
    other = copy_workflow(tmp_path / "wf2")
    name = write_config(other, "keep.yaml", {"suites": {"blimp": {"generator": {"exclude_release": False}}}})
    run = snakemake(other, target, configs=(DEMO, name))
    assert run.returncode == 0, run.stderr[-3000:]
    assert not (other / "resources/sources/blimp").exists()
    assert (other / target).read_text() == to_jsonl(generate(uid, n, seed))


def demo_generator_settings() -> dict:
    """``suites.blimp.generator`` as the demo runs it: config.yaml's, then the demo config's."""
    import yaml

    base, demo = (yaml.safe_load((ROOT / name).read_text()) for name in ("config.yaml", "resources/demo/config.yaml"))
    return {**base["suites"]["blimp"]["generator"], **demo["suites"]["blimp"].get("generator", {})}


def test_the_demos_generator_settings_pass_the_check_against_its_release_sample():
    """The demo's release is 20 rows per paradigm, fewer shapes than the release's 1,000 (inchoative's
    differ in one word only), so 100 fresh pairs or more fail its check: the demo asks for 20."""
    settings = demo_generator_settings()
    folder = ROOT / "resources/demo/mirror/raw.githubusercontent.com/alexwarstadt/blimp"
    failed = []
    for uid in GENERATED:
        release = [json.loads(line) for line in next(folder.glob(f"*/data/{uid}.jsonl")).read_text().splitlines()]
        if not check_against_release(generate(uid, settings["pairs"], settings["seed"]), release).ok:
            failed.append(uid)
    assert failed == []


@pytest.mark.workflow
def test_the_generated_pairs_are_scored_and_set_beside_the_release(demo_copy):
    """``snakemake blimp_generated`` after the demo: the 67 paradigms of 12 pairs, a dataset, each BLiMP
    model's scores, and the table of accuracies beside the release's same paradigms."""
    from demo_workflow import DEMO, snakemake, write_config

    workdir = demo_copy
    name = write_config(workdir, "few.yaml", {"suites": {"blimp": {"generator": {"pairs": 12},
                                                                   "models": ["tiny-gpt2", "tiny-bert"]}}})
    run = snakemake(workdir, "blimp_generated", configs=(DEMO, "fast.yaml", name))
    assert run.returncode == 0, run.stdout[-3000:] + run.stderr[-3000:]
    dataset = read_parquet(workdir / "results/datasets/blimp/generated.parquet")
    assert len(dataset) == len(GENERATED) * 12 and set(dataset["paradigm"]) == set(GENERATED)
    assert read_metadata(workdir / "results/datasets/blimp/generated.parquet")["dataset"] == "generated"
    scores = read_parquet(workdir / "results/scores/blimp/tiny-gpt2/generated.parquet")
    assert set(scores["paradigm"]) == set(GENERATED)
    table = pd.read_csv(workdir / "results/tables/blimp/generated.csv")
    assert set(table["model"]) == {"tiny-gpt2", "tiny-bert"}
    lmeval = table[(table["model"] == "tiny-gpt2") & (table["method"] == "lmeval04")].set_index("paradigm")
    assert len(lmeval) == len(GENERATED) + 1 and (lmeval.drop(MEAN_ROW)["n_generated"] == 12).all()
    # the release side: the demo's 20 pairs of each of these paradigms, as the release scores have them
    release = read_parquet(workdir / "results/scores/blimp/tiny-gpt2/blimp.parquet")
    ours = release[(release["method"] == "lmeval04") & release["paradigm"].isin(GENERATED) & release["kept"]]
    by_paradigm = 100 * ours.groupby("paradigm")["correct"].mean()
    assert lmeval.drop(MEAN_ROW)["release"].sort_index().round(9).tolist() == by_paradigm.sort_index().round(9).tolist()


def test_the_comparison_sets_paradigm_accuracies_side_by_side_and_averages_them():
    def scores(rows):
        return pd.DataFrame([{"model": "m", "method": "lmeval04", "category": "c", "kept": kept, "paradigm": paradigm,
                              "correct": correct} for paradigm, correct, kept in rows])

    release = scores([("p1", True, True), ("p1", False, True), ("p2", True, True), ("p2", True, False),
                      ("other", False, True)])
    generated = scores([("p1", True, True), ("p2", False, True), ("p2", True, True), ("p2", True, True)])
    table = generated_comparison(release, generated).set_index("paradigm")
    assert list(table.index) == [MEAN_ROW, "p1", "p2"], "the release's other paradigms are left out"
    assert (table.loc["p1", "release"], table.loc["p1", "generated"]) == (50.0, 100.0)
    assert table.loc["p2", "release"] == 100.0 and table.loc["p2", "generated"] == pytest.approx(200 / 3)
    assert (table.loc["p2", "n_release"], table.loc["p2", "n_generated"]) == (1, 3)  # unkept pairs do not count
    assert table.loc[MEAN_ROW, "release"] == 75.0
    assert table.loc[MEAN_ROW, "generated"] == pytest.approx((100 + 200 / 3) / 2)
    assert table.loc[MEAN_ROW, "difference"] == pytest.approx(table.loc[MEAN_ROW, "generated"] - 75.0)
