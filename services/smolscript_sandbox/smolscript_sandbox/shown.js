// Whether a person can see an element: the `visible` probe with `rendered` (observe.js inlines
// this expression). Trusted code, run in the probes' isolated world; it returns a function of
// one element.
//
// An element is shown when some part of it can be seen. Its parts are its rendered text (the
// text nodes under it, each owned by the element that lays it out) or, when it has none, its
// own box (images, form controls, empty containers). A part can be seen when
//  - its owner is rendered: no display none, visibility hidden or opacity 0 (checkVisibility);
//  - the product of the opacities of its owner and every ancestor (filter: opacity() too) is
//    at least MIN_OPACITY;
//  - its box, cut by every ancestor whose overflow hides or clips and by the `clip` property
//    of positioned ancestors, is at least 1 x 1 CSS px (text: at least MIN_TEXT_PX high);
//  - text: its colour (fill, or a stroke) composited over the background beneath it (every
//    ancestor's background colour and gradient stops, over the canvas) has a contrast ratio
//    of at least MIN_CONTRAST (WCAG's formula) against that background, and no filter or
//    blend mode that can erase that difference applies to it;
//  - it is on top somewhere a reader can scroll to: at one of five sample points of its
//    box, scrolled into the viewport where the page scrolls, `elementFromPoint` (which honours
//    clip-path, z-order and covering elements) finds the text's own element (or the
//    display: contents chain up to its owner) or, for a box, the element or a descendant. Pointer events are forced on for the test, so that an
//    overlay cannot hide from it with `pointer-events: none`; scroll and styles are restored.
// An option has no box of its own: it must not be display none or visibility hidden, and its
// select must be shown.
(() => {
  const MIN_OPACITY = 0.1;
  const MIN_TEXT_PX = 4;
  const MIN_CONTRAST = 1.5;
  const NO_TEXT = "select, option, optgroup, datalist, textarea, script, style, template, " +
    "noscript, title";
  const COLOUR = /(?:rgba?|hsla?|hwb|lab|lch|oklab|oklch|color)\([^)]*\)/g;
  let ink = null;
  const rgba = (css) => {  // any CSS colour -> [r, g, b, a] (a in 0..1), through a canvas
    if (!ink) {
      const canvas = document.createElement("canvas");
      canvas.width = canvas.height = 1;
      ink = canvas.getContext("2d", {willReadFrequently: true});
    }
    ink.clearRect(0, 0, 1, 1);
    ink.fillStyle = "rgba(0, 0, 0, 0)";
    ink.fillStyle = css;
    ink.fillRect(0, 0, 1, 1);
    const d = ink.getImageData(0, 0, 1, 1).data;
    return [d[0], d[1], d[2], d[3] / 255];
  };
  const over = (top, ground) => [0, 1, 2].map((i) => top[i] * top[3] + ground[i] * (1 - top[3]));
  const luminance = (c) => {
    const [r, g, b] = c.map((v) => { const s = v / 255;
      return s <= 0.04045 ? s / 12.92 : ((s + 0.055) / 1.055) ** 2.4; });
    return 0.2126 * r + 0.7152 * g + 0.0722 * b;
  };
  const contrast = (a, b) => {
    const [hi, lo] = [luminance(a), luminance(b)].sort((x, y) => y - x);
    return (hi + 0.05) / (lo + 0.05);
  };
  const opacity = (el) => {
    let product = 1;
    for (let a = el; a; a = a.parentElement) {
      const cs = getComputedStyle(a);
      product *= parseFloat(cs.opacity);
      for (const m of cs.filter.matchAll(/opacity\(([\d.]+)(%?)\)/g)) {
        product *= parseFloat(m[1]) / (m[2] ? 100 : 1);
      }
    }
    return product;
  };
  // The colours the background beneath `el` can have (gradient stops give several).
  const grounds = (el) => {
    const layers = [];
    for (let a = el; a; a = a.parentElement) {
      const cs = getComputedStyle(a);
      const colour = rgba(cs.backgroundColor);
      const stops = cs.backgroundImage === "none" ? [] : (cs.backgroundImage.match(COLOUR) || []);
      layers.push({colour, stops: stops.map(rgba)});
      if (colour[3] >= 1 && !stops.length) break;  // opaque: nothing beneath shows through
    }
    const scheme = getComputedStyle(document.documentElement).colorScheme;
    let found = [/^(only )?dark$/.test(scheme.trim()) ? [18, 18, 18] : [255, 255, 255]];
    for (const layer of layers.reverse()) {
      found = found.map((g) => over(layer.colour, g));
      if (layer.stops.length) {
        found = found.flatMap((g) => layer.stops.map((s) => over(s, g))).slice(0, 32);
      }
    }
    return found;
  };
  // Filters and blend modes that can erase the difference between text and its background
  // (brightness or contrast near 0, a half inversion, a heavy blur, any blend mode): the
  // colours computed here would not be the colours shown, so such text is not taken as seen.
  const erased = (el) => {
    for (let a = el; a; a = a.parentElement) {
      const cs = getComputedStyle(a);
      if (cs.mixBlendMode !== "normal") return true;
      for (const m of cs.filter.matchAll(/(brightness|contrast|invert|blur)\(([-\d.]+)(%|px)?\)/g)) {
        const v = parseFloat(m[2]) / (m[3] === "%" ? 100 : 1);
        if ((m[1] === "brightness" || m[1] === "contrast") && v < 0.2) return true;
        if (m[1] === "invert" && v > 0.35 && v < 0.65) return true;
        if (m[1] === "blur" && v > 4) return true;
      }
    }
    return false;
  };
  // Text colour against the background beneath it: the fill, or a stroke at least 0.5 px wide
  // (a shadow does not count: it can be cast anywhere, off the page included).
  const legible = (owner) => {
    if (erased(owner)) return false;
    const cs = getComputedStyle(owner);
    const inks = [rgba(cs.getPropertyValue("-webkit-text-fill-color"))];
    if (parseFloat(cs.getPropertyValue("-webkit-text-stroke-width")) >= 0.5) {
      inks.push(rgba(cs.getPropertyValue("-webkit-text-stroke-color")));
    }
    return grounds(owner).some((g) => inks.some((c) => contrast(over(c, g), g) >= MIN_CONTRAST));
  };
  // A rectangle (viewport coordinates) of `el`'s content (`content`: its text) or of its own
  // box, cut by what clips it; null if nothing is left. An element's overflow clips its
  // content, not its own box; its `clip` clips both.
  const clipped = (r, el, content) => {
    let [left, top, right, bottom] = [r.left, r.top, r.right, r.bottom];
    for (let a = el; a; a = a.parentElement) {
      const cs = getComputedStyle(a);
      const ar = a.getBoundingClientRect();
      const clipX = (a !== el || content) && ["hidden", "clip"].includes(cs.overflowX);
      const clipY = (a !== el || content) && ["hidden", "clip"].includes(cs.overflowY);
      if (clipX) { left = Math.max(left, ar.left); right = Math.min(right, ar.right); }
      if (clipY) { top = Math.max(top, ar.top); bottom = Math.min(bottom, ar.bottom); }
      const m = /^rect\((.*)\)$/.exec(cs.clip);
      if (m && ["absolute", "fixed"].includes(cs.position)) {
        const [t, rt, b, l] = m[1].split(/[\s,]+/).map((v) => v === "auto" ? null : parseFloat(v));
        left = Math.max(left, ar.left + (l ?? 0));
        top = Math.max(top, ar.top + (t ?? 0));
        right = Math.min(right, rt === null ? ar.right : ar.left + rt);
        bottom = Math.min(bottom, b === null ? ar.bottom : ar.top + b);
      }
    }
    return right > left && bottom > top ? {left, top, right, bottom} : null;
  };
  const POINTS = [[0.5, 0.5], [0.25, 0.25], [0.75, 0.25], [0.25, 0.75], [0.75, 0.75]];
  const inView = (x, y) => x >= 0 && y >= 0 && x < innerWidth && y < innerHeight;
  // Whether the part whose current box `box()` gives is on top at one of its sample points.
  const onTop = (box, accept) => {
    for (const [fx, fy] of POINTS) {
      let r = box();
      if (!r) return false;
      let [x, y] = [r.left + fx * (r.right - r.left), r.top + fy * (r.bottom - r.top)];
      if (!inView(x, y)) {  // scroll it into view where the page scrolls (fixed boxes stay)
        scrollBy(x - innerWidth / 2, y - innerHeight / 2);
        r = box();
        if (!r) return false;
        [x, y] = [r.left + fx * (r.right - r.left), r.top + fy * (r.bottom - r.top)];
        if (!inView(x, y)) continue;
      }
      const hit = document.elementFromPoint(x, y);
      if (hit && accept(hit)) return true;
    }
    return false;
  };
  const forcePointerEvents = () => {
    const ids = "#smolscript-probe".repeat(40);
    const sheet = document.createElement("style");
    sheet.textContent = `:is(*, ${ids}), :is(*, ${ids})::before, :is(*, ${ids})::after ` +
      "{ pointer-events: auto !important; }";
    const inline = [];
    for (const el of document.querySelectorAll("[style]")) {
      if (el.style.getPropertyValue("pointer-events")) {
        inline.push([el, el.getAttribute("style")]);
        el.style.setProperty("pointer-events", "auto", "important");
      }
    }
    (document.head || document.documentElement).appendChild(sheet);
    return () => {
      sheet.remove();
      for (const [el, style] of inline) el.setAttribute("style", style);
    };
  };
  const boxOwner = (el) => {  // display: contents makes no box: its parent's box holds it
    let owner = el;
    while (owner && getComputedStyle(owner).display === "contents") owner = owner.parentElement;
    return owner;
  };
  const textParts = (el) => {
    const parts = [];
    const walker = document.createTreeWalker(el, NodeFilter.SHOW_TEXT);
    for (let node = walker.nextNode(); node; node = walker.nextNode()) {
      if (!node.data.trim() || node.parentElement.closest(NO_TEXT)) continue;
      parts.push(node);
    }
    return parts;
  };
  const textSeen = (node) => {
    const owner = boxOwner(node.parentElement);
    if (!owner || !owner.checkVisibility({checkOpacity: true, checkVisibilityCSS: true})) {
      return false;
    }
    if (getComputedStyle(node.parentElement).visibility !== "visible") return false;
    if (opacity(owner) < MIN_OPACITY || !legible(node.parentElement)) return false;
    const range = document.createRange();
    range.selectNodeContents(node);
    const count = range.getClientRects().length;
    for (let i = 0; i < count; i++) {
      const box = () => {
        const r = range.getClientRects()[i];
        const c = r && clipped(r, node.parentElement, true);
        return c && c.right - c.left >= 1 && c.bottom - c.top >= MIN_TEXT_PX ? c : null;
      };
      if (box() && onTop(box, (hit) => hit.contains(node) && owner.contains(hit))) return true;
    }
    return false;
  };
  const boxSeen = (el) => {
    if (opacity(el) < MIN_OPACITY) return false;
    const box = () => {
      const c = clipped(el.getBoundingClientRect(), el, false);
      return c && c.right - c.left >= 1 && c.bottom - c.top >= 1 ? c : null;
    };
    return Boolean(box()) && onTop(box, (hit) => el.contains(hit));
  };
  const shown = (el) => {
    const select = el.closest("select");
    if (select && select !== el) {
      const cs = getComputedStyle(el);
      return cs.display !== "none" && cs.visibility === "visible" && shown(select);
    }
    if (!el.checkVisibility({checkOpacity: true, checkVisibilityCSS: true})) return false;
    const [sx, sy] = [scrollX, scrollY];
    const restore = forcePointerEvents();
    try {
      const texts = textParts(el);
      return texts.length ? texts.some(textSeen) : boxSeen(el);
    } finally {
      restore();
      scrollTo(sx, sy);
    }
  };
  return shown;
})()
