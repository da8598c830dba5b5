/**
 * The count of visible links, buttons and form controls in a page, which
 * coverage is measured against. It runs in the page through each server's
 * own evaluate tool (tabwright `execute`, Playwright MCP `browser_evaluate`,
 * Chrome DevTools MCP `evaluate_script`), so every server is measured
 * against the document it actually shows, with no second browser and no
 * Playwright in the count.
 *
 * Same definition as tabwright's in-page `census()` (src/page/runtime.ts),
 * written again here so the count does not depend on the server measured:
 * links are `a[href]`, `area[href]` and `role=link`; buttons are `button`,
 * `input[type=button|submit|reset|image]` and `role=button`; controls are
 * other non-hidden `input`s, `select` and `textarea`. Visible means not
 * hidden by style and with a box (or, for an empty box that does not clip,
 * a descendant with one); off-screen and covered elements count. Open
 * shadow roots and same-origin frames are included.
 */
import type { Census } from './types.js';

/** Marker that starts the census answer, so it can be found in any server's result text. */
export const CENSUS_MARK = 'TWBENCH-CENSUS';

/** A self-contained arrow function (source text) returning `TWBENCH-CENSUS links=N buttons=N controls=N`. */
export const CENSUS_FUNCTION = `() => {
  const BUTTON_TYPES = ['button', 'submit', 'reset', 'image'];
  const kind = el => {
    const role = (el.getAttribute('role') || '').trim().toLowerCase().split(/\\s+/)[0];
    if (role === 'button') return 'buttons';
    if (role === 'link') return 'links';
    const tag = el.localName;
    if ((tag === 'a' || tag === 'area') && el.hasAttribute('href')) return 'links';
    if (tag === 'button') return 'buttons';
    if (tag === 'input') {
      const type = (el.getAttribute('type') || '').toLowerCase();
      if (type === 'hidden') return null;
      return BUTTON_TYPES.includes(type) ? 'buttons' : 'controls';
    }
    return tag === 'select' || tag === 'textarea' ? 'controls' : null;
  };
  const styleOf = el => el.ownerDocument.defaultView ? el.ownerDocument.defaultView.getComputedStyle(el) : null;
  const styleVisible = el => {
    if (typeof el.checkVisibility === 'function' && !el.checkVisibility()) return false;
    const s = styleOf(el);
    return !!s && s.visibility === 'visible' && s.display !== 'none';
  };
  const hasArea = el => { const r = el.getBoundingClientRect(); return r.width > 0 && r.height > 0; };
  const textHasArea = node => {
    const range = node.ownerDocument.createRange();
    range.selectNodeContents(node);
    const r = range.getBoundingClientRect();
    return r.width > 0 && r.height > 0;
  };
  const visible = el => {
    const s = styleOf(el);
    if (!s) return false;
    if (s.display === 'contents') {
      for (const c of el.childNodes) {
        if (c.nodeType === 1 ? visible(c) : c.nodeType === 3 && s.visibility === 'visible' && textHasArea(c)) return true;
      }
      return false;
    }
    if (!styleVisible(el)) return false;
    if (hasArea(el)) return true;
    if (s.overflowX !== 'visible' || s.overflowY !== 'visible') return false;
    for (const c of el.querySelectorAll('*')) if (hasArea(c) && styleVisible(c)) return true;
    return false;
  };
  const count = { links: 0, buttons: 0, controls: 0 };
  const walk = root => {
    for (const el of root.querySelectorAll('*')) {
      const k = kind(el);
      if (k && visible(el)) count[k]++;
      if (el.shadowRoot) walk(el.shadowRoot);
      if ((el.localName === 'iframe' || el.localName === 'frame') && styleVisible(el) && hasArea(el)) {
        let doc = null;
        try { doc = el.contentDocument; } catch { doc = null; }
        if (doc && doc.documentElement) walk(doc);
      }
    }
  };
  walk(document);
  return '${CENSUS_MARK} links=' + count.links + ' buttons=' + count.buttons + ' controls=' + count.controls;
}`;

/** Finds the census answer anywhere in a tool result's text; undefined when absent. */
export function parseCensus(text: string): Census | undefined {
  const m = new RegExp(`${CENSUS_MARK} links=(\\d+) buttons=(\\d+) controls=(\\d+)`).exec(text);
  return m ? { links: Number(m[1]), buttons: Number(m[2]), controls: Number(m[3]) } : undefined;
}

/** Total of a census. */
export function censusTotal(c: Census): number {
  return c.links + c.buttons + c.controls;
}
