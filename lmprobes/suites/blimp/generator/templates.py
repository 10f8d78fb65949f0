"""One template per generated BLiMP paradigm: the sentence shape of the release's pairs, filled from our lexicon.

Each builder returns a ``Pair``: the words before the critical word(s) (``prefix_good``/``prefix_bad``,
equal for one-prefix paradigms), the critical word(s) (``word_good``/``word_bad``, equal for two-prefix
paradigms) and the words after. The shapes, read off the release's rows (``spec/BLIMP.md``):

- determiner_noun_agreement_{1,2,irregular_1,irregular_2}: "<subject> <verb> <this|that|these|those> <noun>.";
  _1: the noun's number is wrong (one-prefix on the noun); _2: the demonstrative's (two-prefix);
  ..._with_adjective_1 / _with_adj_2 / _with_adj_irregular_{1,2}: the same with an adjective before the noun;
- regular/irregular_plural_subject_verb_agreement_1: "<subject> <verb> ..." with the wrong number on the
  first verb word (one-prefix on it); _2: "The <noun> <verb> ...", the noun's number wrong (two-prefix);
- distractor_agreement_relational_noun: "<det> <noun> of|about <NP of the other number> <verb> ...";
  distractor_agreement_relative_clause: "<det> <noun> who|that <verb> <NP of the other number> <verb> ...";
  the second verb's number is wrong (``dependency_length``: see ``relational`` and ``relative_clause``);
- irregular_past_participle_adjectives: "The <participle> <noun> <be> <adjective>." with the simple past
  instead of the participle (two-prefix on the noun);
- irregular_past_participle_verbs: "<subject> <past> ..." with the participle instead (one-prefix);
- anaphor_gender_agreement / anaphor_number_agreement: "<subject> <verb> <reflexive>." with a reflexive of
  the wrong gender (or itself) / number.

Argument structure (no prefix fields in the release but ``transitive``'s; the good and the bad verb share
their frame, "had broken" / "had arrived"; ``Pair`` puts the verb group in ``word_good``/``word_bad``):

- causative: "<agent> <verb> <object>." with a verb that alternates (``inchoative``), its object of an
  inchoative class / a verb that takes no object (valency ``none``);
- inchoative: "<theme> <verb>." with an alternating verb used intransitively / one whose object is
  ``required``;
- intransitive: "<subject> <verb>." with a verb without an object / one whose object is ``required``;
- drop_argument: "<subject> <verb>." with a verb whose object is ``optional`` / ``required``;
- transitive: "<subject> <verb> <object>." with a verb that takes the object / one of valency ``none``
  (two-prefix: the verb groups are the prefixes' ends, the object's first word the word);
- passive_1 / passive_2: "<subject> <be> <participle> by <agent>." / "<subject> <be> <participle>." with
  a passivisable verb (``passive``) whose object the subject is / the participle of a ``none`` verb.

S-selection (field "syntax"), quantifiers and NPI licensing (field "semantics"):

- animate_subject_passive: "<subject> <be> <participle> by the|some <noun>." with a verb only animate beings
  can be the subject of (``_animate_only``: animate subject classes, not in ``INANIMATE_CAUSES``, no
  inchoative), the agent animate / inanimate (one-prefix on the agent noun);
- animate_subject_trans: "<subject> <verb group> <object>." with such a verb, an animate / inanimate subject
  of the same number (two-prefix: the subjects, then the verb group's first word);
- existential_there_quantifiers_1: "There <be> <a|some|no|many|few> <noun> <gerund> ..." / with
  each|every|all|most instead; _2: "<each|every|all|most> <noun> <be> there <gerund> ..." / "There <be>
  <quantifier> <noun> <gerund> ..." (the words before the gerund reordered);
- superlative_quantifiers_1: "No <noun> <verb group> fewer than|more than <numeral> <nouns>." / at most|at
  least (``crucial_item``); _2: "<det> <noun> <verb group> at most|at least ..." / "No <noun> ..."
  (two-prefix on "most" / "least");
- npi_present_1 / _2: "[Even] <subject> [<auxiliary>] really|also|often|certainly|clearly <verb> ..." / with
  "ever" (one-prefix); only_npi_licensor_present: "Only ... ever ..." / "Even ... ever ..."; and
  sentential_negation_npi_licensor_present: "<subject> <auxiliary> not ever ..." / probably|really|fortunately
  instead of "not" (two-prefix, the word "ever"); matrix_question_npi_licensor_present: "<Auxiliary> <subject>
  ever ...?" / "<Subject> <auxiliary> ever ..." (two-prefix, the word "ever"; the good sentence ends in "?",
  ``Pair.end_good``; lexically identical).

Ellipsis and filler-gap dependencies (field "syntax"; whole sentences in ``word_good``/``word_bad``, no prefix
method; the noun phrases where the sentences differ are short, ``_short_np``, as nearly all the release's):

- ellipsis_n_bar_1: "<subject> <verb group> <Q> <adjective> <noun> and <subject> <verb group> <Q'>." / the
  adjective moved after <Q'> (an elided noun after an adjective with no antecedent); ellipsis_n_bar_2:
  "... <Q> <noun> and ... <Q'> <adjective'> <noun>." / "... <Q> <adjective> <noun> and ... <Q'> <adjective'>.";
- wh_questions_object_gap: "<matrix> <NP> that <subject> <verb group>." / "<matrix> who|what <subject> <verb
  group> <NP>." (the relative's object gap / a question with its object there); wh_questions_subject_gap:
  "<matrix> <NP> that <verb group> <object>." / "<matrix> who|what <NP> <verb group> <object>.";
  _long_distance: "<matrix> <NP> that <subject> <verb group> that <verb group> <object>." / "<matrix>
  who|what <NP> that <subject> <verb group> <verb group> <object>.";
- wh_vs_that_no_gap: "<matrix> that <subject> <verb group> <object>." / who|what instead of "that";
  wh_vs_that_with_gap: "<matrix> who|what <subject> <verb group>." (a verb whose object is ``required``) /
  "that" instead; the _long_distance ones: the same with a subject relative clause on <subject>.
  <matrix> is a person and a verb of ``QUESTION_VERBS`` / ``CLAUSE_VERBS``; the wh-word is "who" for a person.

NPI scope and control/raising (field "syntax_semantics"; no determiner that licenses "ever", no negation after
every / all):

- only_npi_scope: "Only <head> that|who <subject> <verb group> [<auxiliary>] ever ..." / "<Head> that|who only
  <subject> ..." (an object relative on the matrix subject; two-prefix, the word "ever"; "only" moved);
  sentential_negation_npi_scope: "<head> that|who <auxiliary> <verb> <object> <auxiliary> not ever ..." /
  "... <auxiliary> not <verb> <object> <auxiliary> ever ..." (a subject relative; "not" moved);
- tough_vs_raising_1: "<subject> <be> <tough adjective> to <verb> [<particle>]." (a verb whose object is
  ``required``, the subject its object) / a raising adjective; tough_vs_raising_2: "<subject> <be> <raising
  adjective> to <verb> <object>." / a tough adjective; existential_there_subject_raising: "There <be> <raising
  adjective> to be <weak quantifier> <noun> <gerund> ..." / a control adjective (``TOUGH_ADJECTIVES``,
  ``RAISING_ADJECTIVES``, ``CONTROL_ADJECTIVES``; no prefix method, one word differs);
  existential_there_object_raising: "<subject> <verb group> there to be <weak quantifier> <noun> <gerund> ..." with
  a raising-to-object verb / an object-control verb in the same frame (two-prefix: the verb groups, the word
  "there"); expletive_it_object_raising: "<subject> <verb group> it to be <adjective> that <clause>." likewise
  (two-prefix: the prefixes end in "it to be", the word the adjective; ``OBJECT_RAISING_VERBS``,
  ``OBJECT_CONTROL_VERBS``, ``CLAUSE_ADJECTIVES``).

Binding (field "syntax_semantics"; principle_A_case_2's release file, and so its generated rows, carry
"syntax/semantics"). Persons only, two of them always of another gender or number (``agreement``); the verbs of
saying and picturing are closed lists (``SAY_VERBS``, ``THAT_DROP_VERBS``, ``PICTURE_VERBS``), the embedded verbs
the lexicon's with a person subject and a person object (a natural reflexive one where a reflexive is the object):

- principle_A_case_1: "<antecedent> <say verb group> that he|she|they <verb group> <object>." / the reflexive
  instead of the pronoun (one-prefix on it); principle_A_case_2: "<antecedent> <verb group of imagine, think
  about, ...> <reflexive> <gerund> <object>." / the past or present form instead of the gerund (one-prefix);
- principle_A_c_command: "<head> who|that <verb group> <person> <verb group> <reflexive>." the reflexive agreeing
  with the head / with the relative clause's object (one-prefix on the reflexive);
- principle_A_domain_1: "<antecedent> <say verb group> that <subject> <verb group> him|her|them." / the
  antecedent's reflexive; principle_A_domain_2: "<subject> <say verb group> <subject'> <verb group>
  <reflexive>." (no "that") the reflexive of subject' / of the matrix subject (one-prefix on the object);
  principle_A_domain_3: "<name> <say verb group> <name'> <verb group> <reflexive of name'>." / the names swapped
  (two-prefix, the word the reflexive; lexically identical);
- principle_A_reconstruction: "It's <reflexive> that|who <subject> <verb group>." / "It's <reflexive> that|who
  <verb group> <subject>." (the subject moved; lexically identical, no prefix method).

Island effects (field "syntax"; questions: "<wh> <auxiliary> <subject> <verb> ...?", the auxiliary agreeing with
every subject it stands for, ``_auxiliary``; a phrase moved over the words after it, ``_swapped_order``):

- adjunct_island: "<wh> <aux> <subject> <verb> after|before|while|without <gerund> <object>?" / the object
  before the adjunct (the wh-word's gap in the adjunct);
- complex_NP_island: "Who <aux> <NP> that|who <verb group> <NP'> <verb>?" / "Who <aux> <NP'> <verb> <NP>
  that|who <verb group>?" (the gap in the relative clause);
- coordinate_structure_constraint_complex_left_branch: "<wh-determiner> <noun> <aux> <subject> <verb> and
  <subject'> <verb'>?" / the noun after the first verb (two-prefix: the prefixes end in "and", the word the second
  subject); coordinate_structure_constraint_object_extraction: "<wh> <aux> <subject> and <subject'> <verb>?" /
  "<wh> <aux> <subject> <verb> and <subject'>?";
- left_branch_island_echo_question: "<subject> <aux> <verb> <wh-determiner> <noun>?" / "<wh-determiner> <aux>
  <subject> <verb> <noun>?" (two-prefix, the word the noun); left_branch_island_simple_question: "<wh-determiner>
  <noun> <aux> <subject> <verb>?" / the noun after the verb;
- sentential_subject_island: "Who <aux> <possessor>'s <gerund> <object> <verb>." / "Who <aux> <possessor>'s
  <gerund> <verb> <object>." (the release's final periods);
- wh_island: "<wh> <aux> <subject> <verb of ``CLAUSE_VERBS``> he|she|they <verb group>?" / "who" instead of
  the pronoun (one-prefix on it).
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass
from functools import cached_property

from lmprobes.suites.blimp.generator.grammar import (
    COPULAS,
    DEMONSTRATIVES,
    MODALS,
    NEGATIVE_MODALS,
    NP,
    NUMBERS,
    OTHER,
    PERFECT,
    REFLEXIVES,
    SUBJECT_DETERMINERS,
    SWAP_DEMONSTRATIVE,
    VP,
    DeadEnd,
    Draw,
    article,
    name_phrase,
    noun_phrase,
    object_phrase,
    passive_auxiliary,
    subject_phrase,
    verb_phrase,
    verb_phrases,
    words,
)
from lmprobes.suites.blimp.generator.lexicon import ANIMATE, CLASSES, Adjective, Lexicon, Name, Noun, Verb

# Determiners of a relational noun and of the NP after it ("most" reads oddly on a singular head).
HEAD_DETERMINERS = {"sg": ("the", "a", "this", "that"), "pl": ("the", "these", "those", "some", "many")}
ATTRACTOR_DETERMINERS = {"sg": ("the", "a", "this", "that"),
                         "pl": ("the", "these", "those", "some", "many", "most", "all", "")}
# What a relational noun's complement may be.
RELATION_CLASSES = {
    "of_person": frozenset({"person"}),
    "of": frozenset({"person", "animal", "artifact", "clothing", "vehicle", "place", "food", "plant"}),
    "about": frozenset({"person", "animal", "place", "organization", "abstract", "food", "plant", "vehicle"}),
}
RELATIVE_HEADS = frozenset({"person", "animal", "organization"})


@dataclass(frozen=True)
class Pair:
    prefix_good: tuple[str, ...]
    prefix_bad: tuple[str, ...]
    word_good: tuple[str, ...]
    word_bad: tuple[str, ...]
    rest: tuple[str, ...] = ()
    dependency_length: int | None = None
    crucial_item: str = ""  # the release's ``crucial_item`` (superlative quantifiers)
    end_good: str = "."  # the sentences' final marks ("?": matrix_question_npi_licensor_present's good questions)
    end_bad: str = "."


class Pools:
    """The lexicon's candidate lists, each computed once per generation run (in lexicon order)."""

    def __init__(self, lexicon: Lexicon) -> None:
        self.lexicon = lexicon
        self._memo: dict[tuple, tuple] = {}

    def _once(self, key: tuple, make: Callable[[], Iterable]) -> tuple:
        if key not in self._memo:
            self._memo[key] = tuple(make())
        return self._memo[key]

    def objects_of(self, cls: str) -> tuple[Verb, ...]:
        """Verbs taking an object of ``cls``."""
        return self._once(("objects_of", cls), lambda: (v for v in self.lexicon.verbs if cls in v.object))

    def transitive_for(self, cls: str) -> tuple[Verb, ...]:
        """Verbs with a transitive use whose subject may be of ``cls``."""
        return self._once(("transitive_for", cls), lambda: self.lexicon.transitive_verbs(subj_cls=cls))

    def subjects_of(self, cls: str) -> tuple[Verb, ...]:
        """Verbs with a use (transitive or intransitive) whose subject may be of ``cls``."""
        return self._once(("subjects_of", cls), lambda: (
            v for v in self.lexicon.verbs if (v.object - {"self"} and cls in v.subject) or cls in v.intransitive))

    def adjectives_for(self, cls: str) -> tuple[Adjective, ...]:
        return self._once(("adjectives_for", cls), lambda: self.lexicon.adjectives_for(cls))

    def object_nouns(self, irregular: bool, adjective: bool) -> tuple[Noun, ...]:
        """Count nouns (regular or irregular plural) some verb takes as object (and some adjective describes)."""
        return self._once(("object_nouns", irregular, adjective), lambda: (
            n for n in self.lexicon.count_nouns if n.irregular == irregular and self.objects_of(n.cls)
            and (not adjective or self.adjectives_for(n.cls))))

    def subject_nouns(self, irregular: bool) -> tuple[Noun, ...]:
        """Count nouns (regular or irregular plural) that are the subject of some verb."""
        return self._once(("subject_nouns", irregular), lambda: (
            n for n in self.lexicon.count_nouns if n.irregular == irregular and self.subjects_of(n.cls)))

    def gendered(self, gender: str) -> tuple[Noun, ...]:
        return self._once(("gendered", gender), lambda: (
            n for n in self.lexicon.count_nouns if n.cls == "person" and n.gender == gender))

    def names(self, gender: str) -> tuple[Name, ...]:
        return self._once(("names", gender), lambda: (n for n in self.lexicon.names if n.gender == gender))

    def nouns_of(self, classes: frozenset[str]) -> tuple[Noun, ...]:
        """Nouns (count or mass) of ``classes``."""
        return self._once(("nouns_of", *sorted(classes)), lambda: (
            n for n in self.lexicon.nouns if n.cls in classes))

    def of_valency(self, valency: str) -> tuple[Verb, ...]:
        return self._once(("of_valency", valency), lambda: (v for v in self.lexicon.verbs if v.valency == valency))

    @cached_property
    def alternating(self) -> tuple[Verb, ...]:
        """Verbs of the causative / inchoative alternation."""
        return tuple(v for v in self.lexicon.verbs if v.inchoative)

    @cached_property
    def without_object(self) -> tuple[Verb, ...]:
        """Verbs with an intransitive use and no object."""
        return tuple(v for v in self.lexicon.verbs if not v.object and v.intransitive)

    @cached_property
    def with_object(self) -> tuple[Verb, ...]:
        return tuple(v for v in self.lexicon.verbs if v.object - {"self"})

    @cached_property
    def passivisable(self) -> tuple[Verb, ...]:
        return tuple(v for v in self.lexicon.verbs if v.passive)

    @cached_property
    def persons(self) -> tuple[Noun, ...]:
        return tuple(n for n in self.lexicon.count_nouns if n.cls == "person")

    @cached_property
    def reflexive_verbs(self) -> tuple[Verb, ...]:
        return tuple(v for v in self.lexicon.verbs if "self" in v.object)

    @cached_property
    def participle_verbs(self) -> tuple[Verb, ...]:
        """Verbs whose participle differs from both their past and base form (broke/broken, not came/come)."""
        return tuple(v for v in self.lexicon.verbs if v.participle not in (v.past, v.base))

    @cached_property
    def adjectival_verbs(self) -> tuple[Verb, ...]:
        return tuple(v for v in self.participle_verbs if v.adjectival)

    @cached_property
    def animate_passive(self) -> tuple[Verb, ...]:
        """Passivisable verbs whose subjects are all animate ("respect", not "damage")."""
        return tuple(v for v in self.passivisable if _animate_only(v))

    @cached_property
    def animate_transitive(self) -> tuple[Verb, ...]:
        """Verbs with an object whose subjects are all animate."""
        return tuple(v for v in self.with_object if _animate_only(v))

    @cached_property
    def inanimate_nouns(self) -> tuple[Noun, ...]:
        return tuple(n for n in self.lexicon.count_nouns if n.cls in INANIMATE)

    def active_for(self, cls: str) -> tuple[Verb, ...]:
        """Non-stative verbs with a use whose subject may be of ``cls`` (they have a progressive)."""
        return self._once(("active_for", cls), lambda: (v for v in self.subjects_of(cls) if not v.stative))

    @cached_property
    def active_nouns(self) -> tuple[Noun, ...]:
        """Count nouns that are the subject of some non-stative verb."""
        return tuple(n for n in self.lexicon.count_nouns if self.active_for(n.cls))

    @cached_property
    def counting_verbs(self) -> tuple[Verb, ...]:
        """Verbs with an object of count nouns and a subject of single-word count nouns ("No girl attacked
        fewer than two waiters")."""
        return tuple(v for v in self.with_object
                     if any(n.countable and " " not in n.singular for n in self.nouns_of(v.subject))
                     and any(n.countable for n in self.nouns_of(v.object - {"self"})))

    def short_nouns(self, classes: frozenset[str]) -> tuple[Noun, ...]:
        """Count nouns of ``classes`` whose singular and plural are one word each."""
        return self._once(("short_nouns", *sorted(classes)), lambda: (
            n for n in self.nouns_of(classes) if n.countable and " " not in n.singular + n.plural))

    def labelled(self, labels: Sequence[str]) -> tuple[Verb, ...]:
        """The verbs whose label ("think about") is one of ``labels``, in lexicon order."""
        return self._once(("labelled", *labels), lambda: (v for v in self.lexicon.verbs if v.label in labels))

    @cached_property
    def ellipsis_verbs(self) -> tuple[Verb, ...]:
        """Verbs with a subject of count nouns and an object of count nouns some adjective describes."""
        return tuple(v for v in self.with_object if any(n.countable for n in self.nouns_of(v.subject))
                     and any(n.countable and self.adjectives_for(n.cls) for n in self.nouns_of(v.object - {"self"})))

    @cached_property
    def relational_nouns(self) -> tuple[Noun, ...]:
        return tuple(n for n in self.lexicon.count_nouns if n.relation and self.subjects_of(n.cls))

    @cached_property
    def relative_heads(self) -> tuple[Noun, ...]:
        return tuple(n for n in self.lexicon.count_nouns if n.cls in RELATIVE_HEADS
                     and self.subjects_of(n.cls) and self.transitive_for(n.cls))

    @cached_property
    def event_verbs(self) -> tuple[Verb, ...]:
        """Verbs with a person object whose subject may be an event, as a gerund clause is ("the patients'
        cleaning the banks upset Mary"): those whose subjects include abstract nouns."""
        return tuple(v for v in self.with_object if "abstract" in v.subject and "person" in v.object)

    @cached_property
    def scope_heads(self) -> tuple[Noun, ...]:
        """Count nouns that are the object of some verb and the subject of some verb (the heads of
        only_npi_scope's object relatives) and the subject of some verb with an object (sentential_negation_npi_scope's
        subject relatives)."""
        return tuple(n for n in self.lexicon.count_nouns
                     if self.objects_of(n.cls) and self.subjects_of(n.cls) and self.transitive_for(n.cls))



def _animate_only(verb: Verb) -> bool:
    """Only an animate being can be ``verb``'s subject (s-selection)."""
    return (bool(verb.subject) and verb.subject <= ANIMATE and not verb.inchoative
            and verb.label not in INANIMATE_CAUSES)


def predicate(draw: Draw, pools: Pools, subject: NP, *, transitive_only: bool = False) -> tuple[VP, tuple[str, ...]]:
    """A verb for ``subject`` in an agreeing frame (``vp.tokens[0]`` agrees), and its object's words if it is
    used transitively (always, with ``transitive_only``)."""
    verb = draw.pick(pools.transitive_for(subject.cls) if transitive_only else pools.subjects_of(subject.cls))
    transitive = bool(verb.object - {"self"}) and subject.cls in verb.subject
    if transitive and subject.cls in verb.intransitive and not transitive_only:
        transitive = draw.chance(0.7)
    vp = verb_phrase(draw, verb, subject.number, agreeing=True, negation=not subject.universal)
    return vp, object_phrase(draw, pools.lexicon, verb.object).tokens if transitive else ()


# --- determiner-noun agreement ---

def determiner_noun(*, irregular: bool, adjective: bool, two_prefix: bool) -> Callable[[Draw, Pools], Pair]:
    def build(draw: Draw, pools: Pools) -> Pair:
        noun = draw.pick(pools.object_nouns(irregular, adjective))
        verb = draw.pick(pools.objects_of(noun.cls))
        subject = subject_phrase(draw, pools.lexicon, draw.pick(NUMBERS), verb.subject)
        vp = verb_phrase(draw, verb, subject.number, negation=not subject.universal)
        number = draw.pick(NUMBERS)
        det = draw.pick(DEMONSTRATIVES[number])
        adj = (draw.pick(pools.adjectives_for(noun.cls)).word,) if adjective else ()
        head = (*subject.tokens, *vp.tokens)
        if two_prefix:
            word = words(noun.form(number))
            return Pair((*head, det, *adj), (*head, SWAP_DEMONSTRATIVE[det], *adj), word, word)
        prefix = (*head, det, *adj)
        return Pair(prefix, prefix, words(noun.form(number)), words(noun.form(OTHER[number])))

    return build


# --- subject-verb agreement ---

def subject_verb(*, irregular: bool, two_prefix: bool, transitive_only: bool = False) -> Callable[[Draw, Pools], Pair]:
    """``transitive_only``: the verb always has an object (regular_plural_subject_verb_agreement_1's release
    pairs never end at the verb)."""

    def build(draw: Draw, pools: Pools) -> Pair:
        number = draw.pick(NUMBERS)
        nouns = pools.subject_nouns(irregular)
        if two_prefix:
            noun = draw.pick(nouns)
            good, bad = ("the", *words(noun.form(number))), ("the", *words(noun.form(OTHER[number])))
            vp, obj = predicate(draw, pools, NP(good, number, noun.cls, noun.gender))
            return Pair(good, bad, vp.tokens[:1], vp.tokens[:1], (*vp.tokens[1:], *obj))
        if not irregular and number == "sg" and draw.chance(0.3):
            subject = name_phrase(draw.pick(pools.lexicon.names))
        else:
            subject = noun_phrase(draw, draw.pick(nouns), number, SUBJECT_DETERMINERS[number])
        vp, obj = predicate(draw, pools, subject, transitive_only=transitive_only)
        return Pair(subject.tokens, subject.tokens, vp.tokens[:1], (vp.other,), (*vp.tokens[1:], *obj))

    return build


def relational(draw: Draw, pools: Pools) -> Pair:
    """"The sketch of those trucks hasn't ...": ``dependency_length`` is the number of words before the verb
    (as in the release)."""
    head_noun = draw.pick(pools.relational_nouns)
    number = draw.pick(NUMBERS)
    head = noun_phrase(draw, head_noun, number, HEAD_DETERMINERS[number])
    classes = RELATION_CLASSES[head_noun.relation]
    other = OTHER[number]
    if other == "sg" and "person" in classes and draw.chance(0.3):
        attractor = name_phrase(draw.pick(pools.lexicon.names))
    else:
        nouns = [n for n in pools.lexicon.nouns if n.cls in classes and n is not head_noun
                 and (n.countable or (other == "sg" and head_noun.relation == "about"))]
        attractor = noun_phrase(draw, draw.pick(nouns), other, ATTRACTOR_DETERMINERS[other])
    vp, obj = predicate(draw, pools, head)
    prefix = (*head.tokens, "about" if head_noun.relation == "about" else "of", *attractor.tokens)
    return Pair(prefix, prefix, vp.tokens[:1], (vp.other,), (*vp.tokens[1:], *obj), dependency_length=len(prefix))


def relative_clause(draw: Draw, pools: Pools) -> Pair:
    """"This customer who had visited most children has ...": ``dependency_length`` counts the words from
    the relative pronoun to the verb (as in the release)."""
    head_noun = draw.pick(pools.relative_heads)
    number = draw.pick(NUMBERS)
    head = noun_phrase(draw, head_noun, number, SUBJECT_DETERMINERS[number])
    pronoun = "who" if head.cls == "person" and draw.chance(0.5) else "that"
    inner = draw.pick(pools.transitive_for(head.cls))
    inner_vp = verb_phrase(draw, inner, number, negation=not head.universal)
    attractor = object_phrase(draw, pools.lexicon, inner.object, number=OTHER[number])
    vp, obj = predicate(draw, pools, head)
    clause = (pronoun, *inner_vp.tokens, *attractor.tokens)
    prefix = (*head.tokens, *clause)
    return Pair(prefix, prefix, vp.tokens[:1], (vp.other,), (*vp.tokens[1:], *obj), dependency_length=len(clause))


# --- irregular forms ---

def participle_adjective(draw: Draw, pools: Pools) -> Pair:
    verb = draw.pick(pools.adjectival_verbs)
    classes = (verb.object - {"self"}) or verb.intransitive
    nouns = [n for n in pools.lexicon.count_nouns if n.cls in classes and pools.adjectives_for(n.cls)]
    noun = draw.pick(nouns)
    number = draw.pick(NUMBERS)
    adjective = draw.pick([a for a in pools.adjectives_for(noun.cls) if a.word != verb.participle])
    word = words(noun.form(number))
    return Pair(("the", verb.participle), ("the", verb.past), word, word, (draw.pick(COPULAS[number]), adjective.word))


def participle_verb(draw: Draw, pools: Pools) -> Pair:
    verb = draw.pick(pools.participle_verbs)
    uses = ([True] if verb.object - {"self"} else []) + ([False] if verb.intransitive else [])
    transitive = draw.pick(uses)
    classes = verb.subject if transitive else verb.intransitive
    subject = subject_phrase(draw, pools.lexicon, draw.pick(NUMBERS), classes)
    particle = (verb.particle,) if verb.particle else ()
    obj = object_phrase(draw, pools.lexicon, verb.object).tokens if transitive else ()
    return Pair(subject.tokens, subject.tokens, (verb.past,), (verb.participle,), (*particle, *obj))


# --- anaphor agreement ---

def _gendered_subject(draw: Draw, pools: Pools, gender: str):
    if draw.chance(0.6):
        return name_phrase(draw.pick(pools.names(gender)))
    return noun_phrase(draw, draw.pick(pools.gendered(gender)), "sg", SUBJECT_DETERMINERS["sg"])


def anaphor_gender(draw: Draw, pools: Pools) -> Pair:
    gender = draw.pick(("f", "m"))
    subject = _gendered_subject(draw, pools, gender)
    vp = verb_phrase(draw, draw.pick(pools.reflexive_verbs), "sg", negation=not subject.universal)
    prefix = (*subject.tokens, *vp.tokens)
    bad = draw.pick((REFLEXIVES["m" if gender == "f" else "f"], REFLEXIVES["n"]))
    return Pair(prefix, prefix, (REFLEXIVES[gender],), (bad,))


def anaphor_number(draw: Draw, pools: Pools) -> Pair:
    number = draw.pick(NUMBERS)
    if number == "sg":
        gender = draw.pick(("f", "m"))
        subject = _gendered_subject(draw, pools, gender)
        good, bad = REFLEXIVES[gender], REFLEXIVES["pl"]
    else:
        subject = noun_phrase(draw, draw.pick(pools.persons), "pl", SUBJECT_DETERMINERS["pl"])
        good, bad = REFLEXIVES["pl"], draw.pick((REFLEXIVES["f"], REFLEXIVES["m"], REFLEXIVES["n"]))
    vp = verb_phrase(draw, draw.pick(pools.reflexive_verbs), number, negation=not subject.universal)
    prefix = (*subject.tokens, *vp.tokens)
    return Pair(prefix, prefix, (good,), (bad,))


# --- argument structure ---

def _subject_of(draw: Draw, pools: Pools, classes: frozenset[str]) -> NP:
    """A subject of one of ``classes``: a name (persons, sometimes) or a determiner and a noun (count or mass)."""
    number = draw.pick(NUMBERS)
    if number == "sg" and "person" in classes and draw.chance(0.3):
        return name_phrase(draw.pick(pools.lexicon.names))
    return noun_phrase(draw, draw.pick(pools.nouns_of(classes)), number, SUBJECT_DETERMINERS[number])


def _bad_verb(draw: Draw, pools: Pools, valency: str, subject: NP, good: Verb) -> Verb:
    """A verb of ``valency`` (not ``good``'s lemma), one that takes ``subject``'s class where there is one."""
    verbs = [v for v in pools.of_valency(valency) if v.base != good.base]
    fitting = [v for v in verbs if subject.cls in v.subject | v.intransitive]
    return draw.pick(fitting or verbs)


def _two_verbs(draw: Draw, subject: NP, good: Verb, bad: Verb) -> tuple[tuple[str, ...], tuple[str, ...]]:
    vp_good, vp_bad = verb_phrases(draw, (good, bad), subject.number, negation=not subject.universal)
    return vp_good.tokens, vp_bad.tokens


def argument_frame(*, good_verbs: Callable[[Pools], Sequence[Verb]], subjects: Callable[[Verb], frozenset[str]],
                   bad_valency: str, with_object: bool = False) -> Callable[[Draw, Pools], Pair]:
    """causative, inchoative, intransitive and drop_argument: "<subject> <verb group> [<object>]." with a
    good verb from ``good_verbs`` (its subject of ``subjects(verb)``; with ``with_object``, an object of its
    inchoative classes) and a bad verb of ``bad_valency`` in the same frame."""

    def build(draw: Draw, pools: Pools) -> Pair:
        good = draw.pick(good_verbs(pools))
        subject = _subject_of(draw, pools, subjects(good))
        bad = _bad_verb(draw, pools, bad_valency, subject, good)
        word_good, word_bad = _two_verbs(draw, subject, good, bad)
        obj = object_phrase(draw, pools.lexicon, good.inchoative).tokens if with_object else ()
        if obj == subject.tokens:
            raise DeadEnd("the object repeats the subject")
        return Pair(subject.tokens, subject.tokens, word_good, word_bad, obj)

    return build


causative = argument_frame(good_verbs=lambda pools: pools.alternating, subjects=lambda verb: verb.subject,
                           bad_valency="none", with_object=True)
inchoative = argument_frame(good_verbs=lambda pools: pools.alternating, subjects=lambda verb: verb.inchoative,
                            bad_valency="required")
intransitive = argument_frame(good_verbs=lambda pools: pools.without_object, subjects=lambda verb: verb.intransitive,
                              bad_valency="required")
drop_argument = argument_frame(good_verbs=lambda pools: pools.of_valency("optional"),
                               subjects=lambda verb: verb.subject & verb.intransitive, bad_valency="required")


def transitive(draw: Draw, pools: Pools) -> Pair:
    """"Diane watched Alan." / "Diane sneezed Alan.": two-prefix, the object's first word the word."""
    good = draw.pick(pools.with_object)
    subject = _subject_of(draw, pools, good.subject)
    bad = _bad_verb(draw, pools, "none", subject, good)
    word_good, word_bad = _two_verbs(draw, subject, good, bad)
    obj = object_phrase(draw, pools.lexicon, good.object).tokens
    if obj == subject.tokens:
        raise DeadEnd("the object repeats the subject")
    return Pair((*subject.tokens, *word_good), (*subject.tokens, *word_bad), obj[:1], obj[:1], obj[1:])


def passive(*, agent: bool) -> Callable[[Draw, Pools], Pair]:
    """passive_1 (``agent``: "... by <agent>") and passive_2: the subject is of the good verb's object
    classes, the agent of its subject classes; the bad participle is a ``none`` verb's."""

    def build(draw: Draw, pools: Pools) -> Pair:
        good = draw.pick(pools.passivisable)
        subject = _subject_of(draw, pools, good.object - {"self"})
        bad = _bad_verb(draw, pools, "none", subject, good)
        prefix = (*subject.tokens, *passive_auxiliary(draw, subject.number, negation=not subject.universal))
        rest: tuple[str, ...] = ()
        if agent:
            by = object_phrase(draw, pools.lexicon, good.subject).tokens
            if by == subject.tokens:
                raise DeadEnd("the agent repeats the subject")
            rest = ("by", *by)
        return Pair(prefix, prefix, (good.participle,), (bad.participle,), rest)

    return build


# --- s-selection ---

# Noun classes that are never the agent of an animate-only verb (organizations, which can act, are left out).
INANIMATE = frozenset({"artifact", "clothing", "vehicle", "place", "text", "picture", "film", "food", "drink", "plant",
                       "abstract", "body"})
# Verbs whose lexicon subjects are all animate but which an inanimate cause or instrument can also be the
# subject of ("The shoe hurt Ann", "The bottle holds water", "The gas escaped from the tank", "The oven baked
# the bread"), with every verb of the causative alternation: no s-selection pair uses them.
INANIMATE_CAUSES = frozenset({
    "hurt", "reveal", "conceal", "hide", "hold", "move", "wake up", "cure", "heal", "shake", "lift", "tear", "clean",
    "wash", "drop", "feed", "bring", "take", "catch", "approach", "return to", "escape from", "drink", "cook", "bake",
    "teach", "photograph", "draw", "fix", "repair", "break"})
AGENT_DETERMINERS = {"sg": ("the",), "pl": ("the", "some")}


def animate_subject_passive(draw: Draw, pools: Pools) -> Pair:
    """"Amanda was respected by the waitresses." / "... by the pictures.": a passivisable verb whose
    subjects are all animate; the agent is one of them / an inanimate noun (one-prefix on the noun)."""
    verb = draw.pick(pools.animate_passive)
    subject = _subject_of(draw, pools, verb.object - {"self"})
    number = draw.pick(NUMBERS)
    # one-word nouns: the release's agents differ in one word, the sentences have as many words (988 of 1,000)
    good = draw.pick([n for n in pools.nouns_of(verb.subject) if n.countable and " " not in n.singular])
    bad = draw.pick([n for n in pools.inanimate_nouns if " " not in n.singular])
    if good.form(number) in subject.tokens:
        raise DeadEnd("the agent repeats the subject")
    prefix = (*subject.tokens, *passive_auxiliary(draw, subject.number, negation=not subject.universal),
              verb.participle, "by", draw.pick(AGENT_DETERMINERS[number]))
    return Pair(prefix, prefix, words(good.form(number)), words(bad.form(number)))


def animate_subject_trans(draw: Draw, pools: Pools) -> Pair:
    """"Tina revealed Margaret." / "The horse revealed Margaret.": a verb whose subjects are all animate,
    with one of them / an inanimate noun as subject (two-prefix: the subjects, then the verb group's first
    word)."""
    verb = draw.pick(pools.animate_transitive)
    good = _subject_of(draw, pools, verb.subject)
    # another determiner than the good subject's, never a demonstrative for a demonstrative (the release's
    # subjects differ in their noun, with or without the determiner, not in a demonstrative alone)
    determiners = [d for d in SUBJECT_DETERMINERS[good.number] if d != good.tokens[0].lower()
                   and not (d in SWAP_DEMONSTRATIVE and good.tokens[0].lower() in SWAP_DEMONSTRATIVE)]
    bad = noun_phrase(draw, draw.pick(pools.inanimate_nouns), good.number, determiners)
    vp = verb_phrase(draw, verb, good.number, negation=not (good.universal or bad.universal))
    obj = object_phrase(draw, pools.lexicon, verb.object).tokens
    if obj == good.tokens:
        raise DeadEnd("the object repeats the subject")
    return Pair(good.tokens, bad.tokens, vp.tokens[:1], vp.tokens[:1], (*vp.tokens[1:], *obj))


# --- quantifiers ---

# Existential "there": weak quantifiers are good after it, strong ones bad (by number; "a" becomes "an").
WEAK_QUANTIFIERS = {"sg": ("a",), "pl": ("some", "no", "many", "few")}
STRONG_QUANTIFIERS = {"sg": ("each", "every"), "pl": ("all", "most")}
NUMERALS = ("two", "three", "four", "five", "six", "seven", "eight", "nine", "ten")
# A comparative quantifier and the superlative one of the same meaning.
SUPERLATIVE = {"fewer than": "at most", "more than": "at least"}
SUPERLATIVE_DETERMINERS = ("the", "a", "this", "that", "some", "every", "each")


def _gerund_phrase(draw: Draw, pools: Pools, cls: str) -> tuple[str, ...]:
    """A progressive participle with its particle and object (if used transitively) for a subject of ``cls``."""
    verb = draw.pick(pools.active_for(cls))
    transitive = bool(verb.object - {"self"}) and cls in verb.subject
    if transitive and cls in verb.intransitive:
        transitive = draw.chance(0.6)
    if not transitive:
        return (verb.gerund,)
    particle = (verb.particle,) if verb.particle else ()
    return (verb.gerund, *particle, *object_phrase(draw, pools.lexicon, verb.object).tokens)


def _quantified(quantifier: str, noun: Noun, number: str) -> tuple[str, ...]:
    form = noun.form(number)
    return (*words(article(form) if quantifier == "a" else quantifier), *words(form))


def existential_there_1(draw: Draw, pools: Pools) -> Pair:
    """"There was a cat sleeping." / "There was each cat sleeping.": a weak quantifier / a strong one."""
    noun = draw.pick(pools.active_nouns)
    number = draw.pick(NUMBERS)
    good = draw.pick(WEAK_QUANTIFIERS[number])
    copulas = [c for c in COPULAS[number] if good in ("a", "many") or not c.endswith("n't")]
    prefix = ("there", draw.pick(copulas))
    gerund = _gerund_phrase(draw, pools, noun.cls)
    quantified = _quantified(good, noun, number)
    return Pair(prefix, prefix, quantified[:1], (draw.pick(STRONG_QUANTIFIERS[number]),), (*quantified[1:], *gerund))


def existential_there_2(draw: Draw, pools: Pools) -> Pair:
    """"Each cat was there sleeping." / "There was each cat sleeping.": a strongly quantified subject before
    "there" / after it (the words before the gerund differ)."""
    noun = draw.pick(pools.active_nouns)
    number = draw.pick(NUMBERS)
    quantifier = draw.pick(STRONG_QUANTIFIERS[number])
    subject = _quantified(quantifier, noun, number)
    # no negation after "every" / "all" (a scope puzzle, as everywhere in the generator)
    copula = draw.pick([c for c in COPULAS[number] if quantifier in ("each", "most") or not c.endswith("n't")])
    return Pair((), (), (*subject, copula, "there"), ("there", copula, *subject),
                _gerund_phrase(draw, pools, noun.cls))


def _superlative_frame(draw: Draw, pools: Pools) -> tuple[Noun, VP, tuple[str, ...], Noun]:
    """A single-word subject noun, its verb group (singular, not negated: "No ..." is its subject in one
    sentence), a numeral and a count noun the verb takes as object."""
    verb = draw.pick(pools.counting_verbs)
    subject = draw.pick([n for n in pools.nouns_of(verb.subject) if n.countable and " " not in n.singular])
    obj = draw.pick([n for n in pools.nouns_of(verb.object - {"self"}) if n.countable and n is not subject])
    return subject, verb_phrase(draw, verb, "sg", negation=False), (draw.pick(NUMERALS),), obj


def superlative_1(draw: Draw, pools: Pools) -> Pair:
    """"No girl attacked fewer than two waiters." / "No girl attacked at most two waiters.": under "no" a
    comparative quantifier / a superlative one (``crucial_item``: the superlative)."""
    subject, vp, numeral, obj = _superlative_frame(draw, pools)
    comparative = draw.pick(tuple(SUPERLATIVE))
    prefix = ("no", subject.singular, *vp.tokens)
    return Pair(prefix, prefix, words(comparative), words(SUPERLATIVE[comparative]),
                (*numeral, *words(obj.plural)), crucial_item=SUPERLATIVE[comparative])


def superlative_2(draw: Draw, pools: Pools) -> Pair:
    """"The teenager toured at most nine restaurants." / "No teenager toured at most ...": a superlative
    quantifier outside / inside the scope of "no" (two-prefix: the prefixes end at "at", the word is
    "most" or "least")."""
    subject, vp, numeral, obj = _superlative_frame(draw, pools)
    superlative = draw.pick(tuple(SUPERLATIVE.values()))
    det = draw.pick(SUPERLATIVE_DETERMINERS)
    det = article(subject.singular) if det == "a" else det
    at, word = words(superlative)
    good, bad = (det, subject.singular, *vp.tokens, at), ("no", subject.singular, *vp.tokens, at)
    if len(good) > 6:
        raise DeadEnd("a longer prefix than the release's")
    return Pair(good, bad, (word,), (word,), (*numeral, *words(obj.plural)), crucial_item=superlative)


# --- NPI licensing ---

# Subjects of the NPI paradigms: no quantifier that licenses or blocks "ever" ("no", "few", "every").
NPI_DETERMINERS = {"sg": ("the", "the", "this", "that"), "pl": ("the", "the", "these", "those", "")}
# Adverbs in "ever"'s place where nothing licenses it (npi_present), and before it where "not" would.
NPI_ADVERBS = ("really", "also", "often", "certainly", "clearly")
SENTENCE_ADVERBS = ("probably", "really", "fortunately")
DO_SUPPORT = {"sg": ("does", "did"), "pl": ("do", "did")}


def _npi_clause(draw: Draw, pools: Pools, *, auxiliary: bool | None, do_support: bool = False, short: bool = False
                ) -> tuple[NP, tuple[str, ...], tuple[str, ...]]:
    """A positive clause split where an adverb (or "ever") goes: its subject (a name, or a noun after
    ``NPI_DETERMINERS``), the auxiliary (has / had / a modal; does / did with ``do_support``; none for a
    simple present or past) and the verb with its particle and object. ``auxiliary``: True always one,
    False never, None either. ``short``: only one-word nouns."""
    if draw.chance(0.35):
        subject = name_phrase(draw.pick(pools.lexicon.names))
    else:
        number = draw.pick(NUMBERS)
        nouns = pools.subject_nouns(False) + pools.subject_nouns(True)
        if short:
            nouns = tuple(n for n in nouns if " " not in n.singular + n.plural)
        subject = noun_phrase(draw, draw.pick(nouns), number, NPI_DETERMINERS[number])
    vp, obj = predicate(draw, pools, subject)
    verb, number = vp.verb, subject.number
    kinds = (["simple"] if auxiliary is not True else []) + (["perfect", "modal"] if auxiliary is not False else [])
    kind = draw.pick(kinds + (["do"] if do_support and auxiliary is not False else []))
    particle = (verb.particle,) if verb.particle else ()
    if kind == "simple":
        aux: tuple[str, ...] = ()
        main = verb.present(number) if draw.chance(0.5) else verb.past
        if main == verb.past == verb.base:
            main = verb.present(number)  # "ever hurt" would read as a present after a plural
    elif kind == "perfect":
        aux, main = (draw.pick((PERFECT[number], "had")),), verb.participle
    elif kind == "modal":
        aux, main = (draw.pick(MODALS),), verb.base
    else:
        aux, main = (draw.pick(DO_SUPPORT[number]),), verb.base
    return subject, aux, (main, *particle, *obj)


def npi_present(*, even: bool) -> Callable[[Draw, Pools], Pair]:
    """npi_present_1 (``even``: "Even Suzanne has really joked.") and npi_present_2 ("Tamara really
    exited the mall."): an adverb / "ever" with nothing to license it (one-prefix on the adverb)."""

    def build(draw: Draw, pools: Pools) -> Pair:
        subject, aux, rest = _npi_clause(draw, pools, auxiliary=None)
        prefix = (*(("even",) if even else ()), *subject.tokens, *aux)
        return Pair(prefix, prefix, (draw.pick(NPI_ADVERBS),), ("ever",), rest)

    return build


def only_npi(draw: Draw, pools: Pools) -> Pair:
    """"Only Bill would ever complain." / "Even Bill would ever complain.": "only" licenses "ever", "even"
    does not (two-prefix: the prefixes end before "ever", after at most 3 words, as 86% of the release's)."""
    subject, aux, rest = _npi_clause(draw, pools, auxiliary=None)
    if len(subject.tokens) + len(aux) > 2:  # "Only Bill would", "Only the drivers": 86% of the release's
        raise DeadEnd("a longer prefix than most of the release's")
    return Pair(("only", *subject.tokens, *aux), ("even", *subject.tokens, *aux), ("ever",), ("ever",), rest)


def negation_npi(draw: Draw, pools: Pools) -> Pair:
    """"Teresa had not ever sold a car." / "Teresa had probably ever sold a car.": sentential negation
    licenses "ever", an adverb in its place does not (two-prefix: the prefixes end before "ever")."""
    subject, aux, rest = _npi_clause(draw, pools, auxiliary=True, do_support=True)
    prefix = (*subject.tokens, *aux)
    return Pair((*prefix, "not"), (*prefix, draw.pick(SENTENCE_ADVERBS)), ("ever",), ("ever",), rest)


def matrix_question(draw: Draw, pools: Pools) -> Pair:
    """"Had Bruce ever played?" / "Bruce had ever played.": a question licenses "ever", the statement with the
    same words does not (two-prefix: the auxiliary before / after the subject, the word "ever"; the good
    sentence ends in "?"). The subject is a name or has a one-word noun: the prefixes then differ in 2 or 3
    words, as 97% of the release's."""
    subject, aux, rest = _npi_clause(draw, pools, auxiliary=True, do_support=True, short=True)
    return Pair((*aux, *subject.tokens), (*subject.tokens, *aux), ("ever",), ("ever",), rest, end_good="?")


# --- NPI scope ---

# Determiners of the heads and subjects of the NPI-scope paradigms: none that licenses "ever" or makes a negation
# read as a scope puzzle (every, all, no, few).
SCOPE_DETERMINERS = {"sg": ("the", "the", "a", "this", "that"),
                     "pl": ("the", "the", "these", "those", "some", "many", "")}


def _scope_np(draw: Draw, nouns: Sequence[Noun], *, name: Sequence[Name] = ()) -> NP:
    """A name (from ``name``, sometimes) or a determiner of ``SCOPE_DETERMINERS`` and one of ``nouns``."""
    if name and draw.chance(0.35):
        return name_phrase(draw.pick(name))
    number = draw.pick(NUMBERS)
    return noun_phrase(draw, draw.pick(nouns), number, SCOPE_DETERMINERS[number])


def _auxiliary_group(draw: Draw, verb: Verb, number: str, kinds: Sequence[str]) -> tuple[tuple[str, ...],
                                                                                       tuple[str, ...]]:
    """``verb`` for a subject of ``number`` split where "not" or "ever" goes: the auxiliary (none for a
    ``simple`` present or past; has / have / had, a modal, does / do / did, or is / are / was / were before a
    gerund) and the main verb with its particle. The kind is drawn from ``kinds`` (no progressive of a stative
    verb)."""
    kind = draw.pick([k for k in kinds if not (k == "progressive" and verb.stative)])
    particle = (verb.particle,) if verb.particle else ()
    if kind == "simple":
        main = verb.present(number) if draw.chance(0.5) else verb.past
        if main == verb.past == verb.base:
            main = verb.present(number)  # "ever hurt" would read as a present after a plural
        return (), (main, *particle)
    if kind == "perfect":
        return (draw.pick((PERFECT[number], "had")),), (verb.participle, *particle)
    if kind == "modal":
        return (draw.pick(MODALS),), (verb.base, *particle)
    if kind == "do":
        return (draw.pick(DO_SUPPORT[number]),), (verb.base, *particle)
    return (draw.pick(COPULAS[number][:2]),), (verb.gerund, *particle)


def _relative_pronoun(draw: Draw, head: NP) -> str:
    return "who" if head.cls == "person" and draw.chance(0.5) else "that"


def _scope_predicate(draw: Draw, pools: Pools, subject: NP, kinds: Sequence[str]) -> tuple[tuple[str, ...],
                                                                                          tuple[str, ...]]:
    """The matrix predicate of ``subject``: its auxiliary (maybe none) and the rest (the verb, its particle
    and its object when it is used transitively)."""
    verb = draw.pick(pools.subjects_of(subject.cls))
    transitive = bool(verb.object - {"self"}) and subject.cls in verb.subject
    if transitive and subject.cls in verb.intransitive:
        transitive = draw.chance(0.7)
    aux, main = _auxiliary_group(draw, verb, subject.number, kinds)
    obj = object_phrase(draw, pools.lexicon, verb.object).tokens if transitive else ()
    if obj == subject.tokens:
        raise DeadEnd("the object repeats the subject")
    return aux, (*main, *obj)


def only_npi_scope(draw: Draw, pools: Pools) -> Pair:
    """"Only the doctors who Karla respects ever conceal snakes." / "The doctors who only Karla respects ever
    conceal snakes.": "only" on the subject licenses "ever" in the matrix predicate; on the subject of an object
    relative clause inside it, "ever" is outside its scope (two-prefix: the prefixes end before "ever";
    lexically identical, "only" moved)."""
    head = _scope_np(draw, pools.scope_heads)
    verb = draw.pick(pools.objects_of(head.cls))
    subject = _scope_np(draw, pools.short_nouns(verb.subject), name=pools.lexicon.names if "person" in verb.subject
                        else ())
    if set(subject.tokens) & set(head.tokens) - {"the", "a", "an", "this", "that", "these", "those", "some", "many"}:
        raise DeadEnd("the relative's subject repeats the head noun")
    rel_aux, rel_main = _auxiliary_group(draw, verb, subject.number, ("simple", "perfect", "modal"))
    relative = (*subject.tokens, *rel_aux, *rel_main)
    aux, rest = _scope_predicate(draw, pools, head, ("simple", "perfect", "modal"))
    pronoun = _relative_pronoun(draw, head)
    good = ("only", *head.tokens, pronoun, *relative, *aux)
    bad = (*head.tokens, pronoun, "only", *relative, *aux)
    _one_run((*good, "ever", *rest), (*bad, "ever", *rest))
    return Pair(good, bad, ("ever",), ("ever",), rest)


def negation_npi_scope(draw: Draw, pools: Pools) -> Pair:
    """"The turtles that are boring April could not ever break couches." / "The turtles that are not boring
    April could ever break couches.": the matrix negation licenses "ever", a negation in a subject relative
    clause does not reach it (two-prefix: the prefixes end before "ever"; lexically identical, "not" moved)."""
    head = _scope_np(draw, pools.scope_heads)
    verb = draw.pick(pools.transitive_for(head.cls))
    obj = object_phrase(draw, pools.lexicon, verb.object, determiners=SCOPE_DETERMINERS).tokens
    if obj == head.tokens:
        raise DeadEnd("the object repeats the subject")
    rel_aux, rel_main = _auxiliary_group(draw, verb, head.number, ("perfect", "modal", "do", "progressive"))
    aux, rest = _scope_predicate(draw, pools, head, ("perfect", "modal", "do"))
    relative = (*head.tokens, _relative_pronoun(draw, head), *rel_aux)
    good = (*relative, *rel_main, *obj, *aux, "not")
    bad = (*relative, "not", *rel_main, *obj, *aux)
    _one_run((*good, "ever", *rest), (*bad, "ever", *rest))
    return Pair(good, bad, ("ever",), ("ever",), rest)


# --- control and raising ---

# Adjectives before "to <verb>": tough adjectives (their subject is the infinitive's object: "Mary is easy to
# please"), raising ones (their subject is the infinitive's subject, and "there" can be: "Mary is likely to
# leave", "There is likely to be a cat sleeping"), control ones (their subject is a being who wants, can or
# feels: no "there").
TOUGH_ADJECTIVES = ("easy", "hard", "difficult", "tough", "fun", "pleasant", "unpleasant", "boring", "annoying",
                    "impossible")
RAISING_ADJECTIVES = ("likely", "unlikely", "certain", "sure", "bound", "about", "apt")
CONTROL_ADJECTIVES = ("willing", "unwilling", "eager", "reluctant", "able", "unable", "ready", "anxious", "happy",
                      "unhappy")


def _copula(draw: Draw, subject: NP) -> str:
    """is / was / isn't / wasn't (are / were ... for a plural); no negation after every / all."""
    return draw.pick([c for c in COPULAS[subject.number] if not (subject.universal and c.endswith("n't"))])


def tough_vs_raising(*, tough_good: bool) -> Callable[[Draw, Pools], Pair]:
    """tough_vs_raising_1 (``tough_good``): "Laura is easy to talk to." / "Laura is likely to talk to.": the
    subject is the object of the infinitive after a tough adjective, not after a raising one (whose infinitive
    then lacks the object it requires: valency ``required``, a person its subject); tough_vs_raising_2: "Laura
    is likely to hire Tom." / "Laura is easy to hire Tom.": the subject is the subject of the infinitive after a
    raising adjective; after a tough one, the infinitive's object is there and no gap is left for it (the
    adjective is the one word that differs)."""

    def build(draw: Draw, pools: Pools) -> Pair:
        if tough_good:
            verb = draw.pick([v for v in pools.of_valency("required") if "person" in v.subject])
            subject = _subject_of(draw, pools, verb.object - {"self"})
            rest = ("to", verb.base, *((verb.particle,) if verb.particle else ()))
            good, bad = draw.pick(TOUGH_ADJECTIVES), draw.pick(RAISING_ADJECTIVES)
        else:
            verb = draw.pick(pools.with_object)
            subject = _subject_of(draw, pools, verb.subject)
            obj = object_phrase(draw, pools.lexicon, verb.object).tokens
            if obj == subject.tokens:
                raise DeadEnd("the object repeats the subject")
            rest = ("to", verb.base, *((verb.particle,) if verb.particle else ()), *obj)
            good, bad = draw.pick(RAISING_ADJECTIVES), draw.pick(TOUGH_ADJECTIVES)
        prefix = (*subject.tokens, _copula(draw, subject))
        return Pair(prefix, prefix, (good,), (bad,), rest)

    return build


def existential_there_raising(draw: Draw, pools: Pools) -> Pair:
    """existential_there_subject_raising: "There was likely to be a cat sleeping." / "There was eager to be a
    cat sleeping.": expletive "there" is the subject of a raising adjective, never of a control one (the
    copula agrees with the noun after "to be", a weak quantifier's)."""
    noun = draw.pick(pools.active_nouns)
    number = draw.pick(NUMBERS)
    quantifier = draw.pick(WEAK_QUANTIFIERS[number])
    copulas = [c for c in COPULAS[number] if quantifier in ("a", "many") or not c.endswith("n't")]
    prefix = ("there", draw.pick(copulas))
    rest = ("to", "be", *_quantified(quantifier, noun, number), *_gerund_phrase(draw, pools, noun.cls))
    return Pair(prefix, prefix, (draw.pick(RAISING_ADJECTIVES),), (draw.pick(CONTROL_ADJECTIVES),), rest)


# --- ellipsis ---

# The quantifier of the first object (with its noun) and of the second (the noun elided: "one big museum and
# Eva passed several"); the second always takes a plural.
ELLIPSIS_FIRST = ("one", "one", "two", "three", "four", "five")
ELLIPSIS_SECOND = ("two", "three", "four", "five", "six", "several", "many", "more", "fewer")
# One-word determiners of the short noun phrases where filler-gap and ellipsis sentences differ.
SHORT_DETERMINERS = {"sg": ("the", "the", "a", "this", "that", "every"),
                     "pl": ("the", "the", "these", "those", "some", "many", "all")}


def _short_np(draw: Draw, pools: Pools, classes: frozenset[str], *, names: bool = True) -> NP:
    """A name (persons, sometimes, with ``names``) or a one-word determiner and a one-word count noun of
    ``classes``: where the release's filler-gap and ellipsis sentences differ (words moved one place on),
    its noun phrases are nearly all such, and the number of words that differ is then one the release has."""
    number = draw.pick(NUMBERS)
    if names and number == "sg" and "person" in classes and draw.chance(0.3):
        return name_phrase(draw.pick(pools.lexicon.names))
    return noun_phrase(draw, draw.pick(pools.short_nouns(classes)), number, SHORT_DETERMINERS[number])


def _one_run(good: tuple[str, ...], bad: tuple[str, ...]) -> None:
    """A pair of as many words must differ in one run of words, as the release's do (but for 0.1-2% of its
    shifted pairs where a word recurs one place on, "that that girl"): a ``DeadEnd`` otherwise. Nor may a
    sentence that starts with "every" or "all" have a negated verb in any of its clauses (as everywhere in the
    generator)."""
    if good[0].lower() in ("every", "all") and any(t.endswith("n't") for t in (*good, *bad)):
        raise DeadEnd("a negation in a sentence that starts with every / all")
    if len(good) == len(bad):
        diffs = [i for i, (g, b) in enumerate(zip(good, bad, strict=True)) if g.lower() != b.lower()]
        if diffs and diffs[-1] - diffs[0] != len(diffs) - 1:
            raise DeadEnd("a word recurs where the sentences differ")


def _ellipsis_frame(draw: Draw, pools: Pools) -> tuple[tuple[str, ...], tuple[str, ...], Noun, list[str], str, str]:
    """Two clauses with one verb: "<subject> <verb group> <first quantifier>" and "and <subject> <verb group>
    <second quantifier>", the object noun, two adjectives that describe it, the two quantifiers."""
    verb = draw.pick(pools.ellipsis_verbs)
    noun = draw.pick([n for n in pools.short_nouns(verb.object - {"self"}) if pools.adjectives_for(n.cls)])
    first, second = _subject_of(draw, pools, verb.subject), _short_np(draw, pools, verb.subject)
    if first.tokens == second.tokens or {noun.singular, noun.plural} & {*first.tokens, *second.tokens}:
        raise DeadEnd("a subject repeats the other or the object")
    vp1 = verb_phrase(draw, verb, first.number, negation=not first.universal)
    vp2 = verb_phrase(draw, verb, second.number, negation=not second.universal)
    q1 = draw.pick(ELLIPSIS_FIRST)
    q2 = draw.pick([q for q in ELLIPSIS_SECOND if q != q1])
    adjectives = [a.word for a in pools.adjectives_for(noun.cls)]
    adj1 = draw.pick(adjectives)
    adj2 = draw.pick([a for a in adjectives if a != adj1])
    return ((*first.tokens, *vp1.tokens, q1), ("and", *second.tokens, *vp2.tokens, *words(q2)), noun,
            [adj1, adj2], "sg" if q1 == "one" else "pl", q2)


def ellipsis_n_bar_1(draw: Draw, pools: Pools) -> Pair:
    """"Brad passed one big museum and Eva passed several." / "Brad passed one museum and Eva passed several
    big.": the second object's noun elided after its quantifier / after an adjective with no antecedent."""
    first, second, noun, (adj, _), number, _ = _ellipsis_frame(draw, pools)
    good = (*first, adj, *words(noun.form(number)), *second)
    bad = (*first, *words(noun.form(number)), *second, adj)
    _one_run(good, bad)
    return Pair((), (), good, bad)


def ellipsis_n_bar_2(draw: Draw, pools: Pools) -> Pair:
    """"Larry talked to five dermatologists and Rose talked to four displeased dermatologists." / "Larry talked
    to five small dermatologists and Rose talked to four displeased.": the second noun said / elided after
    an adjective (the first object has another adjective: a multi-word noun makes the sentences' lengths
    differ, as in the release)."""
    first, second, noun, (adj1, adj2), number, _ = _ellipsis_frame(draw, pools)
    good = (*first, *words(noun.form(number)), *second, adj2, *words(noun.plural))
    bad = (*first, adj1, *words(noun.form(number)), *second, adj2)
    _one_run(good, bad)
    return Pair((), (), good, bad)


# --- filler-gap dependencies ---

# Verbs (lexicon labels) with an object that also take an embedded question ("Joel noticed what Kim took"),
# and those that take a that-clause as well as a question ("Mark knew that ... / who ...").
QUESTION_VERBS = ("see", "know", "forget", "remember", "investigate", "reveal", "conceal", "notice", "think about")
CLAUSE_VERBS = ("know", "forget", "remember", "reveal", "conceal", "notice", "understand")
def _wh(cls: str) -> str:
    return "who" if cls == "person" else "what"


def _head(draw: Draw, pools: Pools, classes: frozenset[str]) -> NP:
    """A determiner and a noun of ``classes`` (never a name: it heads a restrictive relative clause)."""
    number = draw.pick(NUMBERS)
    return noun_phrase(draw, draw.pick(pools.nouns_of(classes)), number, SUBJECT_DETERMINERS[number])


def _matrix(draw: Draw, pools: Pools, labels: Sequence[str], obj_cls: str | None = None) -> tuple[str, ...]:
    """"<subject> <verb group>" of one of the verbs ``labels`` (one that takes an object of ``obj_cls``), its
    subject a person (who knows, reveals or notices what or that ...)."""
    verb = draw.pick([v for v in pools.labelled(labels) if obj_cls is None or obj_cls in v.object])
    subject = _subject_of(draw, pools, frozenset({"person"}))
    return (*subject.tokens, *verb_phrase(draw, verb, subject.number, negation=not subject.universal).tokens)


def _clause(draw: Draw, pools: Pools, verb: Verb, subject: NP | None = None) -> tuple[NP, tuple[str, ...]]:
    """A subject of ``verb`` (or ``subject``) and ``verb``'s group for it."""
    subject = subject or _subject_of(draw, pools, verb.subject)
    return subject, verb_phrase(draw, verb, subject.number, negation=not subject.universal).tokens


def _classes_of(verb: Verb) -> list[str]:
    return [c for c in CLASSES if c in verb.object]


def wh_questions_object_gap(draw: Draw, pools: Pools) -> Pair:
    """"Joel discovered the vase that Patricia might take." / "Joel discovered what Patricia might take the
    vase.": the object relative's gap / an embedded question whose object is there (who for a person)."""
    verb = draw.pick(pools.with_object)
    cls = draw.pick(_classes_of(verb))
    head = _short_np(draw, pools, frozenset({cls}), names=False)
    subject, vp = _clause(draw, pools, verb, _short_np(draw, pools, verb.subject))
    matrix = _matrix(draw, pools, QUESTION_VERBS, cls)
    good = (*matrix, *head.tokens, "that", *subject.tokens, *vp)
    bad = (*matrix, _wh(cls), *subject.tokens, *vp, *head.tokens)
    _one_run(good, bad)
    return Pair((), (), good, bad)


def wh_questions_subject_gap(draw: Draw, pools: Pools) -> Pair:
    """"Brian had questioned an association that can astound Diana." / "Brian had questioned who an
    association can astound Diana.": the subject relative's gap / an embedded question with its subject
    and object there (who for a person object)."""
    verb = draw.pick(pools.with_object)
    head, vp = _clause(draw, pools, verb, _short_np(draw, pools, verb.subject, names=False))
    obj = object_phrase(draw, pools.lexicon, verb.object)
    matrix = _matrix(draw, pools, QUESTION_VERBS, head.cls)
    good = (*matrix, *head.tokens, "that", *vp, *obj.tokens)
    bad = (*matrix, _wh(obj.cls), *head.tokens, *vp, *obj.tokens)
    _one_run(good, bad)
    return Pair((), (), good, bad)


def wh_questions_subject_gap_long_distance(draw: Draw, pools: Pools) -> Pair:
    """"Dennis has seen this tooth that Kristin wasn't concealing that is astounding men." / "Dennis has seen
    what this tooth that Kristin wasn't concealing is astounding men.": as ``wh_questions_subject_gap``
    with an object relative between the head and its subject relative."""
    verb = draw.pick(pools.with_object)
    head, vp = _clause(draw, pools, verb, _short_np(draw, pools, verb.subject, names=False))
    obj = object_phrase(draw, pools.lexicon, verb.object)
    inner = draw.pick(pools.objects_of(head.cls))
    subject, inner_vp = _clause(draw, pools, inner, _short_np(draw, pools, inner.subject))
    relative = ("that", *subject.tokens, *inner_vp)
    matrix = _matrix(draw, pools, QUESTION_VERBS, head.cls)
    good = (*matrix, *head.tokens, *relative, "that", *vp, *obj.tokens)
    bad = (*matrix, _wh(obj.cls), *head.tokens, *relative, *vp, *obj.tokens)
    _one_run(good, bad)
    return Pair((), (), good, bad)


def _subject_relative(draw: Draw, pools: Pools, classes: frozenset[str]) -> tuple[NP, tuple[str, ...]]:
    """A head noun of ``classes`` and its subject relative clause ("most drivers", "that had fired these guests")."""
    head = _head(draw, pools, classes)
    vp, obj = predicate(draw, pools, head)
    return head, ("that", *vp.tokens, *obj)


def wh_vs_that(*, gap: bool, long_distance: bool) -> Callable[[Draw, Pools], Pair]:
    """wh_vs_that_no_gap: "Mark figured out that most governments appreciate Steve." / "... who most
    governments appreciate Steve." (the object there: "that" / a wh-word with no gap); wh_vs_that_with_gap:
    "A lady has remembered who the actors conceal." / "... that the actors conceal." (a verb whose object
    cannot be left out, its object missing: a wh-word / "that"); ``long_distance``: the embedded subject has
    a subject relative clause ("most drivers that forfeit")."""

    def build(draw: Draw, pools: Pools) -> Pair:
        verb = draw.pick(pools.of_valency("required") if gap else pools.with_object)
        relative: tuple[str, ...] = ()
        if long_distance:
            subject, relative = _subject_relative(draw, pools, verb.subject)
        else:
            subject = _subject_of(draw, pools, verb.subject)
        subject, vp = _clause(draw, pools, verb, subject)
        if gap:
            wh, obj = _wh(draw.pick(_classes_of(verb))), ()
        else:
            np = object_phrase(draw, pools.lexicon, verb.object)
            wh, obj = _wh(np.cls), np.tokens
        if obj == subject.tokens:
            raise DeadEnd("the object repeats the subject")
        matrix = _matrix(draw, pools, CLAUSE_VERBS)
        rest = (*subject.tokens, *relative, *vp, *obj)
        good, bad = (wh, "that") if gap else ("that", wh)
        _one_run((*matrix, good, *rest), (*matrix, bad, *rest))
        return Pair(matrix, matrix, (good,), (bad,), rest)

    return build


# --- binding ---

# Closed verb lists of the binding and object-raising paradigms (no lexicon rows: only their forms are used):
# "base third past participle gerund", a particle after "/", then "*" for a stative verb (no progressive) and
# "!" for an irregular one (its past or participle not made by -ed), as the lexicon's columns.
def _closed_verbs(entries: Sequence[str]) -> tuple[Verb, ...]:
    verbs = []
    for entry in entries:
        flags = entry[len(entry.rstrip("*!")):]
        forms, _, particle = entry.rstrip("*!").partition("/")
        base, third, past, participle, gerund = forms.split(" ")
        verbs.append(Verb(base, third, past, participle, gerund, "!" in flags, particle, frozenset({"person"}),
                          frozenset(), frozenset({"person"}), "*" in flags, False))
    return tuple(verbs)


# Verbs of saying and thinking that take a that-clause (principle_A_case_1, _domain_1) and those that also read
# well without "that" (principle_A_domain_2, _domain_3).
SAY_VERBS = _closed_verbs(("say says said said saying!", "think thinks thought thought thinking*!",
                           "imagine imagines imagined imagined imagining", "claim claims claimed claimed claiming",
                           "believe believes believed believed believing*",
                           "suppose supposes supposed supposed supposing*",
                           "explain explains explained explained explaining",
                           "report reports reported reported reporting"))
THAT_DROP_VERBS = tuple(v for v in SAY_VERBS if v.base in ("say", "think", "imagine", "claim", "believe", "suppose"))
# Verbs with an object and a gerund clause after it ("imagine herself leaving"): principle_A_case_2.
PICTURE_VERBS = _closed_verbs(("imagine imagines imagined imagined imagining",
                               "think thinks thought thought thinking/about*!",
                               "forget forgets forgot forgotten forgetting/about!",
                               "remember remembers remembered remembered remembering*",
                               "picture pictures pictured pictured picturing"))
# Nominative and accusative pronouns by agreement (f, m: singular persons; pl).
SUBJECT_PRONOUNS = {"f": "she", "m": "he", "pl": "they"}
OBJECT_PRONOUNS = {"f": "her", "m": "him", "pl": "them"}
AGREEMENTS = ("f", "m", "pl")


def agreement(np: NP) -> str:
    """What a pronoun or reflexive of ``np`` agrees with: ``pl`` for a plural, its gender (f / m) for a
    singular person."""
    return "pl" if np.number == "pl" else np.gender


def _person(draw: Draw, pools: Pools, agreeing: str) -> NP:
    """A person of ``agreeing`` (f, m: a name or a gendered singular noun; pl: a plural person noun)."""
    if agreeing == "pl":
        return noun_phrase(draw, draw.pick(pools.persons), "pl", SUBJECT_DETERMINERS["pl"])
    return _gendered_subject(draw, pools, agreeing)


def _two_persons(draw: Draw, pools: Pools) -> tuple[NP, NP]:
    """Two persons a pronoun or reflexive tells apart (another gender or number)."""
    first = draw.pick(AGREEMENTS)
    second = draw.pick([a for a in AGREEMENTS if a != first])
    one, other = _person(draw, pools, first), _person(draw, pools, second)
    if set(one.tokens) & set(other.tokens) - {"the", "a", "an", "this", "that", "these", "those", "some", "many",
                                             "most", "all", "every", "of", "lot"}:
        raise DeadEnd("the two persons share their noun")
    return one, other


def _matrix_group(draw: Draw, verbs: Sequence[Verb], subject: NP) -> tuple[str, ...]:
    return verb_phrase(draw, draw.pick(verbs), subject.number, negation=not subject.universal).tokens


def _person_verbs(pools: Pools, *, reflexive: bool) -> tuple[Verb, ...]:
    """Verbs with a person subject and a person object (and a natural reflexive one, with ``reflexive``)."""
    return pools._once(("person_verbs", reflexive), lambda: (
        v for v in pools.lexicon.verbs if "person" in v.subject and "person" in v.object
        and (not reflexive or "self" in v.object)))


def principle_a_case_1(draw: Draw, pools: Pools) -> Pair:
    """"Nicole says that she is helping Adam." / "Nicole says that herself is helping Adam.": a reflexive cannot
    be the (nominative) subject of a finite clause, a pronoun can (one-prefix on it)."""
    antecedent = _person(draw, pools, draw.pick(AGREEMENTS))
    verb = draw.pick(_person_verbs(pools, reflexive=False))
    vp = verb_phrase(draw, verb, antecedent.number, negation=not antecedent.universal)
    obj = object_phrase(draw, pools.lexicon, verb.object).tokens
    if obj == antecedent.tokens:
        raise DeadEnd("the object repeats the antecedent")
    key = agreement(antecedent)
    prefix = (*antecedent.tokens, *_matrix_group(draw, SAY_VERBS, antecedent), "that")
    return Pair(prefix, prefix, (SUBJECT_PRONOUNS[key],), (REFLEXIVES[key],), (*vp.tokens, *obj))


def principle_a_case_2(draw: Draw, pools: Pools) -> Pair:
    """"Eric imagines himself taking the rug." / "Eric imagines himself took the rug.": a reflexive can be the
    (accusative) subject of a gerund clause, not of a finite one (one-prefix on the gerund / the past or present
    form)."""
    antecedent = _person(draw, pools, draw.pick(AGREEMENTS))
    verb = draw.pick(_person_verbs(pools, reflexive=False))
    obj = object_phrase(draw, pools.lexicon, verb.object).tokens
    if obj == antecedent.tokens:
        raise DeadEnd("the object repeats the antecedent")
    key = agreement(antecedent)
    prefix = (*antecedent.tokens, *_matrix_group(draw, PICTURE_VERBS, antecedent), REFLEXIVES[key])
    finite = verb.past if draw.chance(0.5) else verb.present(antecedent.number)
    particle = (verb.particle,) if verb.particle else ()
    return Pair(prefix, prefix, (verb.gerund,), (finite,), (*particle, *obj))


def principle_a_c_command(draw: Draw, pools: Pools) -> Pair:
    """"The girl who knows those men loves herself." / "... loves themselves.": the reflexive's antecedent is the
    subject, which c-commands it, not the object of the relative clause inside the subject, which does not
    (one-prefix on the reflexive: the good one agrees with the head, the bad one with the relative's object)."""
    head, inner = _two_persons(draw, pools)
    if head.tokens[0] not in ("the", "a", "an", "this", "that", "these", "those", "some", "many"):
        raise DeadEnd("a relative clause on a name or a quantified head")
    verb = draw.pick(_person_verbs(pools, reflexive=False))
    rel = verb_phrase(draw, verb, head.number, negation=False).tokens
    matrix = verb_phrase(draw, draw.pick(_person_verbs(pools, reflexive=True)), head.number).tokens
    prefix = (*head.tokens, _relative_pronoun(draw, head), *rel, *inner.tokens, *matrix)
    return Pair(prefix, prefix, (REFLEXIVES[agreement(head)],), (REFLEXIVES[agreement(inner)],))


def principle_a_domain_1(draw: Draw, pools: Pools) -> Pair:
    """"Keith explained that Diane was helping him." / "... helping himself.": the matrix subject binds a pronoun
    in the embedded clause, not a reflexive, which must be bound inside it (the embedded subject has another
    gender or number; one-prefix on the object)."""
    antecedent, subject = _two_persons(draw, pools)
    vp = verb_phrase(draw, draw.pick(_person_verbs(pools, reflexive=True)), subject.number,
                     negation=not (subject.universal or antecedent.universal)).tokens
    prefix = (*antecedent.tokens, *_matrix_group(draw, SAY_VERBS, antecedent), "that", *subject.tokens, *vp)
    key = agreement(antecedent)
    return Pair(prefix, prefix, (OBJECT_PRONOUNS[key],), (REFLEXIVES[key],))


def principle_a_domain_2(draw: Draw, pools: Pools) -> Pair:
    """"Amy says Douglas was helping himself." / "... helping herself.": the reflexive agrees with the embedded
    subject, its local antecedent, not with the matrix one (another gender or number; no "that"; one-prefix on
    the reflexive)."""
    matrix_subject, subject = _two_persons(draw, pools)
    if subject.tokens[0] == "that":
        raise DeadEnd("the embedded subject's \"that\" would read as the complementizer")
    vp = verb_phrase(draw, draw.pick(_person_verbs(pools, reflexive=True)), subject.number,
                     negation=not (subject.universal or matrix_subject.universal)).tokens
    prefix = (*matrix_subject.tokens, *_matrix_group(draw, THAT_DROP_VERBS, matrix_subject), *subject.tokens, *vp)
    return Pair(prefix, prefix, (REFLEXIVES[agreement(subject)],), (REFLEXIVES[agreement(matrix_subject)],))


def principle_a_domain_3(draw: Draw, pools: Pools) -> Pair:
    """"Steven says Kayla helps herself." / "Kayla says Steven helps herself.": the two names (of two genders)
    swap places, so the reflexive's antecedent is the local embedded subject / the matrix one (two-prefix, the
    word the reflexive; lexically identical)."""
    gender = draw.pick(("f", "m"))
    local = draw.pick(pools.names(gender))
    other = draw.pick(pools.names("m" if gender == "f" else "f"))
    matrix = _matrix_group(draw, THAT_DROP_VERBS, name_phrase(local))
    vp = verb_phrase(draw, draw.pick(_person_verbs(pools, reflexive=True)), "sg").tokens
    return Pair((other.name, *matrix, local.name, *vp), (local.name, *matrix, other.name, *vp),
                (REFLEXIVES[gender],), (REFLEXIVES[gender],))


def principle_a_reconstruction(draw: Draw, pools: Pools) -> Pair:
    """"It's herself that Maria kisses." / "It's herself that kisses Maria.": the clefted reflexive is
    interpreted in the gap, the object, bound by the subject; in the bad sentence the gap is the subject and the
    reflexive binds nothing (the subject moved after the verb group; lexically identical, no prefix method)."""
    subject = _person(draw, pools, draw.pick(AGREEMENTS))
    if subject.universal:
        raise DeadEnd("every / all in a cleft")
    vp = verb_phrase(draw, draw.pick(_person_verbs(pools, reflexive=True)), subject.number).tokens
    prefix = ("it's", REFLEXIVES[agreement(subject)], _relative_pronoun(draw, subject))
    return Pair(prefix, prefix, (*subject.tokens, *vp), (*vp, *subject.tokens))


# --- object raising ---

# Verbs whose object position may hold an expletive ("expect there to be ...": raising to object, ECM) and
# object-control verbs, whose object is a being they act on ("force Mary to leave"; no expletive).
OBJECT_RAISING_VERBS = _closed_verbs(("expect expects expected expected expecting",
                                      "believe believes believed believed believing*",
                                      "declare declares declared declared declaring",
                                      "predict predicts predicted predicted predicting",
                                      "want wants wanted wanted wanting*", "need needs needed needed needing*",
                                      "consider considers considered considered considering*",
                                      "judge judges judged judged judging",
                                      "assume assumes assumed assumed assuming*",
                                      "report reports reported reported reporting"))
OBJECT_CONTROL_VERBS = _closed_verbs(("force forces forced forced forcing",
                                      "persuade persuades persuaded persuaded persuading",
                                      "convince convinces convinced convinced convincing",
                                      "urge urges urged urged urging", "order orders ordered ordered ordering",
                                      "tell tells told told telling!", "oblige obliges obliged obliged obliging",
                                      "compel compels compelled compelled compelling",
                                      "encourage encourages encouraged encouraged encouraging",
                                      "beg begs begged begged begging", "remind reminds reminded reminded reminding",
                                      "advise advises advised advised advising"))
# Adjectives of "it to be <adjective> that ...".
CLAUSE_ADJECTIVES = ("obvious", "clear", "likely", "unlikely", "surprising", "true", "possible", "certain",
                     "expected", "unfortunate", "lucky", "good", "bad", "strange", "important")


def _raising_frame(draw: Draw, pools: Pools) -> tuple[NP, tuple[str, ...], tuple[str, ...]]:
    """A person subject and the verb groups of an object-raising and an object-control verb (one frame)."""
    subject = _subject_of(draw, pools, frozenset({"person"}))
    good, bad = draw.pick(OBJECT_RAISING_VERBS), draw.pick(OBJECT_CONTROL_VERBS)
    vp_good, vp_bad = verb_phrases(draw, (good, bad), subject.number, negation=not subject.universal)
    return subject, vp_good.tokens, vp_bad.tokens


def existential_there_object_raising(draw: Draw, pools: Pools) -> Pair:
    """"Mary expected there to be a cat sleeping." / "Mary forced there to be a cat sleeping.": expletive "there"
    can be the object of a raising-to-object verb, not of an object-control verb (two-prefix: the verb groups,
    the word "there")."""
    subject, good, bad = _raising_frame(draw, pools)
    noun = draw.pick(pools.active_nouns)
    number = draw.pick(NUMBERS)
    quantifier = draw.pick(WEAK_QUANTIFIERS[number])
    rest = ("to", "be", *_quantified(quantifier, noun, number), *_gerund_phrase(draw, pools, noun.cls))
    return Pair((*subject.tokens, *good), (*subject.tokens, *bad), ("there",), ("there",), rest)


def expletive_it_object_raising(draw: Draw, pools: Pools) -> Pair:
    """"Mary expected it to be obvious that the cats left." / "Mary forced it to be obvious that ...": expletive
    "it" can be the object of a raising-to-object verb, not of an object-control verb (two-prefix: the prefixes
    end in "it to be", the word the adjective)."""
    subject, good, bad = _raising_frame(draw, pools)
    verb = draw.pick(pools.with_object)
    inner = _subject_of(draw, pools, verb.subject)
    vp = verb_phrase(draw, verb, inner.number, negation=not (inner.universal or subject.universal)).tokens
    obj = object_phrase(draw, pools.lexicon, verb.object).tokens
    if obj == inner.tokens:
        raise DeadEnd("the object repeats the subject")
    tail = ("it", "to", "be")
    word = (draw.pick(CLAUSE_ADJECTIVES),)
    return Pair((*subject.tokens, *good, *tail), (*subject.tokens, *bad, *tail), word, word,
                ("that", *inner.tokens, *vp, *obj))


# --- island effects ---

# The auxiliaries that begin a question, before its subject, by the subject's number: have, be, do and the
# modals, and their negations.
AGREEING_AUXILIARIES = {n: (PERFECT[n], "had", *COPULAS[n][:2], *DO_SUPPORT[n]) for n in NUMBERS}
QUESTION_AUXILIARIES = {n: (*AGREEING_AUXILIARIES[n], *MODALS) for n in NUMBERS}
NEGATED_AUXILIARIES = {n: (*(a + "n't" for a in AGREEING_AUXILIARIES[n]), *NEGATIVE_MODALS) for n in NUMBERS}
HAVE, BE, DO = ("has", "have", "had"), ("is", "are", "was", "were"), ("does", "do", "did")
# The words that begin an adjunct clause with a gerund ("after shocking Richard"), and the wh-determiners of a
# noun ("whose rug").
ADJUNCT_WORDS = ("after", "before", "while", "without")
WH_DETERMINERS = ("which", "what", "whose")


def _auxiliary(draw: Draw, verbs: Sequence[Verb], numbers: Sequence[str], *, negation: bool,
               do_support: bool = True) -> str:
    """A question's auxiliary that agrees with a subject of each of ``numbers`` (a coordinated subject and its
    first conjunct; two conjuncts' subjects): no progressive of a stative one of ``verbs``, no negation unless
    ``negation``, no does / do / did (in a statement: emphatic) unless ``do_support``."""
    def agreeing(number: str) -> tuple[str, ...]:
        return QUESTION_AUXILIARIES[number] + (NEGATED_AUXILIARIES[number] if negation else ())

    stative = any(v.stative for v in verbs)
    return draw.pick([a for a in agreeing(numbers[0]) if all(a in agreeing(n) for n in numbers[1:])
                      and not (stative and a.removesuffix("n't") in BE)
                      and (do_support or a.removesuffix("n't") not in DO)])


def _after_auxiliary(aux: str, verb: Verb) -> tuple[str, ...]:
    """``verb``'s words after ``aux`` (and the subject): its participle after have, its gerund after be, its base
    form after do or a modal; then its particle."""
    plain = aux.removesuffix("n't")
    form = verb.participle if plain in HAVE else verb.gerund if plain in BE else verb.base
    return (form, *((verb.particle,) if verb.particle else ()))


def _swapped_order(first: tuple[str, ...], second: tuple[str, ...]) -> tuple[tuple[str, ...], tuple[str, ...]]:
    """``first`` before ``second`` and after it. The two orders must begin and end with other words: otherwise
    fewer words differ than moved, and the check reads another move than the release's."""
    if first[0] == second[0] or first[-1] == second[-1]:
        raise DeadEnd("the moved words begin or end as the words they move over")
    return (*first, *second), (*second, *first)


def _shared_objects(verb: Verb, other: Verb) -> list[str]:
    return [c for c in _classes_of(verb) if c in other.object]


def _possessive(np: NP) -> tuple[str, ...]:
    """``np`` with its last word in the possessive: "the patients'", "many women's", "Derek's"."""
    last = np.tokens[-1]
    return (*np.tokens[:-1], last + ("'" if np.number == "pl" and last.endswith("s") else "'s"))


def _question(wh: str, aux: str, subject: Sequence[str], verb: Verb) -> tuple[str, ...]:
    return (wh, aux, *subject, *_after_auxiliary(aux, verb))


def adjunct_island(draw: Draw, pools: Pools) -> Pair:
    """"Who should Derek hug after shocking Richard?" / "Who should Derek hug Richard after shocking?": the
    wh-word is the verb's object / the object of the gerund in an adjunct ("after", "before", "while",
    "without"), an island (the subject is the gerund's too, and the wh-word and the object are of classes both
    verbs take; lexically identical, the object moved)."""
    verb = draw.pick(pools.with_object)
    subject = _subject_of(draw, pools, verb.subject)
    adjunct = draw.pick([v for v in pools.transitive_for(subject.cls)
                         if v.base != verb.base and _shared_objects(verb, v)])
    classes = _shared_objects(verb, adjunct)
    obj = object_phrase(draw, pools.lexicon, frozenset(classes))
    if obj.tokens == subject.tokens:
        raise DeadEnd("the object repeats the subject")
    aux = _auxiliary(draw, (verb,), (subject.number,), negation=not subject.universal)
    question = _question(_wh(draw.pick(classes)), aux, subject.tokens, verb)
    gerund = (draw.pick(ADJUNCT_WORDS), adjunct.gerund, *((adjunct.particle,) if adjunct.particle else ()))
    good, bad = _swapped_order(gerund, obj.tokens)
    _one_run((*question, *good), (*question, *bad))
    return Pair((), (), (*question, *good), (*question, *bad), end_good="?", end_bad="?")


def complex_np_island(draw: Draw, pools: Pools) -> Pair:
    """"Who aren't most hospitals that hadn't talked about most waitresses alarming?" / "Who aren't most
    waitresses alarming most hospitals that hadn't talked about?": the wh-word is the verb's object / the
    object of a relative clause on the verb's object (a complex noun phrase, an island). The two noun phrases
    trade places (lexically identical): persons, of one number (the auxiliary agrees with both), each a
    one-word determiner and noun, so that as many words differ as in the release's pairs."""
    verb, relative_verb = (draw.pick(_person_verbs(pools, reflexive=False)) for _ in range(2))
    number = draw.pick(NUMBERS)
    head, other = (noun_phrase(draw, draw.pick(pools.short_nouns(frozenset({"person"}))), number,
                               SHORT_DETERMINERS[number]) for _ in range(2))
    if head.tokens[-1] == other.tokens[-1] or verb == relative_verb:
        raise DeadEnd("the two noun phrases or the two verbs are one")
    if {head.tokens[0], other.tokens[0]} <= set(SWAP_DEMONSTRATIVE):
        # the first words that differ would read as a determiner contrast (3 of the release's 1,000 pairs)
        raise DeadEnd("two demonstratives where the noun phrases trade places")
    relative = (*head.tokens, _relative_pronoun(draw, head),
                *verb_phrase(draw, relative_verb, number, negation=not head.universal).tokens)
    aux = _auxiliary(draw, (verb,), (number,), negation=not (head.universal or other.universal))
    good, bad = _swapped_order(relative, (*other.tokens, *_after_auxiliary(aux, verb)))
    _one_run(("who", aux, *good), ("who", aux, *bad))
    return Pair((), (), ("who", aux, *good), ("who", aux, *bad), end_good="?", end_bad="?")


def coordinate_left_branch(draw: Draw, pools: Pools) -> Pair:
    """coordinate_structure_constraint_complex_left_branch: "What senators was Alicia approaching and some
    teachers scaring?" / "What was Alicia approaching senators and some teachers scaring?": the wh-determiner
    and its noun move out of both conjuncts (across the board, the object of both verbs) / the determiner
    alone, its noun left behind in the first conjunct (two-prefix: the prefixes end in "and", the word the
    second subject; one auxiliary for both conjuncts, agreeing with both subjects; a one-word noun, as the
    release's)."""
    verb = draw.pick(pools.with_object)
    cls = draw.pick(_classes_of(verb))
    other = draw.pick([v for v in pools.objects_of(cls) if v.base != verb.base])
    noun = draw.pick(pools.short_nouns(frozenset({cls})))
    first, second = _subject_of(draw, pools, verb.subject), _subject_of(draw, pools, other.subject)
    if first.tokens == second.tokens:
        raise DeadEnd("the two subjects are one")
    aux = _auxiliary(draw, (verb, other), (first.number, second.number),
                     negation=not (first.universal or second.universal))
    good, bad = _swapped_order((noun.form(draw.pick(NUMBERS)),), (aux, *first.tokens, *_after_auxiliary(aux, verb)))
    wh = draw.pick(WH_DETERMINERS)
    return Pair((wh, *good, "and"), (wh, *bad, "and"), second.tokens, second.tokens, _after_auxiliary(aux, other),
                end_good="?", end_bad="?")


def coordinate_object_extraction(draw: Draw, pools: Pools) -> Pair:
    """coordinate_structure_constraint_object_extraction: "Who were all men and Eric leaving?" / "Who were all
    men leaving and Eric?": the wh-word is the object of a verb with two coordinated subjects / one conjunct of a
    coordinated object, the other left behind (the second subject is of a class the verb takes as subject and
    object, the wh-word's). The auxiliary agrees with both the coordinated subject and the first conjunct, so
    the words are the same (the release's pairs mostly change it, and are not lexically identical)."""
    verb = draw.pick(pools.with_object)
    cls = draw.pick([c for c in _classes_of(verb) if c in verb.subject])
    first, second = _subject_of(draw, pools, verb.subject), _subject_of(draw, pools, frozenset({cls}))
    if first.tokens[-1] == second.tokens[-1]:
        raise DeadEnd("the two subjects are one")
    aux = _auxiliary(draw, (verb,), ("pl", first.number), negation=not (first.universal or second.universal))
    good, bad = _swapped_order(("and", *second.tokens), _after_auxiliary(aux, verb))
    question = (_wh(cls), aux, *first.tokens)
    _one_run((*question, *good), (*question, *bad))
    return Pair((), (), (*question, *good), (*question, *bad), end_good="?", end_bad="?")


def left_branch_echo_question(draw: Draw, pools: Pools) -> Pair:
    """left_branch_island_echo_question: "The truck will hurt which senator?" / "Which will the truck hurt
    senator?": a wh-determiner stays with its noun (in an echo question's object) / is moved alone, leaving its
    noun (two-prefix: the prefixes end before the noun, the word; lexically identical). The subject is a
    one-word determiner and noun: after a one-word subject the auxiliary keeps its place and the words that
    differ are not next to each other, which the check cannot read (nor the release's pairs so made). No
    emphatic does / do / did in the statement."""
    verb = draw.pick(pools.with_object)
    subject = _short_np(draw, pools, verb.subject, names=False)
    noun = draw.pick([n for n in pools.nouns_of(frozenset(_classes_of(verb))) if n.countable])
    aux = _auxiliary(draw, (verb,), (subject.number,), negation=not subject.universal, do_support=False)
    wh = draw.pick(WH_DETERMINERS)
    good = (*subject.tokens, aux, *_after_auxiliary(aux, verb), wh)
    bad = _question(wh, aux, subject.tokens, verb)
    noun_words = words(noun.form(draw.pick(NUMBERS)))
    _one_run((*good, *noun_words), (*bad, *noun_words))
    return Pair(good, bad, noun_words, noun_words, end_good="?", end_bad="?")


def left_branch_simple_question(draw: Draw, pools: Pools) -> Pair:
    """left_branch_island_simple_question: "Whose museums had Dana alarmed?" / "Whose had Dana alarmed
    museums?": a wh-determiner moves with its noun / alone, leaving its noun (lexically identical)."""
    verb = draw.pick(pools.with_object)
    subject = _subject_of(draw, pools, verb.subject)
    noun = draw.pick([n for n in pools.nouns_of(frozenset(_classes_of(verb))) if n.countable])
    aux = _auxiliary(draw, (verb,), (subject.number,), negation=not subject.universal)
    rest = (aux, *subject.tokens, *_after_auxiliary(aux, verb))
    good, bad = _swapped_order(words(noun.form(draw.pick(NUMBERS))), rest)
    wh = draw.pick(WH_DETERMINERS)
    _one_run((wh, *good), (wh, *bad))
    return Pair((), (), (wh, *good), (wh, *bad), end_good="?", end_bad="?")


def sentential_subject_island(draw: Draw, pools: Pools) -> Pair:
    """"Who had the patients' cleaning those banks upset." / "Who had the patients' cleaning upset those
    banks.": the wh-word is the object of a verb whose subject is a gerund clause ("the patients' cleaning
    those banks", a verb an event can be the subject of) / the object of the gerund inside that subject, an
    island (lexically identical, the object moved; the possessor, the gerund's subject, is animate; the
    auxiliary agrees with the gerund, singular; both sentences end in a period, as the release's do)."""
    verb = draw.pick(pools.event_verbs)
    gerund = draw.pick([v for v in pools.objects_of("person") if v.base != verb.base and v.subject & ANIMATE])
    possessor = _subject_of(draw, pools, gerund.subject & ANIMATE)
    obj = object_phrase(draw, pools.lexicon, frozenset({"person"}))
    if obj.tokens == possessor.tokens:
        raise DeadEnd("the object repeats the possessor")
    aux = _auxiliary(draw, (verb,), ("sg",), negation=not possessor.universal)
    subject = (*_possessive(possessor), gerund.gerund, *((gerund.particle,) if gerund.particle else ()))
    good, bad = _swapped_order(obj.tokens, _after_auxiliary(aux, verb))
    question = ("who", aux, *subject)
    _one_run((*question, *good), (*question, *bad))
    return Pair((), (), (*question, *good), (*question, *bad))


def wh_island(draw: Draw, pools: Pools) -> Pair:
    """"Who have those men revealed they helped?" / "Who have those men revealed who helped?": the wh-word is
    the object of a declarative clause under a verb that takes a clause or a question (``CLAUSE_VERBS``) / of an
    embedded question, whose subject is "who" (an island; one-prefix on the embedded subject, the matrix
    subject's pronoun / "who"). A plural pronoun's verb group is one without agreement ("they helped"), so
    that "who" reads as well after it."""
    subject = _person(draw, pools, draw.pick(AGREEMENTS))
    matrix = draw.pick(pools.labelled(CLAUSE_VERBS))
    aux = _auxiliary(draw, (matrix,), (subject.number,), negation=not subject.universal)
    verb = draw.pick(pools.transitive_for("person"))
    pronoun = SUBJECT_PRONOUNS[agreement(subject)]
    number = "pl" if pronoun == "they" else "sg"
    vp = verb_phrase(draw, verb, number, agreeing=None if number == "sg" else False)
    prefix = _question(_wh(draw.pick(_classes_of(verb))), aux, subject.tokens, matrix)
    return Pair(prefix, prefix, (pronoun,), ("who",), vp.tokens, end_good="?", end_bad="?")
