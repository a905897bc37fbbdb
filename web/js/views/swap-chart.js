// Putting a newly drawn chart in the page: zoom and pan draw a chart many times a second, and most of it (legend,
// labels, patterns, axes that did not move) is the same each time, so a new chart of the same size is patched into
// the old one instead of replacing it, and the browser redoes style, layout and paint only for what changed.

/**
 * Puts a newly drawn chart in its box. A chart of the same size is patched into the old one: element by element
 * in document order, only the attributes and texts that differ are set, and only where the structure differs are
 * elements moved in or removed. What a zoom or pan step leaves as it was (the legend, the stage labels, the
 * patterns, most paths' elements) keeps its style and layout, so the browser redoes only what changed, and the
 * page around the chart needs no new layout.
 * @param {HTMLElement} box
 * @param {SVGSVGElement} chart
 */
export function swapChart(box, chart) {
  const old = box.firstElementChild;
  if (!(old instanceof SVGSVGElement) || old.id !== chart.id || old.getAttribute('width') !== chart.getAttribute('width') ||
      old.getAttribute('height') !== chart.getAttribute('height')) {
    box.replaceChildren(chart);
    return;
  }
  patchElement(old, chart);
}

/** Parts drawn lately, by key (a few charts' worth), and a short name for each key, unique in the page's life. */
const drawn = /** @type {Map<string, Element>} */ (new Map());
let named = 0;

/**
 * A part of a chart that depends only on what its key says (a legend, the stage labels, an axis that does not
 * follow the time window): built once per key and copied after that, and marked with a short name for the key, so
 * patching a chart skips it whole when it is the same (the key must say everything the part depends on).
 * @param {string} key
 * @param {() => Element} build
 * @returns {Element}
 */
export function kept(key, build) {
  let part = drawn.get(key);
  if (!part) {
    part = build();
    part.setAttribute('data-key', `k${++named}`);
    if (drawn.size >= 32) drawn.clear();
    drawn.set(key, part);
  }
  return /** @type {Element} */ (part.cloneNode(true));
}

/**
 * Makes `old` equal to `next` (attributes and children), moving `next`'s children over where they do not match;
 * a part with the same key as the old one's (kept) is the same already.
 * @param {Element} old
 * @param {Element} next
 */
function patchElement(old, next) {
  const key = next.getAttribute('data-key');
  if (key !== null && old.getAttribute('data-key') === key) return;
  const names = next.getAttributeNames();
  for (const name of names) {
    const value = next.getAttribute(name);
    if (old.getAttribute(name) !== value) old.setAttribute(name, /** @type {string} */ (value));
  }
  if (old.attributes.length !== names.length) {
    for (const name of old.getAttributeNames()) if (!next.hasAttribute(name)) old.removeAttribute(name);
  }
  let mine = old.firstChild;
  let theirs = next.firstChild;
  while (theirs) {
    const following = theirs.nextSibling;
    if (!mine || mine.nodeName !== theirs.nodeName) {
      old.insertBefore(theirs, mine);
    } else if (mine instanceof SVGPathElement && mine.getAttribute('d') !== /** @type {Element} */ (theirs).getAttribute('d')) {
      // A path whose shape changed is taken whole: its data, parsed once already, would be parsed again if copied.
      const replaced = mine;
      mine = mine.nextSibling;
      old.replaceChild(theirs, replaced);
    } else {
      if (mine instanceof Element && theirs instanceof Element) patchElement(mine, theirs);
      else if (mine.nodeValue !== theirs.nodeValue) mine.nodeValue = theirs.nodeValue;
      mine = mine.nextSibling;
    }
    theirs = following;
  }
  while (mine) {
    const following = mine.nextSibling;
    mine.remove();
    mine = following;
  }
}
