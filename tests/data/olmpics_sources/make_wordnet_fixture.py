"""Rebuilds ``wordnet/``, the tiny WordNet 3.0 fixture, in the real database format (wndb(5)).

A data line starts with its own byte offset and pointers name other lines' offsets, so the files
cannot be edited by hand: change the tables below and run
``python tests/data/olmpics_sources/make_wordnet_fixture.py tests/data/olmpics_sources/wordnet``.
``... make_wordnet_fixture.py tests/data/olmpics_sources/wordnet_taxonomy_traps --taxonomy-traps``
rebuilds ``wordnet_taxonomy_traps/``, the same files with ``TRAP_NOUNS`` as the noun hierarchy.
"""

from __future__ import annotations

import sys
import warnings
from pathlib import Path

HEADER = (
    "  1 This software and database is being provided to you, the LICENSEE, by  \n"
    "  2 Princeton University under the following license.  By obtaining, using  \n"
    "  3 and/or copying this software and database, you agree that you have  \n"
    "  4 read, understood, and will comply with these terms and conditions.:  \n"
    "  5   \n"
    "  6 WordNet 3.0 Copyright 2006 by Princeton University.  All rights reserved.  \n"
    "  7   \n"
    "  8 lmprobes test fixture: a handful of synsets in the WordNet 3.0 database format.  \n"
)
LEXNAMES = (
    "adj.all 3", "adj.pert 3", "adv.all 4", "noun.Tops 1", "noun.act 1", "noun.animal 1", "noun.artifact 1",
    "noun.attribute 1", "noun.body 1", "noun.cognition 1", "noun.communication 1", "noun.event 1", "noun.feeling 1",
    "noun.food 1", "noun.group 1", "noun.location 1", "noun.motive 1", "noun.object 1", "noun.person 1",
    "noun.phenomenon 1", "noun.plant 1", "noun.possession 1", "noun.process 1", "noun.quantity 1", "noun.relation 1",
    "noun.shape 1", "noun.state 1", "noun.substance 1", "noun.time 1", "verb.body 2", "verb.change 2",
    "verb.cognition 2", "verb.communication 2", "verb.competition 2", "verb.consumption 2", "verb.contact 2",
    "verb.creation 2", "verb.emotion 2", "verb.motion 2", "verb.perception 2", "verb.possession 2", "verb.social 2",
    "verb.stative 2", "verb.weather 2", "adj.ppl 3",
)
LEX = {line.split()[0]: number for number, line in enumerate(LEXNAMES)}
FILES = {"n": "noun", "a": "adj", "v": "verb", "r": "adv"}

# (key, lexicographer file, lemmas, gloss) per part of speech; a synset's key is (pos, key).
NOUNS = (
    ("entity", "noun.Tops", ["entity"], "that which is perceived or known or inferred to have its own distinct existence"),
    ("organism", "noun.Tops", ["organism", "being"], "a living thing that has (or can develop) the ability to act or function independently"),
    ("animal", "noun.Tops", ["animal", "animate_being", "beast", "brute"], "a living organism characterized by voluntary movement"),
    ("bird", "noun.animal", ["bird"], "warm-blooded egg-laying vertebrates characterized by feathers"),
    ("crow", "noun.animal", ["crow"], "black birds having a raucous call"),
    ("sparrow", "noun.animal", ["sparrow", "true_sparrow"], "any of several small dull-colored singing birds"),
    ("poultry", "noun.food", ["poultry"], "flesh of a bird used as food"),
    ("mammal", "noun.animal", ["mammal", "mammalian"], "any warm-blooded vertebrate having the skin covered with hair"),
    ("horse", "noun.animal", ["horse", "Equus_caballus"], "solid-hoofed herbivorous quadruped domesticated since prehistoric times"),
    ("dog", "noun.animal", ["dog", "domestic_dog", "Canis_familiaris"], "a member of the genus Canis"),
    ("fish", "noun.animal", ["fish"], "any of various mostly cold-blooded aquatic vertebrates"),
    ("salmon", "noun.animal", ["salmon"], "any of various large food and game fishes of northern waters"),
    ("food", "noun.Tops", ["food", "nutrient"], "any substance that can be metabolized by an animal to give energy"),
    ("meat", "noun.food", ["meat"], "the flesh of animals (including fishes and birds and snails) used as food"),
    ("beef", "noun.food", ["beef", "boeuf"], "meat from an adult domestic bovine"),
    ("pork", "noun.food", ["pork", "porc"], "meat from a domestic hog or pig"),
    ("cheese", "noun.food", ["cheese"], "a solid food prepared from the pressed curd of milk"),
    ("ricotta", "noun.food", ["ricotta"], "a soft white Italian cheese"),
    ("cheddar", "noun.food", ["cheddar", "cheddar_cheese"], "hard smooth-textured cheese"),
    ("beverage", "noun.food", ["beverage", "drink", "drinkable", "potable"], "any liquid suitable for drinking"),
    ("alcohol", "noun.food", ["alcohol", "alcoholic_drink", "booze"], "a liquor or brew containing alcohol"),
    ("beer", "noun.food", ["beer"], "a general name for alcoholic beverages made by fermenting a cereal"),
    ("wine", "noun.food", ["wine", "vino"], "fermented juice (of grapes especially)"),
    ("artifact", "noun.Tops", ["artifact", "artefact"], "a man-made object taken as a whole"),
    ("vehicle", "noun.artifact", ["vehicle"], "a conveyance that transports people or objects"),
    ("boat", "noun.artifact", ["boat"], "a small vessel for travel on water"),
    ("ferry", "noun.artifact", ["ferry", "ferryboat"], "a boat that transports people or vehicles across a body of water"),
    ("canoe", "noun.artifact", ["canoe"], "small and light boat; pointed at both ends"),
    ("airplane", "noun.artifact", ["airplane", "aeroplane", "plane"], "an aircraft that has a fixed wing"),
    ("floatplane", "noun.artifact", ["floatplane", "pontoon_plane"], "a seaplane equipped with pontoons"),
    ("jet", "noun.artifact", ["jet", "jet_plane", "jet-propelled_plane"], "an airplane powered by jet engines"),
    ("car", "noun.artifact", ["car", "auto", "automobile", "machine", "motorcar"], "a motor vehicle with four wheels"),
    ("tool", "noun.artifact", ["tool"], "an implement used in the practice of a vocation"),
    ("hammer", "noun.artifact", ["hammer"], "a hand tool with a heavy rigid head and a handle"),
    ("saw", "noun.artifact", ["saw"], "hand tool having a toothed blade for cutting"),
    ("plant", "noun.Tops", ["plant", "flora", "plant_life"], "a living organism lacking the power of locomotion"),
    ("tree", "noun.plant", ["tree"], "a tall perennial woody plant"),
    ("oak", "noun.plant", ["oak", "oak_tree"], "a deciduous tree of the genus Quercus"),
    ("pine", "noun.plant", ["pine", "pine_tree", "true_pine"], "a coniferous tree"),
    ("flower", "noun.plant", ["flower"], "a plant cultivated for its blooms or blossoms"),
    ("rose", "noun.plant", ["rose", "rosebush"], "any of many shrubs of the genus Rosa"),
    ("tulip", "noun.plant", ["tulip"], "any of numerous perennial bulbous herbs"),
    ("day", "noun.time", ["day", "daytime", "daylight"], "the time after sunrise and before sunset"),
    ("night", "noun.time", ["night", "nighttime", "dark"], "the time after sunset and before sunrise"),
    ("victory", "noun.event", ["victory", "triumph"], "a successful ending of a struggle or contest"),
    ("defeat", "noun.event", ["defeat", "licking"], "an unsuccessful ending to a struggle or contest"),
    ("winner", "noun.person", ["winner"], "the contestant who wins the contest"),
    ("loser", "noun.person", ["loser", "also-ran"], "a contestant who loses the contest"),
    ("duty", "noun.act", ["duty", "responsibility", "obligation"], "the social force that binds you to the courses of action demanded by that force"),
    ("floor", "noun.location", ["floor", "level", "storey", "story"], "a structure consisting of a room or set of rooms at a single position along a vertical scale"),
)
HYPERNYMS = (
    ("organism", "entity"), ("animal", "organism"), ("bird", "animal"), ("crow", "bird"), ("sparrow", "bird"),
    ("poultry", "bird"), ("poultry", "meat"), ("mammal", "animal"), ("horse", "mammal"), ("dog", "mammal"),
    ("fish", "animal"), ("salmon", "fish"), ("food", "entity"), ("meat", "food"), ("beef", "meat"), ("pork", "meat"),
    ("cheese", "food"), ("ricotta", "cheese"), ("cheddar", "cheese"), ("beverage", "food"), ("alcohol", "beverage"),
    ("beer", "alcohol"), ("wine", "alcohol"), ("artifact", "entity"), ("vehicle", "artifact"), ("boat", "vehicle"),
    ("ferry", "boat"), ("canoe", "boat"), ("airplane", "vehicle"), ("floatplane", "airplane"), ("jet", "airplane"),
    ("car", "vehicle"), ("tool", "artifact"), ("hammer", "tool"), ("saw", "tool"), ("plant", "organism"),
    ("tree", "plant"), ("oak", "tree"), ("pine", "tree"), ("flower", "plant"), ("rose", "flower"), ("tulip", "flower"),
)
# Pairs the taxonomy generator must refuse or repair. Answer person, terms goalkeeper and pianist:
# goalkeeper's nearest ancestor that pianist lacks is player, a lemma of pianist's musician (word
# level), so its distractor is contestant. Goalkeeper and understudy: both nearest ancestors are
# named player (same label). Player and player-coach: player is an ancestor of player-coach. Buffon
# is no term (a capitalised name). Soccer player and referee: soccer player's nearest ancestor, player,
# is a word its stem shows. Chess player and batsman: their answer, player, is a word the stem shows.
TRAP_NOUNS = (
    ("entity", "noun.Tops", ["entity"], "that which is perceived or known or inferred to have its own distinct existence"),
    ("organism", "noun.Tops", ["organism", "being"], "a living thing that has (or can develop) the ability to act or function independently"),
    ("person", "noun.Tops", ["person", "individual"], "a human being"),
    ("contestant", "noun.person", ["contestant"], "a person who participates in competitions"),
    ("player", "noun.person", ["player", "participant"], "a person who participates in or is skilled at some game"),
    ("goalkeeper", "noun.person", ["goalkeeper", "goalie"], "the soccer or hockey player assigned to protect the goal"),
    ("soccer_player", "noun.person", ["soccer_player"], "someone who plays soccer"),
    ("gamer", "noun.person", ["gamer"], "a person who plays games"),
    ("chess_player", "noun.person", ["chess_player"], "someone who plays the game of chess"),
    ("athlete", "noun.person", ["athlete", "jock"], "a person trained to compete in sports"),
    ("batsman", "noun.person", ["batsman"], "a cricketer who is batting"),
    ("official", "noun.person", ["official", "functionary"], "a worker who holds or is invested with an office"),
    ("referee", "noun.person", ["referee", "ref"], "the official at a sporting event"),
    ("buffon", "noun.person", ["Buffon", "Gianluigi_Buffon"], "Italian goalkeeper"),
    ("coach", "noun.person", ["coach", "manager", "handler"], "a person who trains or directs athletes"),
    ("player_coach", "noun.person", ["player-coach"], "a player who also coaches the team"),
    ("musician", "noun.person", ["musician", "instrumentalist", "player"], "someone who plays a musical instrument"),
    ("pianist", "noun.person", ["pianist", "piano_player"], "a person who plays the piano"),
    ("performer", "noun.person", ["performer", "performing_artist"], "an entertainer who performs a dramatic or musical work"),
    ("role_player", "noun.person", ["role_player", "player", "actor"], "a theatrical performer"),
    ("understudy", "noun.person", ["understudy", "standby"], "an actor able to replace a regular performer"),
)
TRAP_HYPERNYMS = (
    ("organism", "entity"), ("person", "organism"), ("contestant", "person"), ("player", "contestant"),
    ("goalkeeper", "player"), ("soccer_player", "player"), ("gamer", "player"), ("chess_player", "gamer"),
    ("athlete", "player"), ("batsman", "athlete"), ("official", "person"), ("referee", "official"), ("buffon", "goalkeeper"), ("coach", "person"), ("player_coach", "player"), ("player_coach", "coach"),
    ("musician", "person"), ("pianist", "musician"), ("performer", "person"), ("role_player", "performer"),
    ("understudy", "role_player"),
)
ADJECTIVES = (
    ("hot", "adj.all", ["hot"], "used of physical heat; having a high or higher than desirable temperature"),
    ("cold", "adj.all", ["cold"], "having a low or inadequate temperature"),
    ("good", "adj.all", ["good"], "having desirable or positive qualities especially those suitable for a thing specified"),
    ("bad", "adj.all", ["bad"], "having undesirable or negative qualities"),
    ("large", "adj.all", ["large", "big"], "above average in size or number or quantity or magnitude or extent"),
    ("small", "adj.all", ["small", "little"], "limited or below average in number or quantity or magnitude or extent"),
    ("fast", "adj.all", ["fast"], "acting or moving or capable of acting or moving quickly"),
    ("slow", "adj.all", ["slow"], "not moving quickly; taking a comparatively long time"),
    ("heedful", "adj.all", ["heedful", "attentive"], "paying close attention"),
    ("heedless", "adj.all", ["heedless", "unheeding"], "marked by or paying little heed or attention"),
)
VERBS = (
    ("win", "verb.competition", ["win"], "be the winner in a contest or competition"),
    ("lose", "verb.competition", ["lose"], "fail to win"),
    ("open", "verb.contact", ["open", "open_up"], "cause to open or to become open"),
    ("close", "verb.contact", ["close", "shut"], "move so that an opening or passage is obstructed"),
    ("rise", "verb.motion", ["rise", "lift", "arise"], "move upward"),
    ("fall", "verb.motion", ["fall"], "descend in free fall under the influence of gravity"),
    ("rest", "verb.body", ["rest", "repose"], "be at rest"),
    ("begin", "verb.change", ["begin", "start", "commence"], "take the first step or steps in carrying out an action"),
)
# Lexical antonym pointers: (pos, key1, key2, lemma number in 1, lemma number in 2).
ANTONYMS = (
    ("n", "day", "night", 1, 1), ("n", "victory", "defeat", 1, 1), ("n", "winner", "loser", 1, 1),
    ("a", "hot", "cold", 1, 1), ("a", "good", "bad", 1, 1), ("a", "large", "small", 1, 1),
    ("a", "large", "small", 2, 2), ("a", "fast", "slow", 1, 1), ("a", "heedful", "heedless", 1, 1),
    ("v", "win", "lose", 1, 1), ("v", "open", "close", 1, 1), ("v", "rise", "fall", 1, 1),
)
EXCEPTIONS = {
    "noun": ["geese goose", "mice mouse"],
    "verb": ["arose arise", "fell fall", "lost lose", "rose rise", "won win"],
    "adj": ["bigger big", "better good", "colder cold", "hotter hot", "worse bad"],
    "adv": ["better well"],
}
RARE = {  # lemmas left out of cntlist.rev (tag count 0)
    "heedful", "heedless", "unheeding", "attentive", "licking", "boeuf", "porc", "vino", "motorcar", "storey",
    "repose", "commence", "speedy", "brute", "drinkable", "potable", "nutrient", "flora", "daylight", "nighttime",
    "ferryboat", "aeroplane", "floatplane", "ricotta", "canoe", "tulip", "artefact", "mammalian", "arise",
}


def synsets(nouns: tuple = NOUNS, hypernyms: tuple = HYPERNYMS) -> dict[tuple[str, str], dict]:
    table: dict[tuple[str, str], dict] = {}
    for pos, rows in (("n", nouns), ("a", ADJECTIVES), ("v", VERBS)):
        for key, lexname, lemmas, gloss in rows:
            table[(pos, key)] = {"lex": lexname, "type": pos, "lemmas": lemmas, "pointers": [], "gloss": gloss}
    table[("a", "quick")] = {"lex": "adj.all", "type": "s", "lemmas": ["quick", "speedy"], "gloss":
                             "accomplished rapidly and without delay", "pointers": [("&", ("a", "fast"), 0, 0)]}
    table[("a", "fast")]["pointers"].append(("&", ("a", "quick"), 0, 0))
    table[("r", "quickly")] = {"lex": "adv.all", "type": "r", "lemmas": ["quickly", "rapidly", "speedily"],
                               "pointers": [], "gloss": "with rapid movements"}
    for child, parent in hypernyms:
        table[("n", child)]["pointers"].append(("@", ("n", parent), 0, 0))
        table[("n", parent)]["pointers"].append(("~", ("n", child), 0, 0))
    for pos, first, second, lemma1, lemma2 in ANTONYMS:
        if (pos, first) not in table:
            continue
        table[(pos, first)]["pointers"].append(("!", (pos, second), lemma1, lemma2))
        table[(pos, second)]["pointers"].append(("!", (pos, first), lemma2, lemma1))
    return table


def data_line(table: dict, key: tuple[str, str], offsets: dict) -> str:
    info = table[key]
    fields = [f"{offsets.get(key, 0):08d}", f"{LEX[info['lex']]:02d}", info["type"], f"{len(info['lemmas']):02x}"]
    for lemma in info["lemmas"]:
        fields += [lemma, "0"]
    fields.append(f"{len(info['pointers']):03d}")
    for symbol, target, source_lemma, target_lemma in info["pointers"]:
        fields += [symbol, f"{offsets.get(target, 0):08d}", table[target]["type"], f"{source_lemma:02x}{target_lemma:02x}"]
    if key[0] == "v":
        fields += ["01", "+", "02", "00"]  # one verb frame: "Somebody ----s"
    return " ".join(fields) + " | " + info["gloss"] + "  \n"


def data_files(table: dict) -> tuple[dict[str, str], dict]:
    """The four data files; the second pass fills in the offsets the first pass measured."""
    offsets: dict = {}
    for _ in range(2):
        texts = {}
        for pos, name in FILES.items():
            text = HEADER
            for key in sorted(key for key in table if key[0] == pos):
                offsets[key] = len(text.encode())
                text += data_line(table, key, offsets)
            texts[name] = text
    return texts, offsets


def index_file(table: dict, pos: str, offsets: dict) -> str:
    entries: dict[str, list] = {}
    for key in sorted(key for key in table if key[0] == pos):
        for lemma in table[key]["lemmas"]:
            entries.setdefault(lemma.lower(), []).append(key)
    lines = []
    for lemma, keys in sorted(entries.items()):
        symbols = sorted({pointer[0] for key in keys for pointer in table[key]["pointers"]})
        lines.append(" ".join([lemma, pos, str(len(keys)), str(len(symbols)), *symbols, str(len(keys)), "0",
                               *(f"{offsets[key]:08d}" for key in keys)]) + "  \n")
    return HEADER + "".join(lines)


def counts_file(out: Path) -> str:
    """cntlist.rev lines ``sense_key sense_number tag_count``, sorted; the keys computed by nltk."""
    import nltk
    from nltk.corpus.reader.wordnet import WordNetCorpusReader

    class Reader(WordNetCorpusReader):
        def map_wn(self, version: str = "wordnet") -> None:
            return None

    nltk.data.path.append(str(out.resolve()))
    (out / "cntlist.rev").write_text("")
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        wn = Reader(str(out.resolve()), None)
    lines = [f"{lemma.key()} 1 {3 + len(lemma.name())}\n" for synset in wn.all_synsets() for lemma in synset.lemmas()
             if lemma.name().lower() not in RARE]
    return "".join(sorted(lines))


def main(out: Path, nouns: tuple = NOUNS, hypernyms: tuple = HYPERNYMS) -> None:
    out.mkdir(parents=True, exist_ok=True)
    table = synsets(nouns, hypernyms)
    texts, offsets = data_files(table)
    for pos, name in FILES.items():
        (out / f"data.{name}").write_text(texts[name])
        (out / f"index.{name}").write_text(index_file(table, pos, offsets))
        (out / f"{name}.exc").write_text("".join(f"{line} \n" for line in EXCEPTIONS[name]))
    (out / "lexnames").write_text("".join(f"{number:02d}\t{line.replace(' ', chr(9))}\n"
                                          for number, line in enumerate(LEXNAMES)))
    (out / "cntlist.rev").write_text(counts_file(out))


if __name__ == "__main__":
    traps = sys.argv[2:] == ["--taxonomy-traps"]
    main(Path(sys.argv[1]), *((TRAP_NOUNS, TRAP_HYPERNYMS) if traps else ()))
