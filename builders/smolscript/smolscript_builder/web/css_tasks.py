"""CSS task builders: selector scope with distractors, box model, flex geometry, breakpoints.

Every task styles a fixed fixture page whose base styles pin sizes, so expected computed values
and geometry are known exactly without a browser. Distractor elements are probed for their
unchanged base values. Difficulty grows with the number of declarations, the selector's
structure and the number of geometric constraints. Pure code.
"""

from __future__ import annotations

import random
from collections.abc import Callable
from dataclasses import dataclass, field

from .records import Checks, WebTaskDraft
from .vocab import CLASS_WORDS, PALETTE, WORD_SETS

COMMON_BASE = ("* { box-sizing: border-box; }\n"
               "body { margin: 0; font-family: sans-serif; font-size: 16px; "
               "line-height: 20px; color: #222; }\n"
               "a { color: #222; text-decoration: none; }\n"
               "p, ul, h1, h2 { margin: 0; padding: 0; }\n")
CSS_DOMAIN = ("The fixed fixture page shown in the prompt with its base styles; the stylesheet "
              "is added after them; checked by computed styles and geometry{views}.")
DEFAULTS = {"color": "rgb(34, 34, 34)", "background-color": "rgba(0, 0, 0, 0)",
            "font-weight": "400", "font-style": "normal", "text-transform": "none",
            "text-align": "start", "letter-spacing": "normal", "text-decoration-line": "none",
            "padding-top": "0px", "padding-left": "0px", "border-top-width": "0px",
            "border-top-style": "none", "border-top-left-radius": "0px", "font-size": "16px",
            "opacity": "1", "margin-top": "0px", "border-top-color": "rgb(34, 34, 34)"}


@dataclass
class Decl:
    """A declaration to write and the computed values it must produce."""

    text: str
    says: str
    computed: dict[str, str]


@dataclass
class CssTask:
    """What a CSS builder returns before it becomes a draft."""

    category: str
    markup: str
    base: str
    instruction: str
    reference: str
    negative: str
    checks: Checks
    spec: dict
    viewports: list[dict] = field(default_factory=lambda: [{"width": 800, "height": 600}])
    near_miss: str | None = None
    near_miss_description: str | None = None


def _colour(rng: random.Random, avoid: set[str]) -> tuple[str, str]:
    name, rgb, hexa = rng.choice([p for p in PALETTE if p[0] not in avoid])
    avoid.add(name)
    return rng.choice([name, hexa]), rgb


def _declaration(prop: str, rng: random.Random, used: set[str]) -> Decl:
    """A random declaration for property family `prop` with its computed consequences."""
    if prop in {"color", "background-color"}:
        written, rgb = _colour(rng, used)
        return Decl(f"{prop}: {written}", f"{prop} {written}", {prop: rgb})
    if prop == "font-weight":
        w, c = rng.choice([("bold", "700"), ("600", "600"), ("300", "300")])
        return Decl(f"font-weight: {w}", f"font-weight {w}", {prop: c})
    if prop in {"font-style", "text-transform", "text-align", "text-decoration-line"}:
        options = {"font-style": ["italic"], "text-transform": ["uppercase", "lowercase",
                                                               "capitalize"],
                   "text-align": ["center", "right", "justify"],
                   "text-decoration-line": ["underline", "line-through", "overline"]}[prop]
        v = rng.choice(options)
        name = "text-decoration" if prop == "text-decoration-line" else prop
        return Decl(f"{name}: {v}", f"{name} {v}", {prop: v})
    if prop in {"letter-spacing", "font-size", "margin-top", "border-top-left-radius"}:
        n = rng.choice({"letter-spacing": [1, 2, 3], "font-size": [12, 14, 18, 20, 24],
                        "margin-top": [4, 8, 12, 16], "border-top-left-radius": [4, 6, 8]}[prop])
        name = "border-radius" if prop == "border-top-left-radius" else prop
        return Decl(f"{name}: {n}px", f"{name} {n}px", {prop: f"{n}px"})
    if prop == "padding":
        a, b = rng.sample([2, 4, 6, 8, 10, 12], 2)
        return Decl(f"padding: {a}px {b}px", f"padding {a}px top/bottom and {b}px left/right",
                    {"padding-top": f"{a}px", "padding-left": f"{b}px"})
    if prop == "border":
        w = rng.choice([1, 2, 3, 4])
        written, rgb = _colour(rng, used)
        return Decl(f"border: {w}px solid {written}", f"a {w}px solid {written} border",
                    {"border-top-width": f"{w}px", "border-top-style": "solid",
                     "border-top-color": rgb})
    if prop == "opacity":
        v = rng.choice(["0.5", "0.25", "0.75"])
        return Decl(f"opacity: {v}", f"opacity {v}", {"opacity": v})
    raise ValueError(f"unknown property family {prop!r}")


SCOPE_PROPS = ["color", "background-color", "font-weight", "font-style", "text-transform",
               "text-align", "letter-spacing", "text-decoration-line", "padding", "border",
               "font-size", "margin-top", "border-top-left-radius", "opacity"]


def _scope_pattern(rng: random.Random, difficulty: str) -> dict:
    """Fixture markup, selector, target/distractor selectors and their descriptions.

    `many` gives the fixture's match count of each target/distractor selector that matches
    more than one element (the others match one); the browser checks every count."""
    s, a, b = rng.sample(CLASS_WORDS, 3)
    w = rng.sample(WORD_SETS[rng.choice(sorted(WORD_SETS))], 5)
    kinds = {"easy": ["class", "type"], "medium": ["descendant", "attr", "first", "last"],
             "moderate": ["child", "odd", "even", "sibling"]}[difficulty]
    kind = rng.choice(kinds)
    if kind in {"class", "type"}:
        tag = rng.choice(["p", "span"]) if kind == "type" else "p"
        markup = (f'<p class="{a}">{w[0]}</p>\n<p class="{b}">{w[1]}</p>\n'
                  f'<p class="{a}">{w[2]}</p>\n<div><span class="{a}">{w[3]}</span></div>')
        if kind == "class":
            return dict(kind=kind, markup=markup, selector=f".{a}", broad="p",
                        targets=[f"p.{a}", f"span.{a}"], distractors=[f"p.{b}"],
                        many={f"p.{a}": 2},
                        target_text=f'every element with class "{a}"',
                        distractor_text=f'The "{b}" paragraph')
        return dict(kind=kind, markup=markup, selector=f"{tag}.{a}", broad=f".{a}",
                    targets=[f"{tag}.{a}"], distractors=[f"{'span' if tag == 'p' else 'p'}.{a}",
                                                         f"p.{b}"],
                    many={f"p.{a}": 2},
                    target_text=f'the {tag} elements with class "{a}" (only {tag} elements)',
                    distractor_text=f'Other elements, including other "{a}" elements,',
                    plural=True)
    if kind in {"descendant", "child"}:
        markup = (f'<div class="{s}">\n  <p class="{a}">{w[0]}</p>\n  <div>\n'
                  f'    <p class="{a}">{w[1]}</p>\n  </div>\n</div>\n<p class="{a}">{w[2]}</p>')
        if kind == "descendant":
            return dict(kind=kind, markup=markup, selector=f".{s} .{a}", broad=f".{a}",
                        targets=[f".{s} > p.{a}", f".{s} > div > p.{a}"],
                        distractors=[f"body > p.{a}"],
                        target_text=f'the "{a}" paragraphs anywhere inside ".{s}"',
                        distractor_text=f'The "{a}" paragraph outside ".{s}"')
        return dict(kind=kind, markup=markup, selector=f".{s} > .{a}", broad=f".{s} .{a}",
                    targets=[f".{s} > p.{a}"],
                    distractors=[f".{s} > div > p.{a}", f"body > p.{a}"],
                    target_text=f'the "{a}" paragraph that is a direct child of ".{s}"',
                    distractor_text=f'The nested "{a}" paragraph and the one outside ".{s}"',
                    plural=True)
    if kind == "attr":
        markup = "\n".join(
            f'<a href="{"https://example.org/" if i % 2 else "/"}{w[i].lower()}">{w[i]}</a>'
            for i in range(4))
        return dict(kind=kind, markup=markup, selector='a[href^="https:"]', broad="a",
                    targets=['a[href^="https:"]'], distractors=['a[href^="/"]'],
                    many={'a[href^="https:"]': 2, 'a[href^="/"]': 2},
                    target_text='the links whose href starts with "https:"',
                    distractor_text="The site-relative links", plural=True)
    if kind == "sibling":
        markup = (f'<h2 class="{a}">{w[0]}</h2>\n<p>{w[1]}</p>\n<p>{w[2]}</p>\n'
                  f'<h2 class="{b}">{w[3]}</h2>\n<p>{w[4]}</p>')
        return dict(kind=kind, markup=markup, selector=f".{a} + p", broad=f".{a} ~ p",
                    targets=[f"h2.{a} + p"], distractors=[f"h2.{a} + p + p", f"h2.{b} + p"],
                    target_text=f'only the paragraph directly after the ".{a}" heading',
                    distractor_text="Every other paragraph")
    items = "\n".join(f"  <li>{x}</li>" for x in w)
    markup = f'<ul class="{s}">\n{items}\n</ul>\n<ul>\n  <li>{w[0]}</li>\n</ul>'
    pseudo = {"first": "first-child", "last": "last-child", "odd": "nth-child(odd)",
              "even": "nth-child(even)"}[kind]
    picked = {"first": [1], "last": [5], "odd": [1, 3, 5], "even": [2, 4]}[kind]
    others = [i for i in range(1, 6) if i not in picked]
    words = {"first": "the first item", "last": "the last item", "odd": "the odd-numbered "
             "items (1st, 3rd, 5th)", "even": "the even-numbered items (2nd, 4th)"}[kind]
    return dict(kind=kind, markup=markup, selector=f".{s} li:{pseudo}", broad=f".{s} li",
                targets=[f".{s} > li:nth-child({i})" for i in picked],
                distractors=[f".{s} > li:nth-child({i})" for i in others[:2]]
                + ["ul:not([class]) > li"],
                target_text=f'{words} of the ".{s}" list',
                distractor_text="The other items (and the second list)", plural=True)


def build_scope(rng: random.Random, difficulty: str) -> CssTask:
    """Declarations applied through a selector of growing structure; distractors unchanged."""
    pattern = _scope_pattern(rng, difficulty)
    n_props = {"easy": rng.choice([1, 2]), "medium": 2, "moderate": 3}[difficulty]
    used: set[str] = set()
    decls = [_declaration(p, rng, used) for p in rng.sample(SCOPE_PROPS, n_props)]
    body = "; ".join(d.text for d in decls)
    checks = Checks()
    many = pattern.get("many", {})
    for sel in pattern["targets"]:
        for d in decls:
            for prop, value in d.computed.items():
                checks.add_each("style", sel, many.get(sel, 1), "css", value, f"{sel} {prop}",
                                property=prop)
    for sel in pattern["distractors"]:
        for d in decls:
            for prop in d.computed:
                checks.add_each("style", sel, many.get(sel, 1), "css", DEFAULTS[prop],
                                f"{sel} keeps {prop}", property=prop)
    says = ", ".join(d.says for d in decls)
    keep = "must keep their" if pattern.get("plural") else "must keep its"
    instruction = (f"Give {pattern['target_text']} {says}. {pattern['distractor_text']} "
                   f"{keep} current styles.")
    category = "properties" if difficulty == "easy" else "selector_scope"
    if rng.random() < 0.5:  # negative: the declarations leak onto the distractors
        wrong = f"{pattern['broad']} {{ {body}; }}\n"
    else:  # negative: right scope, first declaration missing (every value differs from base)
        kept = "; ".join(["display: block"] + [d.text for d in decls[1:]])
        wrong = f"{pattern['selector']} {{ {kept}; }}\n"
    near = first_only = None
    if any(many.get(sel, 1) > 1 for sel in pattern["targets"]):
        sel = pattern["selector"]
        near = f"{sel}:not({sel} ~ {sel}) {{ {body}; }}\n"
        first_only = "styles only the first of the sibling elements the selector matches"
    return CssTask(category, pattern["markup"], "", instruction,
                   f"{pattern['selector']} {{ {body}; }}\n", wrong, checks,
                   {"pattern": pattern["kind"], "decls": [d.computed for d in decls]},
                   near_miss=near, near_miss_description=first_only)


def build_box(rng: random.Random, difficulty: str) -> CssTask:
    """Auto-margin centring, padding and border shorthands, checked by geometry and values."""
    frame_w = rng.choice([400, 480, 500, 600, 640])
    box_w = rng.choice([100, 120, 160, 200, 240])
    top = rng.choice([4, 8, 10, 12, 16, 20])
    box, other = rng.sample(CLASS_WORDS, 2)
    markup = (f'<div class="frame">\n  <div class="{box}">Box</div>\n'
              f'  <div class="{other}">Other</div>\n</div>')
    base = (f".frame {{ width: {frame_w}px; display: flow-root; }}\n"
            f".{box}, .{other} {{ width: {box_w}px; height: 40px; }}\n")
    checks = Checks()
    decls = [f"margin: {top}px auto 0"]
    says = [f"centre it horizontally in .frame with auto left/right margins, a {top}px top "
            f"margin and no bottom margin"]
    left = (frame_w - box_w) / 2
    checks.add_each("rect", f".{box}", 1, "rect", {"x": left, "y": top, "width": box_w},
                    "box position", relative_to=".frame")
    checks.add("style", f".{box}", "css", "0px", "box margin-bottom", property="margin-bottom")
    spec: dict = {"frame": frame_w, "box": box_w, "top": top}
    if difficulty != "easy":
        pads = rng.sample([2, 4, 6, 8, 10, 12, 14], 4 if difficulty == "moderate" else 2)
        if len(pads) == 2:
            decls.append(f"padding: {pads[0]}px {pads[1]}px")
            says.append(f"padding {pads[0]}px top/bottom and {pads[1]}px left/right")
            sides = dict(zip(["top", "right", "bottom", "left"], pads * 2, strict=True))
        else:
            decls.append("padding: " + " ".join(f"{p}px" for p in pads))
            says.append("padding " + ", ".join(f"{p}px {s}" for p, s in
                                               zip(pads, ["top", "right", "bottom", "left"],
                                                   strict=True)))
            sides = dict(zip(["top", "right", "bottom", "left"], pads, strict=True))
        for side, value in sides.items():
            checks.add("style", f".{box}", "css", f"{value}px", f"padding-{side}",
                       property=f"padding-{side}")
        spec["padding"] = pads
    if difficulty == "moderate":
        w = rng.choice([1, 2, 3, 4])
        written, rgb = _colour(rng, set())
        decls.append(f"border: {w}px dashed {written}")
        says.append(f"a {w}px dashed {written} border")
        for side in ("top", "left"):
            checks.add("style", f".{box}", "css", f"{w}px", f"border-{side}-width",
                       property=f"border-{side}-width")
            checks.add("style", f".{box}", "css", "dashed", f"border-{side}-style",
                       property=f"border-{side}-style")
        checks.add("style", f".{box}", "css", rgb, "border colour",
                   property="border-bottom-color")
        spec["border"] = [w, rgb]
    checks.add_each("rect", f".{other}", 1, "rect", {"x": 0, "y": top + 40, "width": box_w},
                    "other box stays at the left, below", relative_to=".frame")
    checks.add("style", f".{other}", "css", "0px", "other box keeps padding",
               property="padding-left")
    instruction = (f'For the ".{box}" element: {"; ".join(says)}. The ".{other}" element must '
                   f"keep its current styles.")
    reference = f".{box} {{ {'; '.join(decls)}; }}\n"
    negative = (f".{box}, .{other} {{ {'; '.join(decls)}; }}\n" if rng.random() < 0.5
                else f".{box} {{ {'; '.join([f'margin: {top}px 0 0'] + decls[1:])}; }}\n")
    return CssTask("box_model", markup, base, instruction, reference, negative, checks, spec)


JUSTIFY = ["flex-start", "center", "flex-end", "space-between", "space-around", "space-evenly"]
ALIGN = ["flex-start", "center", "flex-end"]


def _main_axis(sizes: list[int], extent: int, gap: int, justify: str) -> list[float]:
    """Main-axis offsets of fixed-size flex items (no grow/shrink), per CSS Flexbox §9.5."""
    n = len(sizes)
    free = extent - sum(sizes) - gap * (n - 1)
    start, between = 0.0, float(gap)
    if justify == "center":
        start = free / 2
    elif justify == "flex-end":
        start = free
    elif justify == "space-between":
        between += free / (n - 1)
    elif justify == "space-around":
        start, between = free / n / 2, gap + free / n
    elif justify == "space-evenly":
        start, between = free / (n + 1), gap + free / (n + 1)
    out, pos = [], start
    for size in sizes:
        out.append(pos)
        pos += size + between
    return out


def build_flex(rng: random.Random, difficulty: str) -> CssTask:
    """Flex row/column with gap, justify-content and align-items; item rects are checked."""
    direction = "row" if difficulty == "easy" else rng.choice(["row", "column"])
    n = {"easy": rng.choice([2, 3]), "medium": 3, "moderate": rng.choice([3, 4])}[difficulty]
    gap = rng.choice([0, 4, 8, 10, 12, 16, 20])
    mains = [rng.choice([40, 50, 60, 80, 100]) for _ in range(n)]
    # Leave free space on the main axis so that no item shrinks.
    main_extent = sum(mains) + gap * (n - 1) + rng.choice([40, 60, 80, 120, 200])
    cross_extent = rng.choice([80, 100, 120])
    crosses = [rng.choice([20, 30, 40, 60]) for _ in range(n)]
    justify = "flex-start" if difficulty == "easy" else rng.choice(JUSTIFY[1:])
    align = "flex-start" if difficulty == "easy" else rng.choice(ALIGN)
    if difficulty == "moderate" and rng.random() < 0.5:
        align = "stretch"
    cls = rng.choice(["row", "strip", "bar", "rail"])
    width, height = (main_extent, cross_extent) if direction == "row" else (cross_extent,
                                                                           main_extent)
    items = "\n".join(f'  <div class="i{k + 1}">{k + 1}</div>' for k in range(n))
    markup = f'<div class="{cls}">\n{items}\n</div>\n<div class="plain">\n{items}\n</div>'
    main_prop, cross_prop = ("width", "height") if direction == "row" else ("height", "width")
    item_rules = []
    for k in range(n):
        cross_decl = "" if align == "stretch" else f" {cross_prop}: {crosses[k]}px;"
        item_rules.append(f".i{k + 1} {{ {main_prop}: {mains[k]}px;{cross_decl} }}")
    base = (f".{cls}, .plain {{ width: {width}px; height: {height}px; }}\n"
            + "\n".join(item_rules) + "\n")
    offsets = _main_axis(mains, main_extent, gap, justify)
    checks = Checks()
    for k in range(n):
        cross = cross_extent if align == "stretch" else crosses[k]
        cross_off = {"flex-start": 0, "stretch": 0, "center": (cross_extent - cross) / 2,
                     "flex-end": cross_extent - cross}[align]
        if direction == "row":
            rect = {"x": offsets[k], "y": cross_off, "width": mains[k], "height": cross}
        else:
            rect = {"x": cross_off, "y": offsets[k], "width": cross, "height": mains[k]}
        checks.add_each("rect", f".{cls} > .i{k + 1}", 1, "rect", rect,
                        f"item {k + 1} geometry", relative_to=f".{cls}")
    checks.add_each("style", ".plain", 1, "css", "block", "the .plain box stays a block",
                    property="display")
    decls = ["display: flex"]
    says = [f'Make ".{cls}" a flex container laying its items out in a {direction}']
    if direction == "column":
        decls.append("flex-direction: column")
    if gap:
        decls.append(f"gap: {gap}px")
        says.append(f"with a {gap}px gap between items")
    if justify != "flex-start":
        decls.append(f"justify-content: {justify}")
        says.append(f"justify-content {justify}")
    if align != "flex-start":
        decls.append(f"align-items: {align}")
        says.append(f"align-items {align}")
    if align == "flex-start" and difficulty != "easy":
        decls.append("align-items: flex-start")
        says.append("items aligned to the cross-axis start (align-items flex-start)")
    instruction = (", ".join(says) + '. The ".plain" box with the same items must keep its '
                   "current styles.")
    reference = f".{cls} {{ {'; '.join(decls)}; }}\n"
    wrong = [d for d in decls if not d.startswith(("justify", "gap"))]
    if wrong == decls:
        wrong = [d.replace("column", "row") for d in decls] if direction == "column" else \
            decls[:1] + ["flex-direction: column"]
    negative = f".{cls} {{ {'; '.join(wrong)}; }}\n"
    spec = {"direction": direction, "gap": gap, "justify": justify, "align": align,
            "mains": mains, "crosses": crosses if align != "stretch" else None}
    category = "flex_layout"
    return CssTask(category, markup, base, instruction, reference, negative, checks, spec)


BREAKPOINTS = [480, 520, 560, 600, 640, 700, 720, 768, 800, 840, 900, 960, 1024]
# Test widths: 80 px below the first breakpoint, each breakpoint, 1 px below it and 80 px
# above it. A breakpoint anywhere but the asked one then fails at one of them (the near miss
# moves it by NEAR_SHIFT, between the old test widths p - 80 and p + 80).
MARGIN, NEAR_SHIFT = 80, 40
SHIFTED = f"the breakpoint moved {NEAR_SHIFT}px up (between the outer test widths)"


def breakpoint_widths(points: list[int]) -> list[int]:
    """Viewport widths that pin every breakpoint of `points` (ascending) exactly."""
    return sorted({points[0] - MARGIN} | {w for p in points for w in (p - 1, p, p + MARGIN)})


def _query(mode: str, point: int) -> str:
    """The media query active from `point` on (min) or below `point` (max)."""
    return f"({mode}-width: {point if mode == 'min' else point - 1}px)"


def _responsive_change(rng: random.Random, used: set[str]) -> tuple[str, str, str, dict]:
    """One property change for `.side` or `.content`: (selector, decl, words, computed)."""
    menu = {"sidebar": ["display-none", "width", "background-color"],
            "content": ["padding", "font-size", "color"],
            "title": ["font-size", "text-align", "color"]}
    free = {t: [o for o in opts if f"{t}:{o}" not in used] for t, opts in menu.items()}
    target = rng.choice([t for t, opts in free.items() if opts])
    what = rng.choice(free[target])
    used.add(f"{target}:{what}")
    if what == "display-none":
        return f".{target}", "display: none", f'hide ".{target}" (display none)', {
            "display": "none"}
    if what == "width":
        w = rng.choice([120, 160, 180, 220])
        return f".{target}", f"width: {w}px", f'make ".{target}" {w}px wide', {"width": f"{w}px"}
    decl = _declaration({"padding": "padding"}.get(what, what), rng, used)
    return f".{target}", decl.text, f'give ".{target}" {decl.says}', decl.computed


RESPONSIVE_ELEMENTS = (".layout", ".title", ".sidebar", ".content")


def _responsive_base(selector: str, prop: str, width: int, base_values: dict) -> str:
    """The computed value of `prop` on a fixture element when no media query applies: the
    sidebar's base width is 200px, the other blocks fill the viewport (body margin 0)."""
    if prop == "width" and selector != ".sidebar":
        return f"{width}px"
    return base_values[prop]


def build_responsive(rng: random.Random, difficulty: str) -> CssTask:
    """Media-query breakpoints: values checked at viewport widths on both sides of each one."""
    n_points = 2 if difficulty == "moderate" else 1
    points = sorted(rng.sample(BREAKPOINTS, n_points))
    if n_points == 2 and points[1] - points[0] < 120:
        points[1] = points[0] + 160
    mode = rng.choice(["min", "max"]) if n_points == 1 else "min"
    markup = ('<div class="layout">\n  <h1 class="title">Title</h1>\n'
              '  <aside class="sidebar">Side</aside>\n  <main class="content">Main</main>\n'
              "</div>")
    base = (".sidebar { width: 200px; }\n.title { font-size: 16px; }\n"
            ".sidebar, .content, .title { display: block; }\n")
    widths = breakpoint_widths(points)
    viewports = [{"width": w, "height": 600} for w in widths]
    base_values = {"display": "block", "width": "200px"} | DEFAULTS
    checks, rules, says, used = Checks(), [], [], set()
    changes_per_rule = 2 if difficulty != "easy" else 1
    spec_rules, expected = [], []
    for point in points:
        changes = [_responsive_change(rng, used) for _ in range(changes_per_rule)]
        body = " ".join(f"{sel} {{ {decl}; }}" for sel, decl, _, _ in changes)
        rules.append(f"@media {_query(mode, point)} {{ {body} }}")
        says.append(f"at viewport widths {'of at least' if mode == 'min' else 'below'} "
                    f"{point}px, " + " and ".join(w for _, _, w, _ in changes))
        spec_rules.append([mode, point, [(s, c) for s, _, _, c in changes]])
        expected += [(point, sel, prop, value) for sel, _, _, computed in changes
                     for prop, value in computed.items()]
    # Every element of the fixture is probed for every property any rule sets, at every
    # width (issue 42: probing only the targets passed a universal rule inside the query).
    # One viewport at a time (the executor resizes once per viewport, not once per probe).
    props = list(dict.fromkeys(prop for _, _, prop, _ in expected))
    for view, width in enumerate(widths):
        for sel in RESPONSIVE_ELEMENTS:
            for prop in props:
                want = _responsive_base(sel, prop, width, base_values)
                for point, target, changed, value in expected:
                    active = width >= point if mode == "min" else width < point
                    if target == sel and changed == prop and active:
                        want = value
                checks.add_each("style", sel, 1, "css", want, f"{sel} {prop} at {width}px",
                                property=prop, viewport=view)
    instruction = ("Using media queries: " + "; ".join(says) + ". Outside those widths every "
                   "element keeps its current styles.")
    reference = "\n".join(rules) + "\n"
    flipped = "max" if mode == "min" else "min"
    negative = "\n".join(r.replace(f"({mode}-width", f"({flipped}-width") for r in rules) + "\n"
    near = reference
    for point in points:
        near = near.replace(_query(mode, point), _query(mode, point + NEAR_SHIFT))
    spec = {"rules": spec_rules}
    return CssTask("breakpoints", markup, base, instruction, reference, negative, checks, spec,
                   viewports, near_miss=near, near_miss_description=SHIFTED)


def build_responsive_flex(rng: random.Random, difficulty: str) -> CssTask:
    """Cards stacked as blocks on narrow viewports become a flex row from a breakpoint on."""
    point = rng.choice(BREAKPOINTS)
    n = rng.choice([2, 3]) if difficulty == "medium" else rng.choice([3, 4])
    w, h = rng.choice([100, 120, 140, 150]), rng.choice([40, 50, 60, 80])
    gap = rng.choice([8, 10, 12, 16, 20, 24])
    cls = rng.choice(["cards", "tiles", "deck", "grid"])
    markup = f'<div class="{cls}">\n' + "\n".join(
        f'  <div class="card">{k + 1}</div>' for k in range(n)) + "\n</div>"
    base = f".card {{ width: {w}px; height: {h}px; }}\n"
    widths = breakpoint_widths([point])
    checks = Checks()
    decls = ["display: flex", f"gap: {gap}px"]
    says = f"a flex row with a {gap}px gap"
    align = None
    if difficulty == "moderate":
        align = rng.choice(["center", "flex-end"])
        decls.append(f"justify-content: {align}")
        says += f" and justify-content {align}"
    row_width = n * w + (n - 1) * gap
    if row_width > point:  # the cards would shrink at the breakpoint: not what is computed
        raise ValueError(f"a {row_width}px row does not fit a {point}px viewport")
    checks.count(f".{cls} > .card", n)
    flex = {"display": "flex", "row-gap": f"{gap}px", "column-gap": f"{gap}px",
            "justify-content": align or "normal"}
    unset = {"display": "block", "row-gap": "normal", "column-gap": "normal",
             "justify-content": "normal"}
    for view, width in enumerate(widths):
        # The container and every card, for every property the rule sets (issue 42: a
        # universal rule inside the query passed when only the cards' boxes were probed).
        for prop, value in flex.items():
            checks.add_each("style", f".{cls}", 1, "css",
                            value if width >= point else unset[prop],
                            f".{cls} {prop} at {width}px", property=prop, viewport=view)
            checks.add_each("style", f".{cls} > .card", n, "css", unset[prop],
                            f"card {prop} at {width}px", property=prop, viewport=view)
        free = width - row_width
        start = {None: 0.0, "center": free / 2, "flex-end": free}[align]
        for k in range(n):
            rect = ({"x": 0, "y": k * h, "width": w} if width < point
                    else {"x": start + k * (w + gap), "y": 0, "width": w})
            checks.add("rect", f".{cls} > .card", "rect", rect, f"card {k + 1} at {width}px",
                       index=k, viewport=view, relative_to=f".{cls}")
    reference = f"@media (min-width: {point}px) {{ .{cls} {{ {'; '.join(decls)}; }} }}\n"
    negative = (f"@media (max-width: {point}px) {{ .{cls} {{ {'; '.join(decls)}; }} }}\n"
                if rng.random() < 0.5 else f".{cls} {{ {'; '.join(decls)}; }}\n")
    instruction = (f'At viewport widths of at least {point}px, lay out ".{cls}" as {says}; '
                   f"narrower than that, the cards stay stacked as blocks exactly as now.")
    near = reference.replace(f"(min-width: {point}px)", f"(min-width: {point + NEAR_SHIFT}px)")
    return CssTask("breakpoints", markup, base, instruction, reference, negative, checks,
                   {"flex_point": point, "cards": [n, w, h], "gap": gap, "justify": align},
                   [{"width": x, "height": 600} for x in widths], near_miss=near,
                   near_miss_description=SHIFTED)


BUILDERS: dict[str, tuple[Callable[[random.Random, str], CssTask], ...]] = {
    "easy": (build_scope, build_scope, build_box, build_flex, build_responsive),
    "medium": (build_scope, build_box, build_flex, build_responsive, build_responsive_flex),
    "moderate": (build_scope, build_box, build_flex, build_responsive, build_responsive_flex),
}


def fixture_page(markup: str, base_styles: str) -> str:
    """The trusted fixture page: base styles in the head, the markup in the body."""
    return ('<!DOCTYPE html>\n<html lang="en">\n<head>\n<meta charset="utf-8">\n'
            f'<style id="base">\n{base_styles}</style>\n</head>\n<body>\n{markup}\n</body>\n'
            "</html>\n")


def _css_shape(spec: dict) -> dict:
    """The structure of a CSS spec without its literal values (which properties, which
    selector pattern, which layout keywords), for the audit's shape count."""
    shape = {k: v for k, v in spec.items() if k in {"pattern", "direction", "justify", "align"}}
    shape["responsive_flex"] = "flex_point" in spec
    shape["rules"] = [[rule[0], [sorted(c) for _, c in rule[2]]] for rule in spec.get("rules", [])]
    shape["decls"] = [sorted(d) for d in spec.get("decls", [])]
    shape["padding"] = len(spec.get("padding", []))
    shape["border"] = "border" in spec
    return shape


def draw_css_task(rng: random.Random, difficulty: str,
                  builder: Callable[[random.Random, str], CssTask]) -> WebTaskDraft:
    """Draw one CSS task with `builder` and wrap it with its fixture and prompt prefix."""
    task = builder(rng, difficulty)
    base = COMMON_BASE + task.base
    widths = [v["width"] for v in task.viewports]
    views = f" at viewport widths {', '.join(f'{w}px' for w in widths)}" if len(widths) > 1 \
        else ""
    prefix = (f"/* Page body:\n{task.markup}\n\nBase styles (already applied):\n{base}\n"
              f"Task: {task.instruction} */\n")
    return WebTaskDraft(
        language="css", kind="css", difficulty=difficulty, family="stylesheet",
        category=task.category, instruction=task.instruction,
        input_domain=CSS_DOMAIN.format(views=views), prefix=prefix,
        reference_body=task.reference, negative_body=task.negative, checks=task.checks,
        near_miss_body=task.near_miss, near_miss_description=task.near_miss_description,
        spec={"markup": task.markup, "base": task.base, **task.spec},
        shape=_css_shape(task.spec),
        fixture=fixture_page(task.markup, base), base_styles=base, viewports=task.viewports)
