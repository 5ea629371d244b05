"""JavaScript DOM/event task builders: counters, toggles, live mirrors and list editors.

The candidate writes the body of `function setup(doc)`; the executor loads the fixture with
scripts enabled, runs the script and calls `setup(document)`, then dispatches the probe
actions (clicks, input) and observes the DOM. Difficulty grows with the state the handler
must keep and the number of elements it touches. Pure code.
"""

from __future__ import annotations

import random
from collections.abc import Callable
from dataclasses import dataclass

from .css_tasks import fixture_page
from .records import Checks, WebTaskDraft
from .vocab import CLASS_WORDS

DOM_DOMAIN = ("The fixed page shown in the prompt, scripts enabled, no network; setup(document) "
              "runs once after load, then clicks and input events are dispatched and the DOM "
              "is checked.")
BASE = "body { font-family: sans-serif; }\n"
IDS = ["go", "more", "tap", "step", "bump", "next", "push", "hit"]
OUTS = ["total", "count", "score", "tally", "value", "level"]


@dataclass
class DomTask:
    """What a DOM builder returns: markup, instruction, reference/negative bodies, checks."""

    category: str
    markup: str
    instruction: str
    reference: str
    negative: str
    checks: Checks
    spec: dict


def _text(checks: Checks, selector: str, value: str, what: str, **where: int) -> None:
    checks.add("text", selector, "text", value, what, **where)


def build_counter(rng: random.Random, difficulty: str) -> DomTask:
    """Clicks add a step to a shown number; moderate adds a maximum and a reset button."""
    b, o = rng.choice(IDS), rng.choice(OUTS)
    start, step = rng.randint(0, 20), rng.choice([1, 2, 3, 5, 10])
    markup = f'<button id="{b}">Add</button>\n<span id="{o}">{start}</span>'
    checks = Checks()
    clicks = rng.choice([2, 3])
    spec = {"family": "counter", "start": start, "step": step}
    if difficulty == "moderate":
        limit = start + step * (clicks - 1)
        markup += '\n<button id="reset">Reset</button>'
        instruction = (f'Each click on #{b} adds {step} to the number shown in #{o} (it starts '
                       f"at {start}), but never above {limit}: a click that would pass "
                       f"{limit} changes nothing. A click on #reset shows {start} again.")
        for _ in range(clicks + 1):
            checks.act("click", f"#{b}")
        _text(checks, f"#{o}", str(limit), "capped at the maximum")
        checks.act("click", "#reset")
        _text(checks, f"#{o}", str(start), "reset to the start")
        checks.act("click", f"#{b}")
        _text(checks, f"#{o}", str(start + step), "counts again after reset")
        reference = (f'  const out = doc.getElementById("{o}");\n'
                     f"  let n = {start};\n"
                     f'  doc.getElementById("{b}").addEventListener("click", () => {{\n'
                     f"    if (n + {step} <= {limit}) {{\n      n += {step};\n"
                     f"      out.textContent = String(n);\n    }}\n  }});\n"
                     f'  doc.getElementById("reset").addEventListener("click", () => {{\n'
                     f"    n = {start};\n    out.textContent = String(n);\n  }});\n}}\n")
        negative = reference.replace(f"if (n + {step} <= {limit})", "if (true)")
        spec["limit"] = limit
        return DomTask("counter", markup, instruction, reference, negative, checks, spec)
    instruction = (f"Each click on #{b} adds {step} to the number shown in #{o} (it starts at "
                   f"{start}).")
    for k in range(1, clicks + 1):
        checks.act("click", f"#{b}")
        _text(checks, f"#{o}", str(start + step * k), f"after {k} click(s)")
    reference = (f'  const out = doc.getElementById("{o}");\n'
                 f'  doc.getElementById("{b}").addEventListener("click", () => {{\n'
                 f"    out.textContent = String(Number(out.textContent) + {step});\n  }});\n}}\n")
    negative = reference.replace(f"Number(out.textContent) + {step}", f"{start + step}")
    return DomTask("counter", markup, instruction, reference, negative, checks, spec)


def build_toggle(rng: random.Random, difficulty: str) -> DomTask:
    """A button toggles a panel's hidden state or class; medium also flips aria-expanded."""
    b, panel = rng.choice(IDS), rng.choice(["panel", "menu", "drawer", "details", "box"])
    effect = rng.choice(["hidden", "class"])
    cls = rng.choice(CLASS_WORDS + ["open", "active", "shown"])
    markup = f'<button id="{b}">Toggle</button>\n<div id="{panel}">Content</div>'
    checks = Checks()
    lines = [f'  const p = doc.getElementById("{panel}");',
             f'  const b = doc.getElementById("{b}");',
             '  b.addEventListener("click", () => {']
    if effect == "hidden":
        said = f"hides #{panel} (the hidden attribute) if it is shown and shows it if hidden"
        lines.append("    p.hidden = !p.hidden;")
    else:
        said = f'adds the class "{cls}" to #{panel} if it lacks it and removes it otherwise'
        lines.append(f'    p.classList.toggle("{cls}");')
    spec = {"family": "toggle", "effect": effect, "class": cls if effect == "class" else None,
            "aria": difficulty != "easy"}
    if difficulty != "easy":
        markup = markup.replace("<button", '<button aria-expanded="false"')
        state = "the panel is shown" if effect == "hidden" else "the class is present"
        said += (f'; it also sets the button\'s aria-expanded to "true" while {state} and '
                 f'to "false" otherwise')
        if effect == "hidden":
            markup = markup.replace(f'<div id="{panel}"', f'<div id="{panel}" hidden')
            lines.append('    b.setAttribute("aria-expanded", String(!p.hidden));')
        else:
            lines.append(f'    b.setAttribute("aria-expanded", String(p.classList.contains('
                         f'"{cls}")));')
    lines.append("  });\n}\n")
    shown_first = effect == "hidden" and difficulty != "easy"
    for k in (1, 2):
        checks.act("click", f"#{b}")
        on = (k == 1)
        if effect == "hidden":
            visible = on if shown_first else not on
            checks.add("visible", f"#{panel}", "bool", visible, f"panel visible after {k}")
        else:
            checks.add("classes", f"#{panel}", "tokens", [cls] if on else [],
                       f"panel classes after {k}")
        if difficulty != "easy":
            checks.add("attr", f"#{b}", "enum", "true" if on else "false",
                       f"aria-expanded after {k}", name="aria-expanded")
    reference = "\n".join(lines)
    negative = reference.replace("p.hidden = !p.hidden", "p.hidden = true" if not shown_first
                                 else "p.hidden = false")
    negative = negative.replace(f'p.classList.toggle("{cls}")', f'p.classList.add("{cls}")')
    start = "hidden" if shown_first else "shown"
    instruction = f"The panel #{panel} starts {start}. Each click on #{b} {said}."
    return DomTask("toggle", markup, instruction, reference, negative, checks, spec)


MIRRORS = [
    ("greet", '"Hello, " followed by the input\'s current value (exactly as typed) and "!"',
     "`Hello, ${v}!`", lambda v: f"Hello, {v}!"),
    ("upper", "the input's current value (exactly as typed) in upper case",
     "v.toUpperCase()", lambda v: v.upper()),
    ("length", 'the number of characters of the input\'s current value followed by '
     '" characters"', "`${v.length} characters`", lambda v: f"{len(v)} characters"),
    ("trim-upper", "the input's current value without surrounding spaces, in upper case",
     "v.trim().toUpperCase()", lambda v: v.strip().upper()),
    ("initial", "the first character of the input's current value in upper case (empty text "
     "if there is none)", "v.charAt(0).toUpperCase()", lambda v: v[:1].upper()),
    ("bye", '"Bye, " followed by the input\'s current value (exactly as typed) and "."',
     "`Bye, ${v}.`", lambda v: f"Bye, {v}."),
]


def build_mirror(rng: random.Random, difficulty: str) -> DomTask:
    """An output element mirrors a transformed input value on every input event."""
    name, said, expr, fn = rng.choice(MIRRORS)
    field, out = rng.choice(["name", "word", "city", "title"]), rng.choice(OUTS + ["preview"])
    markup = f'<input id="{field}" type="text">\n<p id="{out}"></p>'
    checks = Checks()
    values = rng.sample(["ada", "Grace", " Linus ", "kay", "Alan T", "joan"], 2)
    for v in values:
        checks.act("input", f"#{field}", value=v)
        checks.add("text", f"#{out}", "exact", {"text": fn(v), "white_space_collapse":
                                                   "collapse"}, f"output for {v!r}")
    reference = (f'  const input = doc.getElementById("{field}");\n'
                 f'  const out = doc.getElementById("{out}");\n'
                 f'  input.addEventListener("input", () => {{\n    const v = input.value;\n'
                 f"    out.textContent = {expr};\n  }});\n}}\n")
    negative = reference.replace(f"out.textContent = {expr}", "out.textContent = v")
    instruction = (f"Whenever #{field} receives an input event, set the text of #{out} to "
                   f"{said}.")
    return DomTask("mirror", markup, instruction, reference, negative, checks,
                   {"family": "mirror", "transform": name, "values": values})


def build_list_editor(rng: random.Random, difficulty: str) -> DomTask:
    """Clicking Add appends the trimmed input value as a list item; blanks are ignored."""
    field, button = rng.choice(["item", "entry", "task", "todo"]), rng.choice(IDS)
    lst = rng.choice(["items", "list", "todos", "entries"])
    markup = (f'<input id="{field}" type="text">\n<button id="{button}">Add</button>\n'
              f'<ul id="{lst}"></ul>')
    words = rng.sample(["tea", "milk", "bread", "eggs", "rice", "soap", "salt"], 2)
    blank = rng.choice(["", "   "])
    checks = Checks()
    for v in [f" {words[0]}", blank, words[1]]:
        checks.act("input", f"#{field}", value=v)
        checks.act("click", f"#{button}")
    checks.add("count", f"#{lst} > li", "count", 2, "two items added")
    for k, w in enumerate(words):
        checks.add("text", f"#{lst} > li", "exact", {"text": w, "white_space_collapse":
                                                     "collapse"}, f"item {k + 1}", index=k)
    checks.add("prop", f"#{field}", "exact", "", "input cleared after adding", name="value")
    reference = (f'  const input = doc.getElementById("{field}");\n'
                 f'  const list = doc.getElementById("{lst}");\n'
                 f'  doc.getElementById("{button}").addEventListener("click", () => {{\n'
                 f"    const text = input.value.trim();\n    if (text === \"\") return;\n"
                 f'    const li = doc.createElement("li");\n    li.textContent = text;\n'
                 f'    list.appendChild(li);\n    input.value = "";\n  }});\n}}\n')
    negative = reference.replace('    if (text === "") return;\n', "")
    instruction = (f"Each click on #{button} reads #{field}'s value without surrounding spaces; "
                   f"if it is empty nothing happens, otherwise append an li with that text to "
                   f"#{lst} and clear #{field}.")
    return DomTask("list_editor", markup, instruction, reference, negative, checks,
                   {"family": "list_editor", "words": words, "blank": blank})


def build_enable(rng: random.Random, difficulty: str) -> DomTask:
    """A checkbox enables a button while checked; medium also shows a status text."""
    box, button = rng.choice(["agree", "terms", "ready", "confirm"]), rng.choice(IDS)
    markup = (f'<input id="{box}" type="checkbox">\n<button id="{button}" disabled>Send'
              f"</button>")
    checks = Checks()
    lines = [f'  const box = doc.getElementById("{box}");',
             f'  const button = doc.getElementById("{button}");',
             '  box.addEventListener("change", () => {',
             "    button.disabled = !box.checked;"]
    said = f"#{button} is enabled exactly while #{box} is checked"
    status = None
    if difficulty != "easy":
        status = rng.choice([("Ready", "Waiting"), ("On", "Off"), ("Yes", "No")])
        markup += f'\n<span id="state">{status[1]}</span>'
        lines.append(f'    doc.getElementById("state").textContent = box.checked ? '
                     f'"{status[0]}" : "{status[1]}";')
        said += f'; #state shows "{status[0]}" while it is checked and "{status[1]}" otherwise'
    lines.append("  });\n}\n")
    for k, on in enumerate([True, False, True]):
        checks.act("click", f"#{box}")
        checks.add("prop", f"#{button}", "bool", not on, f"button disabled after {k + 1} "
                   f"click(s)", name="disabled")
        if status:
            checks.add("text", "#state", "text", status[0] if on else status[1],
                       f"state after {k + 1} click(s)")
    reference = "\n".join(lines)
    negative = reference.replace("button.disabled = !box.checked;", "button.disabled = false;")
    instruction = (f"#{button} starts disabled. Whenever #{box} changes, update the page so "
                   f"that {said}.")
    return DomTask("enable", markup, instruction, reference, negative, checks,
                   {"family": "enable", "ids": [box, button], "status": status})


def build_tabs(rng: random.Random, difficulty: str) -> DomTask:
    """Tab buttons show their own panel and hide the others; moderate marks aria-selected."""
    names = rng.sample(["news", "sport", "music", "books", "games", "films", "food"],
                       3 if difficulty == "medium" else 4)
    cls = rng.choice(["selected", "current", "active", "on"])
    buttons = "\n".join(f'<button class="tab" data-tab="{n}">{n.title()}</button>'
                         for n in names)
    panels = "\n".join(f'<div class="pane" id="pane-{n}"{"" if i == 0 else " hidden"}>'
                        f"{n.title()}</div>" for i, n in enumerate(names))
    markup = f"{buttons}\n{panels}"
    aria = difficulty == "moderate"
    lines = ['  const tabs = doc.querySelectorAll(".tab");',
             "  tabs.forEach((tab) => {",
             '    tab.addEventListener("click", () => {',
             "      tabs.forEach((other) => {",
             "        const on = other === tab;",
             f'        other.classList.toggle("{cls}", on);']
    if aria:
        lines.append('        other.setAttribute("aria-selected", String(on));')
    lines += ['        doc.getElementById("pane-" + other.dataset.tab).hidden = !on;',
              "      });", "    });", "  });", "}", ""]
    checks = Checks()
    order = rng.sample(range(1, len(names)), 2)
    for pick in order:
        checks.act("click", ".tab", index=pick)
        for i, n in enumerate(names):
            checks.add("visible", f"#pane-{n}", "bool", i == pick, f"pane {n} after tab {pick}")
            checks.add("classes", ".tab", "tokens", ["tab", cls] if i == pick else ["tab"],
                       f"tab {n} classes", index=i)
            if aria:
                checks.add("attr", ".tab", "enum", "true" if i == pick else "false",
                           f"tab {n} aria-selected", name="aria-selected", index=i)
    reference = "\n".join(lines)
    negative = reference.replace("other === tab", "other === tab || other === tabs[0]")
    said = (f'a click on a .tab button shows the .pane whose id is "pane-" plus the button\'s '
            f'data-tab, hides the other panes, and gives the class "{cls}" to the clicked tab '
            f"only")
    if aria:
        said += ' (also set aria-selected to "true" on it and "false" on the other tabs)'
    return DomTask("tabs", markup, f"Make the tabs work: {said}.", reference, negative, checks,
                   {"family": "tabs", "names": names, "class": cls, "aria": aria,
                    "order": order})


BUILDERS: dict[str, tuple[Callable[[random.Random, str], DomTask], ...]] = {
    "easy": (build_counter, build_toggle, build_enable),
    "medium": (build_toggle, build_mirror, build_enable, build_tabs),
    "moderate": (build_counter, build_list_editor, build_tabs),
}


def draw_dom_task(rng: random.Random, difficulty: str,
                  builder: Callable[[random.Random, str], DomTask]) -> WebTaskDraft:
    """Draw one DOM task; the prompt ends with the `setup(doc)` opening."""
    task = builder(rng, difficulty)
    page = "\n".join(f"//   {line}" for line in task.markup.splitlines())
    prefix = (f"// Page body:\n{page}\n// Task: {task.instruction}\n"
              f"function setup(doc) {{\n")
    return WebTaskDraft(
        language="javascript", kind="dom", difficulty=difficulty, family="dom_events",
        category=task.category, instruction=task.instruction, input_domain=DOM_DOMAIN,
        prefix=prefix, reference_body=task.reference, negative_body=task.negative,
        checks=task.checks, spec={"markup": task.markup, **task.spec},
        shape={"family": task.spec["family"], "effect": task.spec.get("effect"),
               "aria": task.spec.get("aria"), "transform": task.spec.get("transform"),
               "status": bool(task.spec.get("status")), "limit": "limit" in task.spec},
        fixture=fixture_page(task.markup, BASE),
        base_styles=None, entry_point="setup")
