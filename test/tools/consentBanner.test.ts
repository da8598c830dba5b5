// dismiss_consent_banner end to end: each consent manager's banner (hand-written from the markup the CMPs ship)
// is closed with its reject / necessary-only control, the page records which control got the click, and no
// accept control ever does; two-step banners (Accept + Settings) are refused in their settings layer; a
// Sourcepoint banner in a cross-site iframe is clicked inside the frame; a generic cookie dialog is matched by its
// button names; an unknown banner is not_recognized with its buttons as refs click takes; no banner is a plain
// result with dismissed: false. Cookie banners only: tabwright's consent gate (src/consent) is another thing.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { useSession } from '../fixtures/harness.js';
import { call, callRaw, evaluate } from '../fixtures/mcp.js';
import { sharedMissing, CORPUS } from '../fixtures/site.js';

/** Keeps the other.test host on loopback (a second site for the cross-site frame, as in frames.test.ts). */
const HOST_RULES = '--host-resolver-rules=MAP other.test 127.0.0.1, MAP * ~NOTFOUND, EXCLUDE 127.0.0.1';

/**
 * A page with an article and a banner: every control carries `data-k` (what it does); a click records it in
 * `window.clicked`; reject / save / accept hide every `[data-root]` (as the CMPs do), settings shows `[data-layer2]`.
 */
function page(title: string, banner: string, extra = ''): string {
  return `<!doctype html><html lang="en"><title>${title}</title>
<main><h1>${title}</h1><p>Some article text to read.</p><button id="article-button">Read more</button></main>
${banner}
<script>
window.clicked = [];
document.addEventListener('click', e => {
  const el = e.composedPath().find(n => n.dataset && n.dataset.k);
  if (!el) return;
  clicked.push(el.dataset.k);
  const hideAll = () => { for (const r of document.querySelectorAll('[data-root]')) r.style.display = 'none'; };
  if (el.dataset.k === 'settings') for (const l of document.querySelectorAll('[data-layer2]')) l.style.display = 'block';
  else if (el.dataset.k !== 'toggle') setTimeout(hideAll, 50);
}, true);
</script>${extra}</html>`;
}

const bar = 'position:fixed;bottom:0;left:0;right:0;background:#fff;padding:12px;border-top:1px solid #000;z-index:1000';

/** Known CMP banners with a reject control at the first layer: path → [cmp, choice, clicked name, html]. */
const FIRST_LAYER: Record<string, [string, string, string, string]> = {
  '/onetrust': ['onetrust', 'reject_all', 'Reject All', `<div id="onetrust-consent-sdk" data-root><div id="onetrust-banner-sdk" class="otFlat" role="region" aria-label="Cookie banner" style="${bar}">
  <div id="onetrust-policy"><p id="onetrust-policy-text">We use cookies to improve your experience.</p></div>
  <div id="onetrust-button-group-parent"><div id="onetrust-button-group">
    <button id="onetrust-pc-btn-handler" data-k="settings">Cookie Settings</button>
    <button id="onetrust-reject-all-handler" data-k="reject">Reject All</button>
    <button id="onetrust-accept-btn-handler" data-k="accept">Accept All Cookies</button>
  </div></div></div></div>`],
  '/cookiebot': ['cookiebot', 'reject_all', 'Deny', `<div id="CybotCookiebotDialog" role="dialog" aria-modal="true" data-root style="${bar}">
  <div id="CybotCookiebotDialogBody"><h2 id="CybotCookiebotDialogBodyContentTitle">This website uses cookies</h2></div>
  <div id="CybotCookiebotDialogFooter"><div id="CybotCookiebotDialogBodyButtonsWrapper">
    <button id="CybotCookiebotDialogBodyButtonDecline" class="CybotCookiebotDialogBodyButton" data-k="reject">Deny</button>
    <button id="CybotCookiebotDialogBodyLevelButtonCustomize" class="CybotCookiebotDialogBodyButton" data-k="settings">Customize</button>
    <button id="CybotCookiebotDialogBodyLevelButtonLevelOptinAllowAll" class="CybotCookiebotDialogBodyButton" data-k="accept">Allow all</button>
  </div></div></div>`],
  '/didomi': ['didomi', 'reject_all', 'Continue without agreeing', `<div id="didomi-host" class="didomi-host"><div id="didomi-notice" class="didomi-notice-banner didomi-popup-notice" data-root style="${bar}">
  <div class="didomi-notice-text">We and our partners use cookies and similar technologies.</div>
  <button id="didomi-notice-learn-more-button" class="didomi-components-button" data-k="settings">Learn more</button>
  <button id="didomi-notice-disagree-button" aria-label="Continue without agreeing" class="didomi-components-button" data-k="reject"><span>Continue without agreeing</span></button>
  <button id="didomi-notice-agree-button" aria-label="Agree and close" class="didomi-components-button" data-k="accept"><span>Agree and close</span></button>
  </div></div>`],
  '/quantcast': ['quantcast', 'reject_all', 'REJECT ALL', `<div id="qc-cmp2-container" class="qc-cmp2-container" data-root><div id="qc-cmp2-main" class="qc-cmp2-main">
  <div id="qc-cmp2-ui" role="dialog" aria-label="qc-cmp2-ui" style="${bar}"><div class="qc-cmp2-summary-section"><p>We value your privacy. We and our partners store and access information on a device, such as cookies.</p></div>
  <div class="qc-cmp2-footer"><div class="qc-cmp2-summary-buttons">
    <button mode="secondary" size="large" data-k="settings"><span>MORE OPTIONS</span></button>
    <button mode="secondary" size="large" data-k="reject"><span>REJECT ALL</span></button>
    <button mode="primary" size="large" data-k="accept"><span>AGREE</span></button>
  </div></div></div></div></div>`],
  '/trustarc': ['trustarc', 'necessary_only', 'Required Cookies Only', `<div id="consent_blackbar" data-root><div id="truste-consent-track" style="${bar}">
  <div id="truste-consent-content"><div id="truste-consent-text">This site uses cookies and related technologies for site operation and analytics.</div>
  <div id="truste-consent-buttons">
    <button id="truste-consent-button" class="truste-button1" data-k="accept">Accept All Cookies</button>
    <button id="truste-consent-required" class="truste-button2" data-k="reject">Required Cookies Only</button>
    <button id="truste-show-consent" class="truste-button3" data-k="settings">Cookie Preferences</button>
  </div></div></div></div>`],
  '/osano': ['osano', 'reject_all', 'Deny', `<div class="osano-cm-window" data-root><div class="osano-cm-dialog osano-cm-dialog--position_bottom osano-cm-dialog--type_bar" role="dialog" aria-label="Cookie Consent Banner" style="${bar}">
  <div class="osano-cm-content"><span class="osano-cm-message">This website utilizes technologies such as cookies to enable essential site functionality.</span></div>
  <div class="osano-cm-dialog__buttons">
    <button class="osano-cm-manage osano-cm-button osano-cm-button--type_manage" data-k="settings">Manage Preferences</button>
    <button class="osano-cm-accept-all osano-cm-button osano-cm-button--type_accept" data-k="accept">Accept</button>
    <button class="osano-cm-denyAll osano-cm-button osano-cm-button--type_denyAll" data-k="reject">Deny</button>
  </div></div></div>`],
  '/complianz': ['complianz', 'reject_all', 'Deny', `<div id="cmplz-cookiebanner-container" data-root><div class="cmplz-cookiebanner cmplz-show banner-1 optin" role="dialog" aria-live="polite" aria-labelledby="cmplz-header-1-optin" style="${bar}">
  <div class="cmplz-header"><div class="cmplz-title" id="cmplz-header-1-optin">Manage Cookie Consent</div></div>
  <div class="cmplz-body"><div class="cmplz-message">To provide the best experiences, we use technologies like cookies.</div></div>
  <div class="cmplz-buttons">
    <button class="cmplz-btn cmplz-accept" data-k="accept">Accept</button>
    <button class="cmplz-btn cmplz-deny" data-k="reject">Deny</button>
    <button class="cmplz-btn cmplz-view-preferences" data-k="settings">View preferences</button>
  </div></div></div>`],
  '/cookieyes': ['cookieyes', 'reject_all', 'Reject All', `<div class="cky-consent-container cky-box-bottom-left" tabindex="0" data-root style="${bar}"><div class="cky-consent-bar" data-cky-tag="notice">
  <div class="cky-notice"><p class="cky-title" role="heading">We value your privacy</p><div class="cky-notice-des"><p>We use cookies to enhance your browsing experience.</p></div>
  <div class="cky-notice-btn-wrapper">
    <button class="cky-btn cky-btn-customize" aria-label="Customise" data-k="settings">Customise</button>
    <button class="cky-btn cky-btn-reject" aria-label="Reject All" data-k="reject">Reject All</button>
    <button class="cky-btn cky-btn-accept" aria-label="Accept All" data-k="accept">Accept All</button>
  </div></div></div></div>`],
  '/klaro': ['klaro', 'reject_all', 'I decline', `<div id="klaro"><div class="klaro" data-root><div class="cookie-notice" role="dialog" style="${bar}">
  <div class="cn-body"><p id="id-cookie-notice">Hi! Could we please enable some additional services for Analytics? You can always change or withdraw your consent later.</p>
  <div class="cn-ok">
    <a class="cm-link cn-learn-more" href="#" data-k="settings">Let me choose</a>
    <div class="cn-buttons">
      <button class="cm-btn cm-btn-danger cn-decline" type="button" data-k="reject">I decline</button>
      <button class="cm-btn cm-btn-success" type="button" data-k="accept">That's ok</button>
    </div></div></div></div></div></div>`],
  '/iubenda': ['iubenda', 'reject_all', 'Reject', `<div id="iubenda-cs-banner" class="iubenda-cs-default-floating iubenda-cs-bottom" role="alertdialog" aria-labelledby="iubenda-cs-title" data-root style="${bar}">
  <div class="iubenda-cs-container"><div class="iubenda-cs-content"><div id="iubenda-cs-title">Notice</div>
  <div id="iubenda-cs-paragraph"><p class="iub-p">We and selected third parties use cookies or similar technologies for technical purposes and, with your consent, for other purposes.</p></div>
  <div class="iubenda-cs-opt-group">
    <div class="iubenda-cs-opt-group-custom"><button class="iubenda-cs-customize-btn" data-k="settings">Learn more and customize</button></div>
    <div class="iubenda-cs-opt-group-consent"><button class="iubenda-cs-reject-btn iubenda-cs-btn-primary" data-k="reject">Reject</button><button class="iubenda-cs-accept-btn iubenda-cs-btn-primary" data-k="accept">Accept</button></div>
  </div></div></div></div>`],
  '/termly': ['termly', 'reject_all', 'Decline', `<div id="termly-code-snippet-support" data-root><div class="termly-styles-root-a4b2c" data-tid="banner" style="${bar}">
  <div class="termly-styles-message-d3e1"><p>We use essential cookies to make our site work. With your consent, we may also use non-essential cookies.</p></div>
  <div class="termly-styles-buttons-f0a1">
    <button class="termly-styles-module-root termly-styles-button" data-tid="banner-accept" data-k="accept">Accept</button>
    <button class="termly-styles-module-root termly-styles-button" data-tid="banner-decline" data-k="reject">Decline</button>
  </div></div></div>`],
  '/funding-choices': ['funding_choices', 'reject_all', 'Do not consent', `<div class="fc-consent-root" data-root><div class="fc-dialog-overlay"></div><div class="fc-dialog-container" style="${bar}">
  <div class="fc-dialog fc-choice-dialog" role="dialog" aria-modal="true" aria-label="This site asks for consent to use your data">
  <div class="fc-dialog-content"><h1 class="fc-dialog-headline">This site asks for consent to use your data</h1></div>
  <div class="fc-footer-buttons-container"><div class="fc-footer-buttons">
    <button class="fc-button fc-cta-do-not-consent fc-secondary-button" aria-label="Do not consent" data-k="reject"><p class="fc-button-label">Do not consent</p></button>
    <button class="fc-button fc-cta-consent fc-primary-button" aria-label="Consent" data-k="accept"><p class="fc-button-label">Consent</p></button>
    <button class="fc-button fc-cta-manage-options fc-secondary-button" aria-label="Manage options" data-k="settings"><p class="fc-button-label">Manage options</p></button>
  </div></div></div></div></div>`],
};

/** Usercentrics renders its banner in an open shadow root of #usercentrics-root. */
const USERCENTRICS = page('Usercentrics', '<div id="usercentrics-root" data-root></div>', `<script>
const root = document.getElementById('usercentrics-root').attachShadow({ mode: 'open' });
root.innerHTML = \`<div data-testid="uc-default-banner" role="dialog" aria-label="Privacy settings" style="${bar}">
  <p>We use cookies and similar technologies on our website and process your personal data.</p>
  <button data-testid="uc-more-button" data-k="settings">Settings</button>
  <button data-testid="uc-deny-all-button" data-k="reject">Deny</button>
  <button data-testid="uc-accept-all-button" data-k="accept">Accept All</button></div>\`;
</script>`);

/** OneTrust with no reject at the first layer: Settings opens the preference centre, which has "Reject All". */
const ONETRUST_TWO_STEP = page('OneTrust two steps', `<div id="onetrust-consent-sdk" data-root>
<div id="onetrust-banner-sdk" role="region" aria-label="Cookie banner" style="${bar}"><p>We use cookies.</p>
  <button id="onetrust-pc-btn-handler" data-k="settings">Cookie Settings</button>
  <button id="onetrust-accept-btn-handler" data-k="accept">Accept All Cookies</button></div>
<div id="onetrust-pc-sdk" class="otPcCenter" role="dialog" aria-modal="true" data-layer2 style="display:none;position:fixed;top:10%;left:10%;width:60%;background:#fff;z-index:1001">
  <h2>Privacy Preference Center</h2>
  <button id="accept-recommended-btn-handler" data-k="accept">Allow All</button>
  <div class="ot-sdk-row"><input type="checkbox" class="category-switch-handler" id="ot-group-id-C0002" data-k="toggle"><label for="ot-group-id-C0002">Performance Cookies</label></div>
  <div class="ot-pc-footer"><button class="ot-pc-refuse-all-handler" data-k="reject">Reject All</button><button class="save-preference-btn-handler onetrust-close-btn-handler" data-k="save">Confirm My Choices</button></div>
</div></div>`);

/** CookieYes with Customise and Accept only; its modal saves preferences (toggles off, or on for the opted-in case). */
function cookieYesTwoStep(checked: boolean): string {
  return page('CookieYes two steps', `<div class="cky-consent-container" data-root style="${bar}"><div class="cky-notice"><p>We use cookies to enhance your browsing experience.</p>
  <button class="cky-btn cky-btn-customize" data-k="settings">Customise</button><button class="cky-btn cky-btn-accept" data-k="accept">Accept All</button></div></div>
<div class="cky-modal" data-root data-layer2 style="display:none;position:fixed;top:20%;left:20%;width:50%;background:#fff;z-index:1001">
  <p class="cky-preference-title">Customise Consent Preferences</p>
  <div class="cky-accordion"><label>Analytics <input type="checkbox" id="ckySwitchanalytics" data-k="toggle"${checked ? ' checked' : ''}></label></div>
  <div class="cky-prefrence-btn-wrapper"><button class="cky-btn cky-btn-preferences" data-k="save">Save My Preferences</button><button class="cky-btn cky-btn-accept" data-k="accept">Accept All</button></div>
</div>`);
}

/** Sourcepoint: the top page holds the container and the cross-site message iframe; the frame reports its click to its parent. */
function sourcepointTop(other: string): string {
  return `<!doctype html><title>Sourcepoint</title><main><h1>News</h1><p>Article.</p></main>
<div id="sp_message_container_1041" class="sp-message-open" style="position:fixed;inset:0;z-index:2147483647;display:flex;align-items:flex-end">
  <iframe id="sp_message_iframe_1041" title="SP Consent Message" src="${other}/sp-message?message_id=1041" style="width:100%;height:220px;border:0"></iframe>
</div>
<script>
window.clicked = [];
addEventListener('message', e => {
  clicked.push(e.data);
  if (e.data !== 'settings') document.getElementById('sp_message_container_1041').remove();
});
</script>`;
}

const SOURCEPOINT_FRAME = `<!doctype html><title>Consent message</title><body style="margin:0">
<div id="notice" class="message type-modal" role="dialog" aria-label="SP Consent Message" style="background:#fff;padding:10px">
  <div class="message-component message-row"><p>We and our partners store and access personal data, like browsing data or unique identifiers, on your device.</p></div>
  <div class="message-component message-row">
    <button title="Accept All" class="message-component message-button no-children focusable sp_choice_type_11" data-k="accept">Accept All</button>
    <button title="Reject All" class="message-component message-button no-children focusable sp_choice_type_13" data-k="reject">Reject All</button>
    <button title="Settings" class="message-component message-button no-children focusable sp_choice_type_12" data-k="settings">Settings</button>
  </div></div>
<script>document.addEventListener('click', e => { const b = e.target.closest('[data-k]'); if (b) parent.postMessage(b.dataset.k, '*'); });</script>`;

/** A cookie dialog of no known CMP, in German, with "Alle ablehnen". */
const GENERIC_DE = page('Generisch', `<div class="cookie-hinweis" role="dialog" aria-label="Datenschutzeinstellungen" data-root style="${bar}">
  <p>Wir verwenden Cookies, um Inhalte zu personalisieren und Zugriffe zu analysieren.</p>
  <button data-k="accept">Alle akzeptieren</button><button data-k="settings">Einstellungen</button><button data-k="reject">Alle ablehnen</button></div>`);

/** A fixed cookie bar of no known CMP, in Dutch, with a necessary-only control. */
const GENERIC_NL = page('Generiek', `<div class="cookiebalk" data-root style="${bar}">
  <p>Wij gebruiken cookies om onze website te verbeteren.</p>
  <a href="#" data-k="accept">Alles accepteren</a> <a href="#" data-k="reject">Alleen noodzakelijke cookies</a></div>`);

/** A cookie banner of no known CMP with no refusing button, and more than 8 controls. */
const UNKNOWN = page('Unknown', `<div class="cookie-wall" role="dialog" aria-label="Cookies" data-root style="${bar}">
  <p>This site uses cookies for a better experience.</p>
  <button data-k="accept">OK</button><button data-k="settings">Cookie settings</button>
  ${Array.from({ length: 9 }, (_, i) => `<a href="#p${i}" data-k="link${i}">Partner ${i + 1}</a>`).join(' ')}</div>`);

/** A known CMP (iubenda) that shows only Accept: nothing to refuse with. */
const ACCEPT_ONLY = page('Accept only', `<div id="iubenda-cs-banner" role="alertdialog" data-root style="${bar}"><p>This website uses cookies.</p>
  <button class="iubenda-cs-accept-btn" data-k="accept">Accept</button></div>`);

/** No banner: a sticky header with a privacy link and a dialog about something else. */
const NONE = page('No banner', `<header style="position:sticky;top:0;background:#eee">Shop <a href="/privacy">Privacy policy</a></header>
<div role="dialog" aria-label="Newsletter" style="position:fixed;bottom:0">Sign up for our newsletter <button>Close</button></div>`);

let other = '';
const tw = useSession({
  args: ['--browser-arg', '--site-per-process', '--browser-arg', HOST_RULES],
  pages: {
    ...Object.fromEntries(Object.entries(FIRST_LAYER).map(([path, [, , , html]]) => [path, page(path.slice(1), html)])),
    '/usercentrics': USERCENTRICS,
    '/onetrust-two-step': ONETRUST_TWO_STEP,
    '/cookieyes-two-step': cookieYesTwoStep(false),
    '/cookieyes-opted-in': cookieYesTwoStep(true),
    '/generic-de': GENERIC_DE,
    '/generic-nl': GENERIC_NL,
    '/unknown': UNKNOWN,
    '/accept-only': ACCEPT_ONLY,
    '/none': NONE,
    '/sp-message': SOURCEPOINT_FRAME,
  },
  setup: ({ site }) => {
    other = `http://other.test:${new URL(site.origin).port}`;
    site.page('/sourcepoint', sourcepointTop(other));
  },
});

interface Dismissed {
  tabId: number;
  dismissed: boolean;
  cmp?: string;
  generic?: boolean;
  clicked?: { name: string; ref: string; role: string };
  choice?: string;
  verified?: boolean;
  reason?: string;
  settings?: { name: string; ref: string };
  candidates?: Array<{ role: string; name: string; ref: string }>;
}

async function open(path: string): Promise<void> {
  await call(tw.client, 'navigate', { url: `${tw.origin}${path}`, waitUntil: 'load' });
}

for (const [path, [cmp, choice, name]] of [...Object.entries(FIRST_LAYER), ['/usercentrics', ['usercentrics', 'reject_all', 'Deny', '']] as const]) {
  test(`${cmp}: clicks ${JSON.stringify(name)} (${choice}) and never accept; the banner is gone`, async () => {
    await open(path);
    const raw = await callRaw(tw.client, 'dismiss_consent_banner');
    assert.equal(raw.isError, undefined, JSON.stringify(raw.content));
    const r = raw.structuredContent as unknown as Dismissed;
    assert.equal(r.dismissed, true);
    assert.equal(r.cmp, cmp);
    assert.equal(r.generic, false);
    assert.equal(r.choice, choice);
    assert.equal(r.verified, true);
    assert.equal(r.clicked?.name, name);
    assert.match(r.clicked!.ref, /^e\d+$/);
    assert.deepEqual(await evaluate(tw.client, 'window.clicked'), ['reject']);
    const text = raw.content.map(c => c.text).join('\n');
    assert.match(text, new RegExp(`clicked button ${JSON.stringify(name)} \\[ref=${r.clicked!.ref}\\].*the banner is gone`));
    // Once gone, a second call finds nothing and clicks nothing.
    const again = await call<Dismissed>(tw.client, 'dismiss_consent_banner');
    assert.deepEqual({ dismissed: again.dismissed, reason: again.reason }, { dismissed: false, reason: 'no_banner' });
    assert.deepEqual(await evaluate(tw.client, 'window.clicked'), ['reject']);
  });
}

test('Sourcepoint: the reject button inside the cross-site message iframe is clicked', async () => {
  await open('/sourcepoint');
  const r = await call<Dismissed>(tw.client, 'dismiss_consent_banner');
  assert.deepEqual({ dismissed: r.dismissed, cmp: r.cmp, choice: r.choice, verified: r.verified, name: r.clicked?.name }, { dismissed: true, cmp: 'sourcepoint', choice: 'reject_all', verified: true, name: 'Reject All' });
  assert.deepEqual(await evaluate(tw.client, 'window.clicked'), ['reject']);
});

test('two steps: OneTrust with Accept and Settings only is refused in its preference centre', async () => {
  await open('/onetrust-two-step');
  const r = await call<Dismissed>(tw.client, 'dismiss_consent_banner');
  assert.deepEqual({ dismissed: r.dismissed, cmp: r.cmp, choice: r.choice, verified: r.verified, name: r.clicked?.name, settings: r.settings?.name },
    { dismissed: true, cmp: 'onetrust', choice: 'reject_all', verified: true, name: 'Reject All', settings: 'Cookie Settings' });
  assert.deepEqual(await evaluate(tw.client, 'window.clicked'), ['settings', 'reject']);
});

test('two steps: CookieYes saves its preferences with every purpose off (save_defaults)', async () => {
  await open('/cookieyes-two-step');
  const r = await call<Dismissed>(tw.client, 'dismiss_consent_banner');
  assert.deepEqual({ dismissed: r.dismissed, cmp: r.cmp, choice: r.choice, verified: r.verified, name: r.clicked?.name }, { dismissed: true, cmp: 'cookieyes', choice: 'save_defaults', verified: true, name: 'Save My Preferences' });
  assert.deepEqual(await evaluate(tw.client, 'window.clicked'), ['settings', 'save']);
});

test('two steps: settings with a purpose switched on are not saved; the controls come back, nothing accepted', async () => {
  await open('/cookieyes-opted-in');
  const r = await call<Dismissed>(tw.client, 'dismiss_consent_banner');
  assert.deepEqual({ dismissed: r.dismissed, cmp: r.cmp, reason: r.reason }, { dismissed: false, cmp: 'cookieyes', reason: 'settings_opted_in' });
  assert.deepEqual(await evaluate(tw.client, 'window.clicked'), ['settings']);
  assert.ok(r.candidates?.some(c => c.name === 'Save My Preferences'), JSON.stringify(r.candidates));
});

test('a known CMP with only Accept is not dismissed: its controls come back as refs', async () => {
  await open('/accept-only');
  const raw = await callRaw(tw.client, 'dismiss_consent_banner');
  assert.equal(raw.isError, undefined);
  const r = raw.structuredContent as unknown as Dismissed;
  assert.deepEqual({ dismissed: r.dismissed, cmp: r.cmp, reason: r.reason }, { dismissed: false, cmp: 'iubenda', reason: 'no_reject_control' });
  assert.deepEqual(r.candidates?.map(c => [c.role, c.name]), [['button', 'Accept']]);
  assert.deepEqual(await evaluate(tw.client, 'window.clicked'), []);
  assert.match(raw.content.map(c => c.text).join('\n'), /tabwright never accepts[\s\S]*- button "Accept" \[ref=e\d+\]/);
});

test('generic: a German cookie dialog is refused with "Alle ablehnen", said to be a generic match', async () => {
  await open('/generic-de');
  const raw = await callRaw(tw.client, 'dismiss_consent_banner');
  const r = raw.structuredContent as unknown as Dismissed;
  assert.deepEqual({ dismissed: r.dismissed, cmp: r.cmp, generic: r.generic, choice: r.choice, verified: r.verified, name: r.clicked?.name },
    { dismissed: true, cmp: 'generic', generic: true, choice: 'reject_all', verified: true, name: 'Alle ablehnen' });
  assert.match(raw.content[0]!.text!, /generic match/);
  assert.deepEqual(await evaluate(tw.client, 'window.clicked'), ['reject']);
});

test('generic: a Dutch cookie bar takes its necessary-only link', async () => {
  await open('/generic-nl');
  const r = await call<Dismissed>(tw.client, 'dismiss_consent_banner');
  assert.deepEqual({ cmp: r.cmp, choice: r.choice, verified: r.verified, name: r.clicked?.name, role: r.clicked?.role },
    { cmp: 'generic', choice: 'necessary_only', verified: true, name: 'Alleen noodzakelijke cookies', role: 'link' });
  assert.deepEqual(await evaluate(tw.client, 'window.clicked'), ['reject']);
});

test('an unknown banner is not_recognized with at most 8 candidates whose refs click takes', async () => {
  await open('/unknown');
  const raw = await callRaw(tw.client, 'dismiss_consent_banner');
  assert.equal(raw.isError, true);
  const sc = raw.structuredContent as { error: { type: string }; candidates: Array<{ role: string; name: string; ref: string }> };
  assert.equal(sc.error.type, 'not_recognized');
  assert.deepEqual(sc.candidates.map(c => [c.role, c.name]), [
    ['button', 'OK'], ['button', 'Cookie settings'], ...Array.from({ length: 6 }, (_, i) => ['link', `Partner ${i + 1}`]),
  ]);
  assert.deepEqual(await evaluate(tw.client, 'window.clicked'), []);
  await call(tw.client, 'click', { ref: sc.candidates[1]!.ref });
  assert.deepEqual(await evaluate(tw.client, 'window.clicked'), ['settings']);
});

test('no banner: dismissed false, reason no_banner, nothing clicked (a privacy link and a newsletter dialog are no banner)', async () => {
  await open('/none');
  const raw = await callRaw(tw.client, 'dismiss_consent_banner');
  assert.equal(raw.isError, undefined);
  const { text: _t, ...fields } = raw.structuredContent!;
  assert.deepEqual(fields, { tabId: (fields as { tabId: number }).tabId, dismissed: false, reason: 'no_banner' });
  assert.match(raw.content[0]!.text!, /^No cookie consent banner found in tab \d+ \(nothing clicked\)\.$/);
});

test('a real page: the Blogger cookie bar (only "got it") is not_recognized, listing its two links', { skip: sharedMissing(CORPUS) }, async () => {
  await open('/corpus/links-in-tables.html');
  const raw = await callRaw(tw.client, 'dismiss_consent_banner');
  const sc = raw.structuredContent as { error: { type: string }; candidates: Array<{ role: string; name: string }> };
  assert.equal(sc.error?.type, 'not_recognized', JSON.stringify(raw.content));
  assert.deepEqual(sc.candidates.map(c => [c.role, c.name]), [['link', 'Meer informatie'], ['link', 'Ik snap het']]);
});

test('real pages without a banner: each answers no_banner', { skip: sharedMissing(CORPUS) }, async () => {
  for (const name of ['wikipedia.html', 'mozilla-1.html', 'guardian-1.html', 'nytimes-2.html']) {
    await open(`/corpus/${name}`);
    const r = await call<Dismissed>(tw.client, 'dismiss_consent_banner');
    assert.equal(r.reason, 'no_banner', `${name}: ${JSON.stringify(r)}`);
  }
});
