"""Structural check of generated pairs against the release's pairs of the same paradigm.

``check_against_release(generated, release)`` reads both as release records (dicts, as in the jsonl
files), learns from the release rows of each paradigm what every one of its pairs has, and reports
every generated pair that lacks it:

errors (what must hold):
- ``keys``: the record's keys are the release's; ``constants``: ``field``, ``linguistics_term``, ``UID``,
  ``simple_LM_method``, ``one_prefix_method``, ``two_prefix_method``, ``lexically_identical`` as in the release;
- ``form``: both sentences capitalised, one sentence-final mark (a period or a question mark, nowhere else),
  single spaces; the good and the bad sentence end in the marks the release's pairs end in (a period each,
  but matrix_question_npi_licensor_present's good questions: "?" / ".");
- ``prefix``: the prefix fields rebuild both sentences (one-prefix: prefix + good / bad word + the same rest;
  two-prefix: good / bad prefix + the word + the same rest);
- ``tokens``: good and bad have as many words (where the release's always do), differ in as many words
  as the release's (one), at one place (words compared without the final mark; only where the release's
  pairs have two phrases swapped, ``SWAPPED``: "Steven explains Kayla" / "Kayla explains Steven", may the
  differing words be apart, and then only so swapped); where every release pair
  differs in words moved (``MOVES``: "Had Bruce" / "Bruce had", "an association that" / "who an
  association", "the vase that Kim took" / "what Kim took the vase"), the words must move as in the
  release's pairs instead, over as many words as the moved phrases have;
- ``position``: that word is inside the critical span, at an offset the release has (one-prefix: from the
  end of the critical word(s); two-prefix: from the end of the prefix);
- ``contrast``: the kind of difference is one the release has: ``determiner`` (this/these …),
  ``reflexive``, ``auxiliary`` (is/are, has/have, doesn't/don't …), ``suffix`` (regular -s / -es / -ies:
  sketch/sketches, reference/references) or ``stem`` (anything else: man/men, broke/broken);
- ``dependency_length``: present where the release has it, and related to the prefix as on every release
  row (the number of words before the critical word, or the words from the relative pronoun on);
- ``unique``: no pair twice, good differs from bad, pairIDs distinct.

warnings (where the generated pairs go beyond what the release shows; expected with a new lexicon or a
small release sample): ``key_order``; ``slot_vocabulary`` (a closed-class critical word, e.g. a
determiner, the release never has there); ``anchor`` (the word before the critical one, where the
release has few distinct ones, e.g. always "The"); ``final_distance`` (how far from the end the
difference is); ``length`` (sentence length outside the release's range).
"""

from __future__ import annotations

from collections import Counter, defaultdict
from collections.abc import Iterable
from dataclasses import dataclass, field

CONSTANT_KEYS = ("field", "linguistics_term", "UID", "simple_LM_method", "one_prefix_method", "two_prefix_method",
                 "lexically_identical")
FUNCTION_WORDS = {
    "determiner": frozenset({"this", "that", "these", "those"}),
    "reflexive": frozenset({"himself", "herself", "itself", "themselves"}),
    "auxiliary": frozenset({"is", "are", "was", "were", "has", "have", "does", "do", "isn't", "aren't", "wasn't",
                            "weren't", "hasn't", "haven't", "doesn't", "don't"}),
}
# An anchor (the word before the critical one) is compared only where the release has at most this many.
CLOSED_ANCHORS = 12
RELATIVE_PRONOUNS = ("who", "that")
END_MARKS = (".", "?")
# How the differing words of a pair of as many words can be moved ones (compared in lower case):
MOVES = ("the first word moved to the end",  # "rough grocery store and ... many" / "grocery store and ... many rough"
         "the words moved one place on",  # "an association that" / "who an association"
         "a phrase moved to the end")  # "the vase that Patricia might take" / "what Patricia might take the vase"
# Differing words that are not next to each other are two phrases swapped around the words between them
# ("Steven explains Kayla" / "Kayla explains Steven": principle_A_domain_3); allowed only where at least
# ``SWAP_SHARE`` of the release's pairs are such (elsewhere a release pair so swapped is a slip, unreadable).
SWAPPED = "two phrases swapped"
SWAP_SHARE = 0.1
EXAMPLES = 3


@dataclass
class Finding:
    uid: str
    level: str  # "error" or "warning"
    check: str
    summary: str
    count: int = 0
    examples: list[str] = field(default_factory=list)

    def add(self, pair_id: str, detail: str) -> None:
        self.count += 1
        if len(self.examples) < EXAMPLES:
            self.examples.append(f"pairID {pair_id}: {detail}")


@dataclass
class ParadigmResult:
    uid: str
    generated: int
    release: int
    release_unreadable: int = 0
    findings: dict[tuple[str, str, str], Finding] = field(default_factory=dict)

    def flag(self, level: str, check: str, summary: str, pair_id: str, detail: str) -> None:
        key = (level, check, summary)
        if key not in self.findings:
            self.findings[key] = Finding(self.uid, level, check, summary)
        self.findings[key].add(pair_id, detail)

    def of_level(self, level: str) -> list[Finding]:
        return [f for f in self.findings.values() if f.level == level]

    @property
    def ok(self) -> bool:
        return not self.of_level("error")


@dataclass
class CheckReport:
    paradigms: dict[str, ParadigmResult]

    @property
    def ok(self) -> bool:
        return all(result.ok for result in self.paradigms.values())

    def errors(self) -> list[Finding]:
        return [f for r in self.paradigms.values() for f in r.of_level("error")]

    def warnings(self) -> list[Finding]:
        return [f for r in self.paradigms.values() for f in r.of_level("warning")]

    def format(self) -> str:
        lines = []
        for uid, result in self.paradigms.items():
            errors, warnings = result.of_level("error"), result.of_level("warning")
            status = "OK" if result.ok else "FAIL"
            unreadable = f"; {result.release_unreadable} release rows unreadable" if result.release_unreadable else ""
            lines.append(f"{uid}: {status} ({result.generated} generated vs {result.release} release pairs; "
                         f"{sum(f.count for f in errors)} errors, {sum(f.count for f in warnings)} warnings"
                         f"{unreadable})")
            for finding in errors + warnings:
                lines.append(f"  {finding.level} [{finding.check}] {finding.count} pairs: {finding.summary}")
                lines.extend(f"    {example}" for example in finding.examples)
        return "\n".join(lines)


@dataclass
class Shape:
    """What a record's structure is: filled by ``shape``; ``problems`` lists (check, summary, detail)."""

    keys: tuple[str, ...] = ()
    problems: list[tuple[str, str, str]] = field(default_factory=list)
    n_good: int = 0
    n_bad: int = 0
    diffs: tuple[int, ...] = ()
    offset: int | None = None
    kind: str | None = None
    slot: tuple[str, str] | None = None
    anchor: str | None = None
    final_distance: int | None = None
    dependency_rules: frozenset[str] = frozenset()
    ends: tuple[str, str] | None = None  # the good and the bad sentence's final marks
    move: str | None = None  # how the differing words are moved ones (``MOVES``), if they are


def check_against_release(generated: Iterable[dict], release: Iterable[dict]) -> CheckReport:
    """Check each paradigm (UID) of ``generated`` against the ``release`` rows with the same UID."""
    by_uid_release: dict[str, list[dict]] = defaultdict(list)
    for row in release:
        by_uid_release[str(row.get("UID"))].append(row)
    by_uid: dict[str, list[dict]] = defaultdict(list)
    for row in generated:
        by_uid[str(row.get("UID"))].append(row)
    return CheckReport({uid: check_paradigm(uid, rows, by_uid_release.get(uid, []))
                        for uid, rows in by_uid.items()})


def check_paradigm(uid: str, generated: list[dict], release: list[dict]) -> ParadigmResult:
    result = ParadigmResult(uid, len(generated), len(release))
    if not release:
        result.flag("error", "release", "no release rows with this UID to compare with", "-", uid)
        return result
    profile = Profile.learn(release)
    result.release_unreadable = profile.unreadable
    seen_pairs: set[tuple[str, str]] = set()
    seen_ids: set[str] = set()
    for row in generated:
        pair_id = str(row.get("pairID", "?"))
        shape_ = shape(row)
        for check, summary, detail in shape_.problems:
            result.flag("error", check, summary, pair_id, detail)
        profile.compare(row, shape_, result, pair_id)
        pair = (row.get("sentence_good"), row.get("sentence_bad"))
        if pair in seen_pairs:
            result.flag("error", "unique", "the same pair twice", pair_id, repr(pair[0]))
        seen_pairs.add(pair)
        if pair_id in seen_ids:
            result.flag("error", "unique", "a pairID twice", pair_id, pair_id)
        seen_ids.add(pair_id)
    return result


def shape(row: dict) -> Shape:
    """The structure of one record; what is malformed in it goes to ``problems`` (never raises)."""
    out = Shape(keys=tuple(row))
    good, bad = row.get("sentence_good"), row.get("sentence_bad")
    if not isinstance(good, str) or not isinstance(bad, str) or not good or not bad:
        out.problems.append(("keys", "sentence_good / sentence_bad missing or not text", repr((good, bad))))
        return out
    if good == bad:
        out.problems.append(("unique", "good and bad sentences are identical", repr(good)))
    for sentence in (good, bad):
        _form(sentence, out)
    out.ends = (good[-1], bad[-1])
    good_tokens, bad_tokens = _body(good).split(" "), _body(bad).split(" ")
    out.n_good, out.n_bad = len(good_tokens), len(bad_tokens)
    if out.n_good == out.n_bad:
        out.diffs = tuple(i for i, (g, b) in enumerate(zip(good_tokens, bad_tokens, strict=True)) if g != b)
        if out.diffs:
            first = out.diffs[0]
            out.slot = (good_tokens[first].lower(), bad_tokens[first].lower())
            out.kind = contrast_kind(*out.slot)
            out.final_distance = out.n_good - 1 - out.diffs[-1]
        if len(out.diffs) > 1 and out.diffs[-1] - out.diffs[0] != len(out.diffs) - 1:
            span = slice(out.diffs[0], out.diffs[-1] + 1)
            if swapped([t.lower() for t in good_tokens[span]], [t.lower() for t in bad_tokens[span]]):
                out.move = SWAPPED
            else:
                out.problems.append(("tokens", "the differing words are not next to each other",
                                     f"words {list(out.diffs)} of {good!r}"))
        elif len(out.diffs) > 1:
            span = slice(out.diffs[0], out.diffs[-1] + 1)
            out.move = moved([t.lower() for t in good_tokens[span]], [t.lower() for t in bad_tokens[span]])
    if row.get("one_prefix_method") is True:
        _one_prefix(row, good, bad, out)
    if row.get("two_prefix_method") is True:
        _two_prefix(row, good, bad, out)
    return out


def moved(good: list[str], bad: list[str]) -> str | None:
    """Which of ``MOVES`` turns the differing words ``good`` into ``bad`` (as many), if one does."""
    if good[1:] == bad[:-1] and good[0] == bad[-1]:
        return MOVES[0]
    if good[:-1] == bad[1:]:
        return MOVES[1]
    if any(bad[1:] == good[k + 1:] + good[:k] for k in range(1, len(good) - 1)):
        return MOVES[2]
    return None


def swapped(good: list[str], bad: list[str]) -> bool:
    """``bad`` is ``good`` with its first and last phrases (two different ones) swapped: A M B / B M A."""
    n = len(good)
    return any(good[:i] != good[n - j:] and bad == good[n - j:] + good[i:n - j] + good[:i]
               for i in range(1, n) for j in range(1, n - i + 1))


def contrast_kind(good: str, bad: str) -> str:
    for kind, closed in FUNCTION_WORDS.items():
        if good in closed and bad in closed:
            return kind
    if _inflects(good, bad) or _inflects(bad, good):
        return "suffix"
    return "stem"


def _inflects(base: str, form: str) -> bool:
    """``form`` is ``base`` with a regular -s, -es or (consonant +) y -> -ies ending."""
    return form in (base + "s", base + "es") or (len(base) > 1 and base.endswith("y") and form == base[:-1] + "ies")


def _form(sentence: str, out: Shape) -> None:
    if sentence != sentence.strip() or "  " in sentence:
        out.problems.append(("form", "stray or double spaces", repr(sentence)))
    if not sentence[:1].isupper():
        out.problems.append(("form", "sentence does not start with a capital", repr(sentence)))
    if not sentence.endswith(END_MARKS) or sum(sentence.count(mark) for mark in END_MARKS) != 1:
        out.problems.append(("form", "sentence does not end in its one period or question mark", repr(sentence)))


def _body(text: str) -> str:
    """``text`` without its final mark (the words a good and a bad sentence are compared by)."""
    return text[:-1] if text.endswith(END_MARKS) else text


def _text(row: dict, key: str, out: Shape) -> str | None:
    value = row.get(key)
    if not isinstance(value, str) or not value.strip():
        out.problems.append(("prefix", f"{key} missing or empty", repr(value)))
        return None
    return value.strip()  # the release has 1,134 two_prefix_word values with a leading space


def _continues(sentence: str, start: str, out: Shape, what: str) -> str | None:
    """The rest of ``sentence`` after ``start`` (which must end at a word boundary)."""
    if not sentence.startswith(start) or sentence[len(start):len(start) + 1] not in (" ", *END_MARKS):
        out.problems.append(("prefix", f"{what} does not begin the sentence", f"{start!r} / {sentence!r}"))
        return None
    return sentence[len(start):]


def _same_rest(good: str, bad: str, start_good: tuple[str, str], start_bad: tuple[str, str], out: Shape) -> None:
    """Each sentence begins with its prefix fields (``(text, what)``), and what follows is the same in both."""
    rest_good = _continues(good, start_good[0], out, start_good[1])
    rest_bad = _continues(bad, start_bad[0], out, start_bad[1])
    if rest_good is not None and rest_bad is not None and _body(rest_good) != _body(rest_bad):
        out.problems.append(("prefix", "good and bad differ after the critical word", f"{rest_good!r} / {rest_bad!r}"))


def _one_prefix(row: dict, good: str, bad: str, out: Shape) -> None:
    prefix = _text(row, "one_prefix_prefix", out)
    word_good, word_bad = _text(row, "one_prefix_word_good", out), _text(row, "one_prefix_word_bad", out)
    if prefix is None or word_good is None or word_bad is None:
        return
    if word_good == word_bad:
        out.problems.append(("prefix", "one_prefix_word_good equals one_prefix_word_bad", repr(word_good)))
    _same_rest(good, bad, (f"{prefix} {word_good}", "prefix + good word"), (f"{prefix} {word_bad}", "prefix + bad word"),
               out)
    prefix_tokens = prefix.split(" ")
    start, span = len(prefix_tokens), len(word_good.split(" "))
    out.anchor = prefix_tokens[-1]
    if out.diffs:
        inside = [i for i in out.diffs if start <= i < start + span]
        if len(inside) != len(out.diffs):
            out.problems.append(("position", "a differing word is outside the critical word(s)",
                                 f"words {list(out.diffs)}, critical {start}..{start + span - 1} in {good!r}"))
        else:
            out.offset = start + span - 1 - out.diffs[-1]
    out.dependency_rules = _dependency_rules(row, prefix_tokens)


def _two_prefix(row: dict, good: str, bad: str, out: Shape) -> None:
    prefix_good, prefix_bad = _text(row, "two_prefix_prefix_good", out), _text(row, "two_prefix_prefix_bad", out)
    word = _text(row, "two_prefix_word", out)
    if prefix_good is None or prefix_bad is None or word is None:
        return
    if prefix_good == prefix_bad:
        out.problems.append(("prefix", "two_prefix_prefix_good equals two_prefix_prefix_bad", repr(prefix_good)))
    _same_rest(good, bad, (f"{prefix_good} {word}", "good prefix + word"), (f"{prefix_bad} {word}", "bad prefix + word"),
               out)
    end = len(prefix_good.split(" "))
    if out.diffs:
        if out.diffs[-1] >= end:
            out.problems.append(("position", "a differing word is outside the prefixes",
                                 f"words {list(out.diffs)}, prefix 0..{end - 1} in {good!r}"))
        else:
            out.offset = end - 1 - out.diffs[-1]
        first = out.diffs[0]
        out.anchor = good.split(" ")[first - 1] if first else "^"
    out.dependency_rules = _dependency_rules(row, prefix_good.split(" "))


def _dependency_rules(row: dict, prefix_tokens: list[str]) -> frozenset[str]:
    """Which of the release's relations between ``dependency_length`` and the prefix hold for ``row``."""
    length = row.get("dependency_length")
    if isinstance(length, bool) or not isinstance(length, int):
        return frozenset()
    rules = set()
    if length == len(prefix_tokens):
        rules.add("words before the critical word")
    pronoun = next((i for i, t in enumerate(prefix_tokens) if i and t in RELATIVE_PRONOUNS), None)
    if pronoun is not None and length == len(prefix_tokens) - pronoun:
        rules.add("words from the relative pronoun to the critical word")
    return frozenset(rules)


@dataclass
class Profile:
    """What every (readable) release row of a paradigm has."""

    rows: int
    unreadable: int
    key_sets: set[frozenset[str]]
    key_orders: set[tuple[str, ...]]
    constants: dict[str, set]
    equal_lengths: bool
    diff_counts: set[int]
    offsets: set[int]
    kinds: Counter
    closed_slots: tuple[set[str], set[str]] | None
    anchors: set[str] | None
    final_distances: set[int]
    length_range: tuple[int, int]
    has_dependency_length: bool
    dependency_rules: frozenset[str]
    ends: set[tuple[str, str]]
    moves: set[str] | None  # how every release pair's differing words are moved ones; None where some are not
    swaps: bool = False  # some release pair has two phrases swapped (``SWAPPED``)

    @classmethod
    def learn(cls, release: list[dict]) -> Profile:
        shapes = [(row, shape(row)) for row in release]
        swaps = [s for _, s in shapes if s.move == SWAPPED]
        if len(swaps) < SWAP_SHARE * len(shapes):
            for s in swaps:
                s.problems.append(("tokens", "the differing words are not next to each other", "swapped"))
        readable = [(row, s) for row, s in shapes if not s.problems]
        if not readable:
            readable = shapes  # learn what can be learnt; every generated row will then be compared to it
        slots = [s.slot for _, s in readable if s.slot]
        closed = all(g in _CLOSED and b in _CLOSED for g, b in slots) and bool(slots)
        anchors = {s.anchor for _, s in readable if s.anchor is not None}
        has_dl = any("dependency_length" in row for row, _ in readable)
        rules = frozenset.intersection(*(s.dependency_rules for _, s in readable)) if has_dl else frozenset()
        lengths = [s.n_good for _, s in readable] + [s.n_bad for _, s in readable]
        return cls(
            rows=len(release), unreadable=len(shapes) - len([1 for _, s in shapes if not s.problems]),
            key_sets={frozenset(s.keys) for _, s in readable}, key_orders={s.keys for _, s in readable},
            constants={key: {row.get(key) for row, _ in readable} for key in CONSTANT_KEYS},
            equal_lengths=all(s.n_good == s.n_bad for _, s in readable),
            diff_counts={len(s.diffs) for _, s in readable if s.n_good == s.n_bad},
            offsets={s.offset for _, s in readable if s.offset is not None},
            kinds=Counter(s.kind for _, s in readable if s.kind),
            closed_slots=({g for g, _ in slots}, {b for _, b in slots}) if closed else None,
            anchors=anchors if len(anchors) <= CLOSED_ANCHORS else None,
            final_distances={s.final_distance for _, s in readable if s.final_distance is not None},
            length_range=(min(lengths), max(lengths)),
            has_dependency_length=has_dl, dependency_rules=rules,
            ends={s.ends for _, s in readable if s.ends is not None},
            moves=_moves([s for _, s in readable]),
            swaps=any(s.move == SWAPPED and not s.problems for _, s in readable),
        )

    def compare(self, row: dict, s: Shape, result: ParadigmResult, pair_id: str) -> None:
        flag = result.flag
        if frozenset(s.keys) not in self.key_sets:
            expected = sorted(min(self.key_sets, key=len))
            flag("error", "keys", f"keys differ from the release's {expected}", pair_id, repr(sorted(s.keys)))
        elif s.keys not in self.key_orders:
            flag("warning", "key_order", "keys in another order than the release's", pair_id, repr(list(s.keys)))
        for key, values in self.constants.items():
            if row.get(key) not in values:
                flag("error", "constants", f"{key} is not the release's {_show(values)}", pair_id, repr(row.get(key)))
        if s.ends is not None and s.ends not in self.ends:
            flag("error", "form", "the sentences' final marks (good, bad) are not the release's "
                 f"{_show(' / '.join(e) for e in self.ends)}", pair_id, " / ".join(s.ends))
        if self.equal_lengths and s.n_good != s.n_bad:
            flag("error", "tokens", "good and bad have different word counts (the release's never do)", pair_id,
                 f"{s.n_good} vs {s.n_bad}")
        if s.move == SWAPPED and not self.swaps:
            flag("error", "tokens", "the differing words are not next to each other (two phrases swapped; the "
                 "release's never are)", pair_id, f"words {list(s.diffs)} of {row.get('sentence_good')!r}")
        if self.moves is not None and s.n_good == s.n_bad and s.diffs and s.move not in self.moves:
            flag("error", "tokens", f"the differing words are not moved as the release's ({_show(self.moves)})",
                 pair_id, f"{row.get('sentence_good')!r} / {row.get('sentence_bad')!r}")
        elif self.moves is None and s.n_good == s.n_bad and len(s.diffs) not in self.diff_counts:
            flag("error", "tokens", f"number of differing words is not the release's {_show(self.diff_counts)}",
                 pair_id, f"{len(s.diffs)} in {row.get('sentence_good')!r}")
        if s.offset is not None and s.offset not in self.offsets:
            flag("error", "position", f"the difference is not where the release's is (offsets {_show(self.offsets)})",
                 pair_id, f"offset {s.offset} in {row.get('sentence_good')!r}")
        if s.kind is not None and s.kind not in self.kinds:
            flag("error", "contrast", f"a {s.kind} contrast; the release has {_show(self.kinds)}", pair_id,
                 f"{s.slot[0]!r} / {s.slot[1]!r}")
        self._compare_dependency(row, s, result, pair_id)
        if self.closed_slots and s.slot and (s.slot[0] not in self.closed_slots[0]
                                             or s.slot[1] not in self.closed_slots[1]):
            flag("warning", "slot_vocabulary", "a critical word the release never has there "
                 f"(good {_show(self.closed_slots[0])}, bad {_show(self.closed_slots[1])})", pair_id, repr(s.slot))
        if self.anchors is not None and s.anchor is not None and s.anchor not in self.anchors:
            flag("warning", "anchor", f"the word before the critical one is not one of the release's "
                 f"{_show(self.anchors)}", pair_id, f"{s.anchor!r} in {row.get('sentence_good')!r}")
        if s.final_distance is not None and s.final_distance not in self.final_distances:
            flag("warning", "final_distance", "the difference is a number of words from the end the release never "
                 f"has ({_show(self.final_distances)})", pair_id, f"{s.final_distance} in {row.get('sentence_good')!r}")
        low, high = self.length_range
        if s.n_good and not low <= s.n_good <= high:
            flag("warning", "length", f"sentence length outside the release's {low}..{high} words", pair_id,
                 f"{s.n_good} in {row.get('sentence_good')!r}")

    def _compare_dependency(self, row: dict, s: Shape, result: ParadigmResult, pair_id: str) -> None:
        if not self.has_dependency_length:
            return
        length = row.get("dependency_length")
        if isinstance(length, bool) or not isinstance(length, int) or length < 0:
            result.flag("error", "dependency_length", "dependency_length missing or not a non-negative integer",
                        pair_id, repr(length))
            return
        missing = self.dependency_rules - s.dependency_rules
        if missing:
            result.flag("error", "dependency_length", f"dependency_length is not the {' / '.join(sorted(missing))}, "
                        "as on every release row", pair_id, f"{length} for {row.get('sentence_good')!r}")


_CLOSED = frozenset().union(*FUNCTION_WORDS.values())


def _moves(shapes: list[Shape]) -> set[str] | None:
    """How the release pairs' differing words move, where every pair of as many words has moved ones."""
    equal = [s for s in shapes if s.n_good == s.n_bad and s.diffs]
    if not equal or any(s.move is None for s in equal):
        return None
    return {s.move for s in equal}


def _show(values) -> str:
    if isinstance(values, Counter):
        return ", ".join(f"{k} ({v})" for k, v in values.most_common())
    return ", ".join(sorted(map(str, values)))
