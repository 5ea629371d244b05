"""Phrase seeds: cleaning of model-written phrases, and the built-in offline phrase list.

Pure. The benchmark generator cleans what the model wrote with `clean_phrase`; the
`dataset_mode="generated"` path draws from `BUILTIN_PHRASES` (written for this package, no
model needed) and cleans them the same way.
"""

from __future__ import annotations

import re

MIN_WORDS = 2
MAX_WORDS = 24
MIN_CHARS = 5
MAX_CHARS = 160

_LIST_MARKER = re.compile(r"^\s*(?:[-*\u2022]+|\d+[.)]|[a-z][.)])\s+", re.IGNORECASE)
_LABEL = re.compile(r"^\s*(?:phrase|seed|answer|output|text|example)\s*\d*\s*[:=-]\s*", re.I)
_META_START = re.compile(
    r"^(?:sure|here|hello|hi|hey|certainly|of course|as an ai|i am|i'm|i can|okay|ok|great|"
    r"thank|sorry|please|note|this phrase|the phrase)\b",
    re.IGNORECASE,
)
_QUOTES = "\"'`\u201c\u201d\u2018\u2019*_"
_DROPPED = '"`*_<>'
_LEADING_LABEL = re.compile(r"^[A-Za-z][A-Za-z' ]{0,24}:\s+(?=\S)")
_SENTENCE_END = re.compile(r"(?<=[.!?])\s+")


def clean_phrase(raw: str) -> tuple[str | None, str]:
    """Turn one model-written phrase into a usable input string, or say why not.

    Steps: first non-empty line, then its first sentence; list markers, labels ("Phrase:",
    "Cheerful:") and surrounding quotes removed; non-ASCII (emoji, smart quotes), double quotes,
    backticks, `*`, `_`, `<` and `>` dropped; whitespace collapsed; one trailing period removed.
    Rejected: meta talk ("Sure, here is..."), too few or too many words or characters, no
    letters.

    Returns:
        (phrase, "ok") or (None, reason).
    """
    lines = [line for line in raw.replace("\r", "\n").split("\n") if line.strip()]
    if not lines:
        return None, "empty"
    text = _LABEL.sub("", _LIST_MARKER.sub("", lines[0]))
    text = "".join(c for c in text if " " <= c <= "~" and c not in _DROPPED)
    text = " ".join(text.split()).strip(_QUOTES + " ")
    text = _SENTENCE_END.split(_LEADING_LABEL.sub("", text), maxsplit=1)[0].strip(_QUOTES + " ")
    if text.endswith(".") and not text.endswith(".."):
        text = text[:-1].rstrip()
    if not text:
        return None, "nothing printable"
    if _META_START.match(text):
        return None, "meta talk"
    if not any(c.isalpha() for c in text):
        return None, "no letters"
    words = text.split(" ")
    if not MIN_WORDS <= len(words) <= MAX_WORDS:
        return None, f"{len(words)} words"
    if not MIN_CHARS <= len(text) <= MAX_CHARS:
        return None, f"{len(text)} characters"
    return text, "ok"


BUILTIN_PHRASES: tuple[str, ...] = (
    "The quiet river bends at dawn",
    "Fresh bread cools on the windowsill",
    "A red kite drifts over Harbor Street",
    "Bright lanterns sway above the night market",
    "Tiny robots sort colorful marbles",
    "Cold tea waits on the desk",
    "Seven geese cross the frozen pond",
    "Rain taps softly on tin roofs",
    "Old maps hide forgotten islands",
    "The library smells of cedar and dust",
    "Copper kettles hum on the stove",
    "A lone cyclist climbs the steep hill",
    "Wild thyme grows between the stones",
    "The ferry leaves at half past nine",
    "Paper boats race down the gutter",
    "Orange moths circle the porch light",
    "Grandma keeps buttons in a tin box",
    "The choir rehearses every Thursday",
    "Snow muffles the busy avenue",
    "A violin case rests by the door",
    "Mint leaves float in the lemonade",
    "Seagulls argue over a dropped fry",
    "The clock tower chimes twelve times",
    "Blue tiles line the old bathhouse",
    "Fireflies blink across the meadow",
    "Quick foxes dodge the garden hose",
    "A stack of letters tied with string",
    "Morning fog lifts from the valley",
    "The baker dusts flour on her apron",
    "Marbles roll under the wooden bench",
    "Thunder rumbles past the lighthouse",
    "Green apples fill the wicker basket",
    "A chess clock ticks in the cafe",
    "Jazz drifts out of the basement bar",
    "The astronaut waves from orbit",
    "Pebbles glitter under shallow water",
    "Kids chalk hopscotch on the sidewalk",
    "A heron stands still in the reeds",
    "Pine cones crunch under our boots",
    "The printer jams on page four",
    "Sunflowers turn toward the afternoon",
    "Lemon cake cools on a wire rack",
    "Night trains whistle through the pass",
    "A brass key opens the attic",
    "Coral reefs shelter striped fish",
    "The potter shapes a tall blue vase",
    "Dry leaves swirl around the fountain",
    "Two owls share a hollow oak",
    "Campfire smoke curls into the stars",
    "The museum opens late on Fridays",
    "Velvet curtains frame the stage",
    "Honeybees hover over clover",
    "A tugboat nudges the cargo ship",
    "Rusty gates creak in the wind",
    "Bakers rise before the sun",
    "The kettle whistles twice",
    "Purple plums ripen in August",
    "A squirrel buries acorns by the shed",
    "Sailors mend nets on the pier",
    "The telescope points at Saturn",
    "Warm socks dry by the fireplace",
    "Cobblestones shine after the storm",
    "A parrot repeats the password",
    "Chalk dust hangs in the classroom",
    "Glass jars hold dried beans",
    "The orchestra tunes before the show",
    "Canoes glide across Mirror Lake",
    "A cat naps on the warm laptop",
    "Street musicians play near the station",
    "Maple syrup drips onto pancakes",
    "The gardener prunes the roses",
    "Silver spoons clink in the drawer",
    "A comet streaks past the moon",
    "Fishermen whistle at the dock",
    "The bus stops near Elm Road",
    "Tall grass bends in the breeze",
    "Crayons melt in the hot car",
    "An old radio crackles with news",
    "The baby giggles at bubbles",
    "Ice cubes crack in the glass",
    "Painters stretch canvas in the studio",
    "A stray dog follows the mail carrier",
    "The market sells figs and dates",
    "Wooden spoons stir the thick soup",
    "Swallows nest under the bridge",
    "The hikers reach the summit by noon",
    "Shadows stretch across the courtyard",
    "A toy train circles the tree",
    "Farmers load hay onto the truck",
    "The scientist labels each sample",
    "Windmills turn on the ridge",
    "A blanket fort fills the living room",
    "Salt spray stings the sailors",
    "The goalkeeper dives to the left",
    "Tulips bloom along the canal",
    "Bicycle bells ring on Main Street",
    "The poet reads by candlelight",
    "Gravel crunches under the tires",
    "A kite string tangles in the oak",
    "Lighthouse beams sweep the bay",
    "The janitor whistles down the hall",
    "Raindrops race down the window",
    "Ancient scrolls rest in the vault",
    "The referee blows the whistle",
    "Hot cocoa warms our cold hands",
    "Penguins waddle toward the water",
    "A quilt hangs over the railing",
    "The pilot checks the flaps",
    "Dandelion seeds drift over the field",
    "Miners sing deep underground",
    "The courier rides through the rain",
    "A moth lands on the lampshade",
    "Cherry blossoms cover the path",
    "The inventor sketches a flying boat",
    "Crickets chirp under the porch",
    "A yellow taxi waits at the curb",
    "The sculptor chisels white marble",
    "Frost paints ferns on the glass",
    "Otters float on their backs",
    "The tailor measures the sleeve",
    "Balloons drift above the parade",
    "A drummer keeps time in the rain",
    "The pharmacy closes at six",
    "Volcanoes rumble beneath the island",
    "Sparrows bathe in the puddle",
    "The captain studies the chart",
    "Juniper smoke scents the cabin",
    "A lantern glows in the tent",
    "The goat climbs onto the roof",
    "Rivers carve canyons over ages",
    "Students whisper during the exam",
    "Acorns drop onto the tin shed",
    "The violinist bows to the crowd",
    "Thin ice cracks near the shore",
    "A robot vacuum bumps the couch",
    "The postcard shows a sunny beach",
    "Bamboo sways beside the temple",
    "Sleepy ducks tuck in their heads",
    "The engineer tests the bridge",
    "Pumpkins line the farm stand",
    "A whale surfaces near the boat",
    "The typist hits the space bar",
    "Hailstones bounce off the hood",
    "Ravens gather on the fence",
    "The chef tastes the broth",
    "Moonlight silvers the wheat",
    "A carousel spins at the fair",
    "The monk sweeps the stone steps",
    "Neon signs flicker after midnight",
    "Beavers build a dam of sticks",
    "The nurse checks the chart again",
    "Glaciers creep down the mountain",
    "A puppy chews the garden glove",
    "Zebras graze near the watering hole",
    "The mayor cuts the red ribbon",
    "Kayaks bob in the harbor",
    "Walnut shells litter the path",
    "The clown juggles five oranges",
    "Starlings swirl over the city",
    "A goldfish circles its bowl",
    "Quartz crystals glint in the cave",
    "The knight polishes his helmet",
    "Buses crawl through the fog",
    "Rooftop gardens grow tomatoes",
    "The dentist hums a tune",
    "Jellyfish pulse in the dark water",
    "A hammock sways between two palms",
)
