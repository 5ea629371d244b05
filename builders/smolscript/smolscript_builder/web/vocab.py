"""Word lists and value tables the web generators draw from (original, plain English)."""

from __future__ import annotations

WORD_SETS = {
    "fruit": ["Apple", "Banana", "Cherry", "Grape", "Lemon", "Mango", "Peach", "Plum", "Kiwi",
              "Melon"],
    "planet": ["Mercury", "Venus", "Earth", "Mars", "Jupiter", "Saturn", "Uranus", "Neptune"],
    "day": ["Monday", "Tuesday", "Wednesday", "Thursday", "Friday", "Saturday", "Sunday"],
    "tool": ["Hammer", "Wrench", "Pliers", "Saw", "Drill", "Chisel", "Level", "Clamp"],
    "city": ["Oslo", "Lima", "Cairo", "Quito", "Hanoi", "Dakar", "Perth", "Porto", "Riga"],
    "animal": ["Otter", "Heron", "Badger", "Lynx", "Gecko", "Bison", "Crane", "Moose"],
    "step": ["Preheat", "Mix", "Pour", "Bake", "Cool", "Slice", "Serve", "Store"],
    "color": ["Red", "Green", "Blue", "Amber", "Teal", "Coral", "Olive", "Ivory"],
}
SLUGS = ["home", "about", "news", "shop", "help", "blog", "team", "jobs", "docs", "faq"]
CLASS_WORDS = ["menu", "card", "note", "item", "main", "list", "panel", "info", "tag", "box",
               "alert", "intro", "promo", "badge"]
# (css name, computed rgb) pairs; names, hex and rgb() all compute to the same value.
PALETTE = [("red", "rgb(255, 0, 0)", "#f00"), ("navy", "rgb(0, 0, 128)", "#000080"),
           ("teal", "rgb(0, 128, 128)", "#008080"), ("orange", "rgb(255, 165, 0)", "#ffa500"),
           ("purple", "rgb(128, 0, 128)", "#800080"), ("green", "rgb(0, 128, 0)", "#008000"),
           ("maroon", "rgb(128, 0, 0)", "#800000"), ("gold", "rgb(255, 215, 0)", "#ffd700"),
           ("white", "rgb(255, 255, 255)", "#fff"), ("gray", "rgb(128, 128, 128)", "#808080"),
           ("olive", "rgb(128, 128, 0)", "#808000"), ("blue", "rgb(0, 0, 255)", "#00f")]
