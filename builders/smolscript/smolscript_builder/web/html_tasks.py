"""HTML task builders: lists, links, media, forms, tables and text blocks.

Each builder draws one target structure from a seeded `random.Random` for a difficulty and
returns `(category, root Node, instruction)`. Difficulty grows with the number of elements,
attributes and nesting levels (easy: up to 4 elements, medium: about 5-12 and one level of
nesting, moderate: more elements and two or more levels). Pure code.
"""

from __future__ import annotations

import random
from collections.abc import Callable

from .html_tree import Attr, Node, el, hide, mutate, serialize, structure, tree_checks
from .records import WebTaskDraft
from .vocab import CLASS_WORDS, SLUGS, WORD_SETS

Builder = Callable[[random.Random, str], tuple[str, Node, str]]
HTML_DOMAIN = ("An HTML fragment placed in the body of an empty page; document scripts are "
               "disabled; checked by element structure, attributes and text.")


def _quote_list(words: list[str]) -> str:
    quoted = [f'"{w}"' for w in words]
    return quoted[0] if len(quoted) == 1 else ", ".join(quoted[:-1]) + " and " + quoted[-1]


def _words(rng: random.Random, n: int, avoid: list[str] = ()) -> list[str]:
    """`n` distinct words from one randomly chosen word set, none of them in `avoid`."""
    sets = [s for s in sorted(WORD_SETS) if len(set(WORD_SETS[s]) - set(avoid)) >= n]
    return rng.sample([w for w in WORD_SETS[rng.choice(sets)] if w not in avoid], n)


def _classes(rng: random.Random, n: int) -> str:
    return " ".join(rng.sample(CLASS_WORDS, n))


def build_list(rng: random.Random, difficulty: str) -> tuple[str, Node, str]:
    """ul/ol with items; medium adds list attributes; moderate nests a sub-list."""
    tag = rng.choice(["ul", "ol"])
    name = "an unordered" if tag == "ul" else "an ordered"
    n = {"easy": rng.choice([2, 3]), "medium": rng.choice([4, 5]),
         "moderate": rng.choice([3, 4])}[difficulty]
    words = _words(rng, n)
    items = [el("li", w) for w in words]
    attrs: list[Attr] = []
    extra = ""
    if difficulty == "easy" and rng.random() < 0.5:
        cls = _classes(rng, 1)
        attrs.append(Attr("class", cls, "tokens"))
        extra = f' with class "{cls}"'
    elif difficulty != "easy":
        choice = rng.choice(["classes", "start", "reversed"] if tag == "ol" else ["classes"])
        if choice == "classes":
            cls = _classes(rng, 2)
            attrs.append(Attr("class", cls, "tokens"))
            extra = f' with the classes "{cls}"'
        elif choice == "start":
            start = rng.randint(2, 20)
            attrs.append(Attr("start", str(start), "number"))
            extra = f" that starts numbering at {start}"
        else:
            attrs.append(Attr("reversed", True, "bool"))
            extra = " numbered in reverse (the reversed attribute)"
    instruction = f"Write {name} list{extra} with the items {_quote_list(words)}, in that order."
    if difficulty == "medium":
        pick = rng.randrange(n)
        items[pick].attrs.append(Attr("class", "active", "tokens"))
        instruction += f' Give the item "{words[pick]}" the class "active".'
    if difficulty == "moderate":
        pick = rng.randrange(n)
        sub_tag = "ol" if tag == "ul" else "ul"
        sub_words = _words(rng, 2, avoid=words)
        items[pick].children.append(el(sub_tag, None, *[el("li", w) for w in sub_words]))
        items[pick].text = words[pick]
        instruction += (f' Inside the item "{words[pick]}", after its text, nest '
                        f'{"an ordered" if sub_tag == "ol" else "an unordered"} list with the '
                        f"items {_quote_list(sub_words)}.")
    return "list", el(tag, None, *items, attrs=attrs), instruction


def build_links(rng: random.Random, difficulty: str) -> tuple[str, Node, str]:
    """A link (easy), a nav of links (medium), a nav > ul > li > a menu (moderate)."""
    n = {"easy": 1, "medium": rng.choice([3, 4]), "moderate": rng.choice([3, 4])}[difficulty]
    slugs = rng.sample(SLUGS, n)
    links = [el("a", s.capitalize(), attrs=[Attr("href", f"/{s}.html")]) for s in slugs]
    described = ", ".join(f'"{s.capitalize()}" to /{s}.html' for s in slugs)
    if difficulty == "easy":
        link = links[0]
        extra = ""
        if rng.random() < 0.6:
            link.attrs.append(Attr("target", "_blank", "enum", ("_self", "_parent")))
            extra = " that opens in a new browsing context (target _blank)"
        return "links", link, f"Write a link with the text {described}{extra}."
    pick = rng.randrange(n)
    current = links[pick]
    current.attrs.append(Attr("aria-current", "page", "enum", ("step", "location")))
    note = f' Mark the "{slugs[pick].capitalize()}" link with aria-current="page".'
    label = rng.choice(["Main", "Site", "Footer", "Section"])
    nav_attrs = [Attr("aria-label", label)]
    if difficulty == "medium":
        root = el("nav", None, *links, attrs=nav_attrs)
        return "links", root, (f'Write a nav element with aria-label "{label}" containing '
                               f"these links in order: {described}.{note}")
    ext = rng.randrange(n)
    links[ext].attrs.append(Attr("target", "_blank", "enum", ("_self", "_parent")))
    root = el("nav", None, el("ul", None, *[el("li", None, a) for a in links]), attrs=nav_attrs)
    return "links", root, (f'Write a nav element with aria-label "{label}" holding an '
                           f"unordered list; each list item holds one link, in order: "
                           f'{described}.{note} The "{slugs[ext].capitalize()}" link opens '
                           f"in a new browsing context (target _blank).")


def build_media(rng: random.Random, difficulty: str) -> tuple[str, Node, str]:
    """An image (easy), a figure with caption (medium), a section of figures (moderate)."""
    def image(word: str) -> tuple[Node, str]:
        w, h = rng.choice([(120, 80), (200, 150), (160, 90), (64, 64), (300, 200)])
        node = el("img", attrs=[Attr("src", f"img/{word.lower()}.png"),
                                Attr("alt", f"A {word.lower()}")])
        if difficulty != "easy" or rng.random() < 0.5:
            node.attrs += [Attr("width", str(w), "number"), Attr("height", str(h), "number")]
            size = f", width {w} and height {h}"
        else:
            size = ""
        return node, f'an image with source "img/{word.lower()}.png", alt text "A ' \
                     f'{word.lower()}"{size}'
    words = _words(rng, 2)
    if difficulty == "easy":
        node, text = image(words[0])
        return "media", node, f"Write {text}."
    figures, texts = [], []
    for word in words[: 1 if difficulty == "medium" else 2]:
        node, text = image(word)
        caption = f"The {word.lower()} at {rng.choice(['dawn', 'noon', 'dusk', 'night'])}"
        figures.append(el("figure", None, node, el("figcaption", caption)))
        texts.append(f'a figure holding {text}, followed by a figcaption "{caption}"')
    if difficulty == "medium":
        return "media", figures[0], f"Write {texts[0]}."
    heading = f"{words[0]} and {words[1]}"
    root = el("section", None, el("h2", heading), *figures)
    return "media", root, (f'Write a section with an h2 heading "{heading}", then '
                           f"{texts[0]}; then {texts[1]}.")


def build_form(rng: random.Random, difficulty: str) -> tuple[str, Node, str]:
    """A labelled input (easy), a small form (medium), a form with a select (moderate)."""
    fields = rng.sample([("email", "email", "Email"), ("text", "user", "Name"),
                         ("password", "secret", "Password"), ("number", "age", "Age"),
                         ("tel", "phone", "Phone"), ("url", "site", "Website"),
                         ("date", "day", "Date")], 2)

    def labelled(kind: str, name: str, label: str, required: bool) -> tuple[Node, str]:
        attrs = [Attr("type", kind, "enum", ("text", "search")), Attr("name", name)]
        if kind == "text":
            attrs[0] = Attr("type", kind, "enum", ("search", "email"))
        extra = ""
        if required:
            attrs.append(Attr("required", True, "bool"))
            extra = ", required"
        if kind in {"text", "password"}:
            size = rng.choice([8, 12, 16, 24])
            attrs.append(Attr("maxlength", str(size), "number"))
            extra += f", at most {size} characters (maxlength)"
        node = el("label", f"{label} ", el("input", attrs=attrs))
        return node, f'a label with the text "{label}" wrapping an input of type "{kind}" ' \
                     f'named "{name}"{extra}'
    if difficulty == "easy":
        node, text = labelled(*fields[0], required=rng.random() < 0.5)
        return "form", node, f"Write {text}."
    method = rng.choice(["post", "get"])
    action = f"/{rng.choice(SLUGS)}/{rng.choice(['send', 'save', 'join', 'ask'])}"
    parts, texts = [], []
    for kind, name, label in fields[: 1 if difficulty == "medium" else 2]:
        node, text = labelled(kind, name, label, required=rng.random() < 0.5)
        parts.append(node)
        texts.append(text)
    if difficulty == "moderate":
        choices = _words(rng, 3)
        chosen = rng.randrange(3)
        options = [el("option", c, attrs=[Attr("value", c.lower())]) for c in choices]
        options[chosen].attrs.append(Attr("selected", True, "bool"))
        parts.append(el("select", None, *options, attrs=[Attr("name", "choice")]))
        texts.append(f'a select named "choice" with options {_quote_list(choices)} (each '
                     f'option\'s value is its text in lower case), "{choices[chosen]}" '
                     f"selected")
    button = rng.choice(["Send", "Save", "Join", "Submit"])
    parts.append(el("button", button, attrs=[Attr("type", "submit", "enum", ("button",
                                                                             "reset"))]))
    root = el("form", None, *parts, attrs=[
        Attr("action", action), Attr("method", method, "enum", ("get", "dialog", "post"))])
    return "form", root, (f'Write a form that sends to "{action}" with method '
                          f"{method.upper()}. Inside it, in order: {'; '.join(texts)}; "
                          f'then a submit button with the text "{button}".')


def build_table(rng: random.Random, difficulty: str) -> tuple[str, Node, str]:
    """A table with thead/tbody (medium); moderate adds a caption, scope and a colspan."""
    cols = 2 if difficulty == "easy" else rng.choice([2, 3])
    rows = 1 if difficulty == "easy" else rng.choice([2, 3])
    heads = rng.sample(["Name", "Price", "Stock", "Color", "Size", "Year", "City"], cols)
    words = _words(rng, rows)
    body = []
    for r in range(rows):
        cells = [words[r]] + [str(rng.randint(1, 99)) for _ in range(cols - 1)]
        body.append(el("tr", None, *[el("td", c) for c in cells]))
    head_cells = [el("th", h) for h in heads]
    text = (f"Write a table. Its thead holds one row of header cells {_quote_list(heads)}; "
            f"its tbody holds the rows "
            + "; ".join(_quote_list([c.text or "" for c in r.children]) for r in body) + ".")
    parts: list[Node] = []
    if difficulty == "moderate":
        caption = f"{rng.choice(['Stock', 'Prices', 'Sales', 'Orders'])} for " \
                  f"{rng.choice(['May', 'June', 'July', 'March'])}"
        parts.append(el("caption", caption))
        for cell in head_cells:
            cell.attrs.append(Attr("scope", "col", "enum", ("row", "colgroup")))
        total = f"Total {rng.randint(100, 999)}"
        body.append(el("tr", None, el("td", total, attrs=[Attr("colspan", str(cols),
                                                               "number")])))
        text += (f' Give the table the caption "{caption}", give each header cell '
                 f'scope="col", and end the tbody with a row holding one cell "{total}" that '
                 f"spans {'both' if cols == 2 else 'all 3'} columns.")
    parts += [el("thead", None, el("tr", None, *head_cells)), el("tbody", None, *body)]
    return "table", el("table", None, *parts), text


def build_text(rng: random.Random, difficulty: str) -> tuple[str, Node, str]:
    """Headings and paragraphs (easy), article blocks with pre/hidden/details (harder)."""
    words = _words(rng, 3)
    if difficulty == "easy":
        form = rng.choice(["heading", "strong", "rtl"])
        if form == "heading":
            level = rng.choice(["h1", "h2", "h3"])
            cls = _classes(rng, 1)
            return "text", el(level, f"{words[0]} {words[1]}", attrs=[
                Attr("class", cls, "tokens")]), (f'Write an {level} heading with the text '
                                                 f'"{words[0]} {words[1]}" and class "{cls}".')
        if form == "strong":
            tag = rng.choice(["strong", "em"])
            node = el("p", f"{words[0]} and ", el(tag, words[1]), attrs=[])
            return "text", node, (f'Write a paragraph reading "{words[0]} and {words[1]}" '
                                  f'where "{words[1]}" is inside a {tag} element.')
        node = el("p", f"{words[0]} {words[1]}", attrs=[
            Attr("dir", "rtl", "enum", ("ltr", "auto")), Attr("lang", "ar")])
        return "text", node, (f'Write a paragraph with the text "{words[0]} {words[1]}", '
                              f'written right to left (dir="rtl") with lang "ar".')
    title = f"{words[0]} notes"
    indent = " " * rng.choice([2, 4])
    code = f"{words[1].lower()} = {rng.randint(1, 9)}\nif {words[1].lower()}:\n" \
           f"{indent}print({words[1].lower()})"
    children = [el("h2", title),
                el("p", f"Read about {words[1].lower()} ", el("strong", "today", tail="."))]
    text = (f'Write an article with an h2 heading "{title}", then a paragraph reading '
            f'"Read about {words[1].lower()} today." with "today" in a strong element')
    lines = code.split("\n")
    pre_said = (f'a pre block holding exactly three lines: "{lines[0]}", "{lines[1]}" and '
                f'"{lines[2]}" (keep the {len(indent)} leading spaces of the last)')
    block = rng.choice(["pre", "details", "hidden"])
    if difficulty == "moderate":
        children.append(el("pre", code))
        text += f", then {pre_said}"
        block = rng.choice(["details", "hidden"])
    if block == "pre" and difficulty == "medium":
        children.append(el("pre", code))
        text += f", then {pre_said}"
    elif block == "details":
        summary = f"More on {words[2].lower()}"
        children.append(el("details", None, el("summary", summary),
                           el("p", f"{words[2]} details."), attrs=[Attr("open", True, "bool")]))
        text += (f', then a details element shown open, with the summary "{summary}" and a '
                 f'paragraph "{words[2]} details."')
    else:
        children.append(el("p", f"{words[2]} is hidden.", attrs=[Attr("hidden", True,
                                                                     "hidden")]))
        text += f', then a hidden paragraph "{words[2]} is hidden." (the hidden attribute)'
    if difficulty == "moderate":
        children.append(el("footer", None, el("small", f"By {words[0]}")))
        text += f', and last a footer holding a small element "By {words[0]}"'
    return "text", el("article", None, *children), text + "."


ABBREVIATIONS = [("CSS", "Cascading Style Sheets"), ("HTML", "HyperText Markup Language"),
                 ("URL", "Uniform Resource Locator"), ("CPU", "Central Processing Unit"),
                 ("RAM", "Random Access Memory"), ("GPS", "Global Positioning System"),
                 ("PDF", "Portable Document Format"), ("USB", "Universal Serial Bus")]
MONTHS = ["January", "February", "March", "April", "May", "June", "July", "August",
          "September", "October", "November", "December"]


def build_semantics(rng: random.Random, difficulty: str) -> tuple[str, Node, str]:
    """Semantic inline/grouping elements: abbr, time, progress, checkbox, blockquote (easy);
    a description list, radio fieldset or select with a disabled option (medium/moderate)."""
    if difficulty == "easy":
        form = rng.choice(["abbr", "time", "progress", "checkbox", "quote"])
        if form == "abbr":
            short, full = rng.choice(ABBREVIATIONS)
            return "semantics", el("abbr", short, attrs=[Attr("title", full)]), (
                f'Write an abbr element showing "{short}" whose title is "{full}".')
        if form == "time":
            month, day = rng.randrange(12), rng.randint(1, 28)
            year = rng.randint(2001, 2030)
            stamp = f"{year}-{month + 1:02d}-{day:02d}"
            text = f"{MONTHS[month]} {day}, {year}"
            return "semantics", el("time", text, attrs=[Attr("datetime", stamp)]), (
                f'Write a time element showing "{text}" with the machine-readable datetime '
                f'"{stamp}".')
        if form == "progress":
            top = rng.choice([10, 20, 50, 100, 200])
            value = rng.randint(1, top - 1)
            node = el("progress", f"{value} of {top}", attrs=[
                Attr("value", str(value), "number"), Attr("max", str(top), "number")])
            return "semantics", node, (f"Write a progress element with value {value} and max "
                                       f'{top}, whose fallback text is "{value} of {top}".')
        if form == "checkbox":
            name = rng.choice(["news", "terms", "alerts", "remember", "public"])
            label = f"Send me {name}" if name in {"news", "alerts"} else f"Accept {name}"
            box = el("input", attrs=[Attr("type", "checkbox", "enum", ("radio", "text")),
                                     Attr("name", name), Attr("checked", True, "bool")])
            return "semantics", el("label", f"{label} ", box), (
                    f'Write a label with the text "{label}" wrapping a checkbox input named '
                    f'"{name}" that starts checked.')
        words = _words(rng, 2)
        slug = rng.choice(SLUGS)
        node = el("blockquote", None, el("p", f"{words[0]} before {words[1].lower()}."),
                  attrs=[Attr("cite", f"https://example.org/{slug}")])
        return "semantics", node, (f'Write a blockquote citing "https://example.org/{slug}" '
                                   f'that holds one paragraph "{words[0]} before '
                                   f'{words[1].lower()}."')
    form = rng.choice(["dl", "radios", "select"])
    n = 2 if difficulty == "medium" else 3
    words = _words(rng, n)
    if form == "dl":
        terms = []
        for w in words:
            terms += [el("dt", w), el("dd", f"{w} is number {rng.randint(1, 99)}.")]
        described = "; ".join(f'"{t.text}" described as "{d.text}"'
                              for t, d in zip(terms[::2], terms[1::2], strict=True))
        return "semantics", el("dl", None, *terms), (
            f"Write a description list with these term/description pairs in order: "
            f"{described}.")
    if form == "radios":
        group = rng.choice(["size", "plan", "speed", "color"])
        pick = rng.randrange(n)
        labels = []
        for i, w in enumerate(words):
            attrs = [Attr("type", "radio", "enum", ("checkbox", "text")), Attr("name", group),
                     Attr("value", w.lower())]
            if i == pick:
                attrs.append(Attr("checked", True, "bool"))
            labels.append(el("label", f"{w} ", el("input", attrs=attrs)))
        legend = f"Choose a {group}"
        return "semantics", el("fieldset", None, el("legend", legend), *labels), (
            f'Write a fieldset with the legend "{legend}", then for each of '
            f"{_quote_list(words)} a label with that text wrapping a radio input named "
            f'"{group}" whose value is the word in lower case; "{words[pick]}" starts '
            f"checked.")
    off = rng.randrange(n)
    options = [el("option", w, attrs=[Attr("value", w.lower())]) for w in words]
    options[off].attrs.append(Attr("disabled", True, "bool"))
    name = rng.choice(["pick", "choice", "item", "kind"])
    return "semantics", el("select", None, *options, attrs=[Attr("name", name)]), (
        f'Write a select named "{name}" with the options {_quote_list(words)} (each value is '
        f'its text in lower case); the "{words[off]}" option is disabled.')


BUILDERS: dict[str, tuple[Builder, ...]] = {
    "easy": (build_list, build_links, build_media, build_form, build_text, build_semantics),
    "medium": (build_list, build_links, build_media, build_form, build_table, build_text,
               build_semantics),
    "moderate": (build_list, build_links, build_media, build_form, build_table, build_text,
                 build_semantics),
}


def draw_html_task(rng: random.Random, difficulty: str, builder: Builder) -> WebTaskDraft:
    """Draw one HTML task with `builder`; the negative control mutates one probed feature."""
    category, root, instruction = builder(rng, difficulty)
    spare = [w for words in WORD_SETS.values() for w in words]
    prefix = f"<!-- {instruction} -->\n<"
    reference = serialize(root) + "\n"
    negative = serialize(mutate(root, rng, spare)) + "\n"
    return WebTaskDraft(
        language="html", kind="html", difficulty=difficulty, family="markup",
        category=category, instruction=instruction, input_domain=HTML_DOMAIN, prefix=prefix,
        reference_body=reference[1:], negative_body=negative[1:], checks=tree_checks(root),
        near_miss_body=hide(root)[1:] + "\n",
        near_miss_description="the asked markup, hidden in a <div hidden>",
        spec={"tree": structure(root)}, shape={"tree": structure(root, with_values=False)})
