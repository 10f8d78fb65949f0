"""A seeded template generator of BLiMP paradigms (morphology, argument structure, s-selection, quantifiers,
NPI licensing and scope, ellipsis, filler-gap dependencies, control/raising, binding, islands) over our own typed
lexicon.

``generate(uid, n, seed)`` gives ``n`` fresh minimal pairs of one of the release's 18 morphology, 7
argument-structure, 2 s-selection, 4 quantifier, 5 NPI-licensing, 2 ellipsis, 7 filler-gap, 2 NPI-scope, 5
control/raising, 7 binding and 8 island paradigms (``GENERATED``: all 67) as release records (the jsonl schema
``dataset.build_blimp`` reads), the same for the same arguments; ``check_against_release`` compares their
structure with the release's pairs.
The release's own generator is not used (it is unseeded and unlicensed): the templates, lexicon and
checks here are this project's.
"""

from lmprobes.suites.blimp.generator.check import CheckReport, check_against_release
from lmprobes.suites.blimp.generator.core import GENERATED, SPECS, GeneratorError, generate, release_sentences, to_jsonl
from lmprobes.suites.blimp.generator.lexicon import DEFAULT_LEXICON, Lexicon, LexiconError, load_lexicon

__all__ = ["DEFAULT_LEXICON", "GENERATED", "SPECS", "CheckReport", "GeneratorError", "Lexicon", "LexiconError",
           "check_against_release", "generate", "load_lexicon", "release_sentences", "to_jsonl"]
