// Observation and action probes, evaluated in the page by the executor (trusted code).
// Takes a list of probes and returns one {ok, value} | {ok: false, error} per probe.
async (probes) => {
  const WS = {"normal": "collapse", "nowrap": "collapse", "pre": "preserve",
              "pre-wrap": "preserve", "pre-line": "preserve-breaks",
              "break-spaces": "break-spaces"};
  const pick = (p) => {
    const all = document.querySelectorAll(p.selector);
    const el = all[p.index || 0];
    if (!el) throw new Error(`no element matches ${p.selector} [${p.index || 0}]`);
    return el;
  };
  const rect = (el) => { const r = el.getBoundingClientRect();
    return {x: r.x, y: r.y, width: r.width, height: r.height}; };
  const round = (v) => Math.round(v * 100) / 100;
  const shown = __SHOWN__;  // shown.js: what a person can see (the `rendered` visible probe)
  const ops = {
    count: (p) => document.querySelectorAll(p.selector).length,
    attr: (p) => pick(p).getAttribute(p.name),
    has_attr: (p) => pick(p).hasAttribute(p.name),
    classes: (p) => Array.from(pick(p).classList).sort(),
    text: (p) => { const el = pick(p); const cs = getComputedStyle(el);
      const collapse = cs.getPropertyValue("white-space-collapse") || WS[cs.whiteSpace] ||
        "collapse";
      return {text: el.textContent, white_space_collapse: collapse}; },
    own_text: (p) => { const el = pick(p); const t = ops.text(p);
      t.text = Array.from(el.childNodes).filter((n) => n.nodeType === Node.TEXT_NODE)
        .map((n) => n.data).join(""); return t; },
    tags: (p) => Array.from(pick(p).children).map((c) => c.localName),
    // visible: the element has a box (checkVisibility). With `rendered`, a person can see
    // it (shown.js: opacity, size, clipping, colour contrast, reachable, not covered).
    visible: (p) => p.rendered ? shown(pick(p)) : pick(p).checkVisibility(),
    style: (p) => getComputedStyle(pick(p)).getPropertyValue(p.property),
    rect: (p) => { const r = rect(pick(p));
      if (p.relative_to) { const o = rect(document.querySelector(p.relative_to));
        r.x -= o.x; r.y -= o.y; }
      return {x: round(r.x), y: round(r.y), width: round(r.width), height: round(r.height)}; },
    prop: (p) => { const v = pick(p)[p.name];
      return v === undefined ? null : JSON.parse(JSON.stringify(v)); },
    click: (p) => { pick(p).click(); return true; },
    input: (p) => { const el = pick(p); el.value = p.value;
      el.dispatchEvent(new Event("input", {bubbles: true}));
      el.dispatchEvent(new Event("change", {bubbles: true})); return true; },
    key: (p) => { const el = pick(p);
      for (const type of ["keydown", "keyup"]) {
        el.dispatchEvent(new KeyboardEvent(type, {key: p.key, bubbles: true})); }
      return true; },
  };
  // What a person sees once the page has settled: every transition and finite animation is
  // finished before an observation (a stylesheet inserted into the loaded fixture starts
  // transitions that a page loaded with it never shows, and an action may start more); an
  // infinite animation is held at its start, so that the reading does not depend on when the
  // probe ran. getAnimations() first flushes pending style, which starts those transitions.
  const settle = () => {
    for (const a of document.getAnimations()) {
      try {
        const end = a.effect ? a.effect.getComputedTiming().endTime : 0;
        if (Number.isFinite(end)) { a.finish(); } else { a.currentTime = 0; a.pause(); }
      } catch (e) { /* an animation that cannot be finished or held is left as it is */ }
    }
  };
  const out = [];
  for (const p of probes) {
    if (!["click", "input", "key"].includes(p.op)) settle();
    try { out.push({ok: true, value: ops[p.op](p)}); }
    catch (e) { out.push({ok: false, error: String(e && e.message || e)}); }
    if (["click", "input", "key"].includes(p.op)) {
      await new Promise((resolve) => setTimeout(resolve, 0));
    }
  }
  return out;
}
