/**
 * Cookie and privacy consent banners, the in-page half of
 * `dismiss_consent_banner` (docs/actions.md, "Cookie consent banners"). Not
 * to be confused with tabwright's own consent gate (src/consent), which asks
 * the human before a WebMCP call: this module only reads the page's cookie
 * banner.
 *
 * `scanConsentBanner` looks at one document (the server asks each frame on
 * its own, so a banner in a cross-origin iframe is found in that iframe's
 * document): first for the markup of the consent managers (CMPs) it knows,
 * each with its reject / necessary-only controls, the controls that open its
 * settings layer and its accept controls (never offered for a click); then,
 * failing those, for a generic banner: a visible dialog or fixed / sticky
 * element whose text speaks of cookies, consent or privacy, with a button
 * named like "Reject all" / "Only necessary" in English, German, French,
 * Spanish, Italian or Dutch. Elements come back as snapshot ids, which the
 * server turns into refs.
 */
import { interactiveKind, isVisible } from './dom.js';
import { shadowRootOf } from './shadow.js';
import { assignId, byId, cut, nameOf, nonce, roleOf, squash } from './snapshot.js';

/** What clicking a control chooses: reject everything optional, keep only the necessary cookies, or save the settings as shown (every optional purpose off). */
export type BannerChoice = 'reject_all' | 'necessary_only' | 'save_defaults';

/** A control of a banner. */
export interface BannerControl {
  /** Snapshot id (the server issues a ref for it). */
  id: string;
  role: string;
  name: string;
}

/** A control to click, with what it chooses. */
export interface BannerAction extends BannerControl {
  choice: BannerChoice;
}

/** What a scan asks. */
export interface BannerQuery {
  /** Look for the settings layer's controls of this CMP (after its settings control was clicked). */
  layer2?: string;
  /** Only say whether this banner is still shown: a CMP id, or `generic` with `rootId`. */
  shown?: { cmp: string; rootId?: string };
}

/** What `scanConsentBanner` found in this document. */
export interface BannerScan {
  nonce: string;
  /** Whether the document is a frame's (not the top window's). */
  inFrame: boolean;
  /** With `shown`: whether the banner is still visible. */
  shown?: boolean;
  banner?: {
    /** A CMP id (`onetrust`, ...), or `generic`. */
    cmp: string;
    /** The CMP's product name, or `Generic banner`. */
    cmpName: string;
    /** Snapshot id of the banner's root element (in a shadow tree for Usercentrics). */
    rootId: string;
    /** The reject / necessary-only / save control to click, the least permissive first. */
    action?: BannerAction;
    /** No action here, but this control opens the settings layer, where one may be (a known CMP only). */
    settings?: BannerControl;
    /** With layer2: the settings layer has a save control, but optional purposes are switched on (so it is not offered). */
    optedIn?: boolean;
    /** The banner's visible buttons and links, at most 8, accept controls included (for the agent to choose). */
    candidates: BannerControl[];
  };
}

/** A consent manager's markup (selectors learnt from its public banners; the accept controls are listed so they are never chosen). */
interface CmpRule {
  id: string;
  name: string;
  /** The banner (first layer), and the settings layer: any visible one means the banner is shown. */
  roots: string;
  /** Hosts whose open shadow root holds the banner (Usercentrics); `roots` are then looked up inside. */
  shadowHosts?: string;
  /** Only in a frame's document (the CMP serves its banner from its own origin: Sourcepoint). */
  frameOnly?: boolean;
  /** First-layer controls, the least permissive first. */
  reject: Array<[selector: string, choice: BannerChoice]>;
  /** Accept-all controls: never clicked, never counted as a reject. */
  accept: string;
  /** Opens the settings layer. */
  settings?: string;
  /** Settings-layer controls, the least permissive first (`save_defaults` only when every optional purpose is off). */
  layer2?: Array<[selector: string, choice: BannerChoice]>;
}

const CMPS: readonly CmpRule[] = [
  {
    id: 'onetrust', name: 'OneTrust',
    roots: '#onetrust-banner-sdk, #onetrust-pc-sdk',
    reject: [['#onetrust-reject-all-handler', 'reject_all']],
    accept: '#onetrust-accept-btn-handler, #accept-recommended-btn-handler, .onetrust-close-btn-handler.accept',
    settings: '#onetrust-pc-btn-handler',
    layer2: [['.ot-pc-refuse-all-handler', 'reject_all'], ['.save-preference-btn-handler', 'save_defaults']],
  },
  {
    id: 'cookiebot', name: 'Cookiebot',
    roots: '#CybotCookiebotDialog',
    reject: [['#CybotCookiebotDialogBodyButtonDecline', 'reject_all'], ['#CybotCookiebotDialogBodyLevelButtonLevelOptinDeclineAll', 'reject_all']],
    accept: '#CybotCookiebotDialogBodyLevelButtonLevelOptinAllowAll, #CybotCookiebotDialogBodyButtonAccept, #CybotCookiebotDialogBodyLevelButtonAccept',
    settings: '#CybotCookiebotDialogBodyLevelButtonCustomize, #CybotCookiebotDialogNavDetails',
    layer2: [['#CybotCookiebotDialogBodyButtonDecline', 'reject_all'], ['#CybotCookiebotDialogBodyLevelButtonLevelOptinAllowallSelection', 'save_defaults']],
  },
  {
    id: 'didomi', name: 'Didomi',
    roots: '#didomi-notice, .didomi-popup-notice, .didomi-consent-popup-preferences',
    reject: [['#didomi-notice-disagree-button', 'reject_all'], ['.didomi-continue-without-agreeing', 'reject_all']],
    accept: '#didomi-notice-agree-button, .didomi-popup-notice-buttons #didomi-notice-agree-button',
    settings: '#didomi-notice-learn-more-button',
    layer2: [['.didomi-consent-popup-preferences button[aria-label^="Disagree to all"]', 'reject_all']],
  },
  {
    id: 'quantcast', name: 'Quantcast Choice (InMobi)',
    roots: '.qc-cmp2-container #qc-cmp2-ui, .qc-cmp2-container .qc-cmp2-summary-section',
    reject: [['#disagree-btn', 'reject_all']],
    accept: '.qc-cmp2-summary-buttons > button[mode="primary"], #accept-btn',
  },
  {
    id: 'trustarc', name: 'TrustArc',
    roots: '#truste-consent-track, #truste-consent-content',
    reject: [['#truste-consent-required', 'necessary_only']],
    accept: '#truste-consent-button',
  },
  {
    id: 'usercentrics', name: 'Usercentrics',
    shadowHosts: '#usercentrics-root, #usercentrics-cmp-ui',
    roots: '[data-testid="uc-default-banner"], [data-testid="uc-center-container"], #uc-center-container, [data-testid="uc-container"], [role="dialog"]',
    reject: [['[data-testid="uc-deny-all-button"]', 'reject_all']],
    accept: '[data-testid="uc-accept-all-button"]',
    settings: '[data-testid="uc-more-button"]',
    layer2: [['[data-testid="uc-deny-all-button"]', 'reject_all'], ['[data-testid="uc-save-button"]', 'save_defaults']],
  },
  {
    id: 'sourcepoint', name: 'Sourcepoint',
    frameOnly: true,
    roots: '#notice, .message-container, .message.type-modal, .message.type-bottom, .message.type-top',
    reject: [['.sp_choice_type_13', 'reject_all'], ['.sp_choice_type_REJECT_ALL', 'reject_all']],
    accept: '.sp_choice_type_11, .sp_choice_type_ACCEPT_ALL',
  },
  {
    id: 'osano', name: 'Osano',
    roots: '.osano-cm-dialog, .osano-cm-info-dialog',
    reject: [['.osano-cm-denyAll', 'reject_all'], ['.osano-cm-button--type_denyAll', 'reject_all'], ['.osano-cm-deny', 'reject_all']],
    accept: '.osano-cm-accept-all, .osano-cm-accept, .osano-cm-button--type_accept',
    settings: '.osano-cm-manage, .osano-cm-link--type_manage',
    layer2: [['.osano-cm-info-dialog .osano-cm-denyAll', 'reject_all'], ['.osano-cm-info-dialog .osano-cm-save', 'save_defaults']],
  },
  {
    id: 'complianz', name: 'Complianz',
    roots: '.cmplz-cookiebanner',
    reject: [['.cmplz-deny', 'reject_all']],
    accept: '.cmplz-accept',
    settings: '.cmplz-view-preferences',
    layer2: [['.cmplz-deny', 'reject_all'], ['.cmplz-save-preferences', 'save_defaults']],
  },
  {
    id: 'cookieyes', name: 'CookieYes',
    roots: '.cky-consent-container, .cky-modal',
    reject: [['.cky-btn-reject', 'reject_all']],
    accept: '.cky-btn-accept',
    settings: '.cky-btn-customize',
    layer2: [['.cky-modal .cky-btn-reject', 'reject_all'], ['.cky-modal .cky-btn-preferences', 'save_defaults']],
  },
  {
    id: 'klaro', name: 'Klaro',
    roots: '.klaro .cookie-notice, .klaro .cookie-modal',
    reject: [['.klaro .cn-decline', 'reject_all'], ['.klaro .cm-btn-decline', 'reject_all']],
    accept: '.klaro .cm-btn-accept-all, .klaro .cookie-notice .cm-btn-success',
    settings: '.klaro .cn-learn-more, .klaro .cm-button-manage',
    layer2: [['.klaro .cookie-modal .cm-btn-decline', 'reject_all'], ['.klaro .cookie-modal .cm-btn-accept:not(.cm-btn-accept-all)', 'save_defaults']],
  },
  {
    id: 'iubenda', name: 'iubenda',
    roots: '#iubenda-cs-banner',
    reject: [['.iubenda-cs-reject-btn', 'reject_all']],
    accept: '.iubenda-cs-accept-btn',
  },
  {
    id: 'termly', name: 'Termly',
    roots: '#termly-code-snippet-support [data-tid="banner"], #termly-code-snippet-support [class*="termly-styles-root"], #termly-code-snippet-support .t-consentPrompt',
    reject: [['[data-tid="banner-decline"]', 'reject_all']],
    accept: '[data-tid="banner-accept"]',
  },
  {
    id: 'funding_choices', name: 'Google Funding Choices',
    roots: '.fc-consent-root .fc-dialog-container, .fc-consent-root .fc-dialog',
    reject: [['.fc-cta-do-not-consent', 'reject_all']],
    accept: '.fc-cta-consent',
    settings: '.fc-cta-manage-options',
    layer2: [['.fc-confirm-choices', 'save_defaults']],
  },
];

/** Words that say a box with a reject control is about cookies, consent or privacy (six languages). */
const TOPIC = /cookie|consent|privacy|gdpr|tracking|datenschutz|einwilligung|confidentialit|consentement|traceurs|privacidad|consentimiento|riservatezza|consenso|toestemming|privacyverklaring/i;
/** Words that make a box without a reject control a cookie banner still (a privacy-policy link alone does not). */
const STRONG_TOPIC = /cookie|consent|gdpr|einwilligung|consentement|traceurs|consentimiento|consenso|toestemming/i;

/** Names of necessary-only controls (English, German, French, Spanish, Italian, Dutch). */
const NECESSARY = new RegExp([
  '\\b(only|strictly) (the )?(necessary|essential|required)', '\\b(necessary|essential|required)( cookies)? only\\b', 'use necessary cookies only',
  'nur (die )?(notwendigen?|essenziellen?|erforderlichen?|technisch notwendigen?)', '(notwendige|essenzielle|erforderliche) cookies',
  '(uniquement|seulement) (les )?(cookies )?(n[ée]cessaires|essentiels|obligatoires)',
  's[oó]lo (las |los )?(cookies )?(necesarias|esenciales|imprescindibles|t[eé]cnicas)',
  's[oó]lo (i )?(cookie )?(necessari|essenziali|tecnici)', 'solo cookie (necessari|tecnici)',
  'alleen (de )?(noodzakelijke|functionele|essenti[eë]le)', 'alleen (noodzakelijk|functioneel)',
].join('|'), 'i');

/** Names of reject controls. */
const REJECT = new RegExp([
  '\\breject\\b', '\\bdecline\\b', '\\bdeny\\b', '\\brefuse\\b', '\\bdisagree\\b', 'do not (consent|accept|agree)', 'don.t (consent|accept|agree)', 'continue without (accepting|agreeing|consent)',
  'ablehnen', 'verweigern', 'nicht (zu)?stimmen', 'nicht einwilligen', 'ohne (zustimmung|einwilligung)',
  '\\brefuser\\b', 'tout refuser', 'je refuse', 'continuer sans accepter', 'ne pas consentir',
  '\\brechazar\\b', '\\bdenegar\\b', 'no acepto', 'continuar sin aceptar',
  '\\brifiuta\\b', 'rifiuto', 'continua senza accettare', '\\bnega\\b',
  'weigeren', 'afwijzen', 'niet akkoord', 'doorgaan zonder (te )?accepteren',
].join('|'), 'i');

/** Accept controls a name gives away (a generic banner's, and as a safety net for known CMPs). */
const ACCEPT = /^(accept|allow|agree|ok|okay|got it|i understand|alle akzeptieren|akzeptieren|zustimmen|einverstanden|accepter|tout accepter|j.accepte|aceptar|acepto|accetta|accetto|accepteren|akkoord|ik snap het)\b/i;

const MAX_CANDIDATES = 8;
const NAME_MAX = 100;

/** Elements of `root` (and of open or recorded shadow roots under it) matching `selector`, in document order. */
function queryDeep(root: Document | ShadowRoot | Element, selector: string): Element[] {
  const out: Element[] = [];
  const visit = (r: Document | ShadowRoot | Element) => {
    for (const el of r.querySelectorAll(selector)) out.push(el);
    for (const el of r.querySelectorAll('*')) {
      const shadow = shadowRootOf(el);
      if (shadow) visit(shadow);
    }
  };
  visit(root);
  return out;
}

/** Whether a person sees the element: visible by style with a box, and not hidden by aria or opacity 0. */
function shown(el: Element): boolean {
  if (!isVisible(el)) return false;
  for (let node: Element | null = el; node; node = node.parentElement ?? ((node.getRootNode() as ShadowRoot).host ?? null)) {
    const style = getComputedStyle(node);
    if (style.opacity === '0') return false;
  }
  return true;
}

/** A clickable control: a button, link or role=button, visible and enabled. */
function isControl(el: Element): boolean {
  const kind = interactiveKind(el);
  const role = roleOf(el, kind);
  if (kind !== 'button' && kind !== 'link' && role !== 'button' && role !== 'link') return false;
  return !(el as HTMLButtonElement).disabled && el.getAttribute('aria-disabled') !== 'true' && shown(el);
}

function describeControl(el: Element): BannerControl {
  const role = roleOf(el, interactiveKind(el)) || 'button';
  return { id: assignId(el), role, name: cut(squash(nameOf(el, role) || el.textContent), NAME_MAX) };
}

/** The banner's visible buttons and links, at most 8. */
function candidatesOf(roots: Element[]): BannerControl[] {
  const out: BannerControl[] = [];
  const seen = new Set<Element>();
  for (const root of roots) {
    for (const el of queryDeep(root, 'button, a[href], [role="button"], [role="link"], input[type="button"], input[type="submit"]')) {
      if (out.length >= MAX_CANDIDATES) return out;
      if (seen.has(el) || !isControl(el)) continue;
      seen.add(el);
      out.push(describeControl(el));
    }
  }
  return out;
}

/** The visible roots of a CMP in this document (inside its shadow hosts for one that has them). */
function rootsOf(rule: CmpRule): Element[] {
  if (rule.frameOnly && window === window.top) return [];
  const scopes: Array<Document | ShadowRoot> = [];
  if (rule.shadowHosts) {
    for (const host of document.querySelectorAll(rule.shadowHosts)) {
      const shadow = shadowRootOf(host);
      if (shadow) scopes.push(shadow);
    }
  } else scopes.push(document);
  const out: Element[] = [];
  for (const scope of scopes) for (const el of queryDeep(scope, rule.roots)) if (shown(el) && !out.some(o => o.contains(el))) out.push(el);
  // Sourcepoint's message document: only when it holds Sourcepoint's choice buttons.
  if (rule.frameOnly && !out.some(r => r.querySelector('[class*="sp_choice_type_"]'))) return [];
  return out;
}

/** Whether `el` is one of the rule's accept controls, or named like an accept control (and not like a reject). */
function isAccept(el: Element, rule: CmpRule | undefined, name: string): boolean {
  if (rule && el.matches(rule.accept)) return true;
  return ACCEPT.test(name) && !REJECT.test(name) && !NECESSARY.test(name);
}

/** The first visible, enabled control of `pairs` inside `roots` that is no accept control. */
function pick(roots: Element[], pairs: ReadonlyArray<[string, BannerChoice]>, rule: CmpRule): BannerAction | undefined {
  for (const [selector, choice] of pairs) {
    for (const root of roots) {
      for (const el of [...(root.matches(selector) ? [root] : []), ...queryDeep(root, selector)]) {
        if (!isControl(el)) continue;
        const c = describeControl(el);
        if (isAccept(el, rule, c.name)) continue;
        return { ...c, choice };
      }
    }
  }
  return undefined;
}

/** A reject or necessary-only control among `roots`' buttons, found by its name (the least permissive first). */
function byName(roots: Element[], rule: CmpRule | undefined): BannerAction | undefined {
  let necessary: BannerAction | undefined;
  for (const root of roots) {
    for (const el of queryDeep(root, 'button, a, [role="button"], input[type="button"], input[type="submit"]')) {
      if (!isControl(el)) continue;
      const c = describeControl(el);
      if (!c.name || c.name.length > 60 || isAccept(el, rule, c.name)) continue;
      if (REJECT.test(c.name)) return { ...c, choice: 'reject_all' };
      if (!necessary && NECESSARY.test(c.name)) necessary = { ...c, choice: 'necessary_only' };
    }
  }
  return necessary;
}

/** Whether an optional purpose is switched on in `roots` (a checked, enabled checkbox or switch). */
function optedIn(roots: Element[]): boolean {
  for (const root of roots) {
    for (const el of queryDeep(root, 'input[type="checkbox"], [role="switch"], [role="checkbox"]')) {
      if ((el as HTMLInputElement).disabled || el.getAttribute('aria-disabled') === 'true') continue;
      const on = el.localName === 'input' ? (el as HTMLInputElement).checked : el.getAttribute('aria-checked') === 'true';
      if (on) return true;
    }
  }
  return false;
}

/** The known CMP showing a banner in this document, with what to click. */
function scanKnown(layer2?: string): BannerScan['banner'] {
  for (const rule of CMPS) {
    if (layer2 !== undefined && rule.id !== layer2) continue;
    const roots = rootsOf(rule);
    if (!roots.length) continue;
    const banner: NonNullable<BannerScan['banner']> = { cmp: rule.id, cmpName: rule.name, rootId: assignId(roots[0]!), candidates: candidatesOf(roots) };
    if (layer2 !== undefined) {
      const pairs = rule.layer2 ?? [];
      // By selector only: a settings layer has per-purpose "Reject" buttons a name would match.
      const strict = pick(roots, pairs.filter(([, c]) => c !== 'save_defaults'), rule);
      const save = strict ? undefined : pick(roots, pairs.filter(([, c]) => c === 'save_defaults'), rule);
      if (strict) banner.action = strict;
      else if (save && optedIn(roots)) banner.optedIn = true;
      else if (save) banner.action = save;
      return banner;
    }
    const action = pick(roots, rule.reject, rule) ?? byName(roots, rule);
    if (action) banner.action = action;
    else if (rule.settings) {
      const opener = roots.flatMap(r => queryDeep(r, rule.settings!)).find(isControl);
      if (opener) banner.settings = describeControl(opener);
    }
    return banner;
  }
  return undefined;
}

/** Whether `el` is a box a cookie banner lives in: a dialog, or fixed / sticky. */
function isBox(el: Element, style: CSSStyleDeclaration): boolean {
  const role = el.getAttribute('role');
  if (role === 'dialog' || role === 'alertdialog' || el.getAttribute('aria-modal') === 'true') return true;
  if (el.localName === 'dialog' && (el as HTMLDialogElement).open) return true;
  return style.position === 'fixed' || style.position === 'sticky';
}

/** The outermost visible dialogs and fixed / sticky boxes of this document (and its shadow trees) whose text speaks of cookies or consent. */
function genericBoxes(strong: Map<Element, boolean>): Element[] {
  const out: Element[] = [];
  const visit = (scope: Document | ShadowRoot) => {
    for (const el of scope.querySelectorAll(scope === document ? 'body *' : '*')) {
      const shadow = shadowRootOf(el);
      if (shadow) visit(shadow);
      if (out.some(o => o.contains(el))) continue;
      const style = getComputedStyle(el);
      if (!isBox(el, style) || !shown(el)) continue;
      const text = squash((el as HTMLElement).innerText ?? el.textContent);
      if (text.length > 4000 || !TOPIC.test(text)) continue;
      out.push(el);
      strong.set(el, STRONG_TOPIC.test(text));
    }
  };
  visit(document);
  return out;
}

/**
 * A generic banner: the first cookie box with a reject or necessary-only
 * control, else the first box with controls whose text names cookies or
 * consent (no action: an unknown banner).
 */
function scanGeneric(): BannerScan['banner'] {
  let first: BannerScan['banner'];
  const strong = new Map<Element, boolean>();
  for (const box of genericBoxes(strong)) {
    const candidates = candidatesOf([box]);
    if (!candidates.length) continue;
    const banner: NonNullable<BannerScan['banner']> = { cmp: 'generic', cmpName: 'Generic banner', rootId: assignId(box), candidates };
    const action = byName([box], undefined);
    if (action) return { ...banner, action };
    if (strong.get(box)) first ??= banner;
  }
  return first;
}

/**
 * Scans this document for a cookie consent banner (see the module comment).
 * With `q.layer2`, looks for the settings layer's controls of that CMP; with
 * `q.shown`, only says whether that banner is still visible.
 */
export function scanConsentBanner(q: BannerQuery = {}): BannerScan {
  const inFrame = window !== window.top;
  if (q.shown) {
    if (q.shown.cmp === 'generic') {
      const el = q.shown.rootId ? byId(q.shown.rootId) : null;
      return { nonce, inFrame, shown: !!el && shown(el) };
    }
    const rule = CMPS.find(r => r.id === q.shown!.cmp);
    return { nonce, inFrame, shown: !!rule && rootsOf(rule).length > 0 };
  }
  const banner = scanKnown(q.layer2) ?? (q.layer2 === undefined ? scanGeneric() : undefined);
  return banner ? { nonce, inFrame, banner } : { nonce, inFrame };
}
