/**
 * dismiss_consent_banner: closes a page's cookie / privacy consent banner
 * with its least permissive choice (docs/actions.md, "Cookie consent
 * banners"). Unrelated to tabwright's consent gate (src/consent), which asks
 * the human before a WebMCP call.
 *
 * The banner is found by src/session/consentBanners.ts (known consent
 * managers by their markup, else a generic cookie dialog with a reject
 * button); the control is clicked the way the `click` tool clicks
 * (`clickResolved` inside `tab.act`, so a dialog, navigation or new tab the
 * click causes is reported as for a click); then the banner is checked to be
 * gone within 3 s. An accept-all control is never clicked.
 */
import * as z from 'zod';
import type { BannerChoice, BannerControl } from '../page/consentBanners.js';
import { bannerShown, findConsentBanner, scanFrame, type FoundBanner } from '../session/consentBanners.js';
import { resolveRef } from '../session/refs.js';
import type { Session } from '../session/session.js';
import type { Tab } from '../session/tab.js';
import type { ActionReport } from '../session/tabAction.js';
import { ToolError } from '../errors.js';
import { pollUntil } from '../util/wait.js';
import { reportAction } from './actionReport.js';
import { defineTabTool } from './define.js';
import { clickResolved } from './input.js';
import type { ToolResponse } from './response.js';
import { tabIdField } from './schemas.js';

/** How long the banner may take to go away after the click, in ms. */
const VERIFY_MS = 3_000;
/** How long a settings layer may take to show its controls, in ms. */
const LAYER2_MS = 2_000;
const CLICK_TIMEOUT = 5_000;

/** A banner control as the result gives it: role, name and a ref `click` takes. */
export interface BannerCandidate {
  role: string;
  name: string;
  ref: string;
}

/** What the choice means, in words. */
const CHOICE_WORDS: Record<BannerChoice, string> = {
  reject_all: 'reject all',
  necessary_only: 'necessary cookies only',
  save_defaults: 'save the settings with every optional purpose off',
};

function candidatesOf(session: Session, tab: Tab, controls: BannerControl[]): BannerCandidate[] {
  return controls.map(c => ({ role: c.role, name: c.name, ref: session.refs.assign(tab.id, tab.instanceId, c.id) }));
}

function candidateLines(candidates: BannerCandidate[]): string[] {
  return candidates.map(c => `- ${c.role}${c.name ? ` ${JSON.stringify(c.name)}` : ''} [ref=${c.ref}]`);
}

/** Clicks a banner control by ref as `click` does; the report of what the click changed. */
async function clickControl(session: Session, tab: Tab, ref: string): Promise<ActionReport> {
  const el = await resolveRef(session, ref);
  return await tab.act(() => clickResolved(el, ref, { timeout: CLICK_TIMEOUT }), { ref, targets: [{ ref, resolved: el }], clicks: true });
}

/** Whether the click's report says the page moved on (closed, a dialog waits): nothing more is done then. */
function interrupted(report: ActionReport): boolean {
  return !!report.tabClosed || !!report.dialog;
}

/** Writes "no dismissal" with the banner's controls. */
function notDismissed(res: ToolResponse, tab: Tab, found: FoundBanner, candidates: BannerCandidate[], reason: string, text: string): void {
  res.merge({ tabId: tab.id, dismissed: false, cmp: found.banner.cmp, cmpName: found.banner.cmpName, reason, candidates });
  res.text(text);
  if (candidates.length) res.text(`Its controls (refs usable with click):\n${candidateLines(candidates).join('\n')}`);
}

export const dismissConsentBanner = defineTabTool({
  name: 'dismiss_consent_banner',
  title: 'Dismiss cookie consent banner',
  description:
    'Close the page\'s cookie/privacy consent banner with its least permissive choice: reject all, or necessary only ' +
    '(OneTrust, Cookiebot, Didomi, Quantcast, TrustArc, Usercentrics, Sourcepoint, Osano, Complianz, CookieYes, Klaro, iubenda, Termly, Funding Choices; ' +
    'else a generic cookie dialog with a reject button). Never accepts. Says what it clicked and whether the banner went away; ' +
    'no banner: dismissed false; an unknown banner: not_recognized with its buttons.',
  needs: ['trustedInput'],
  effect: 'interact',
  launchesBrowser: true,
  target: 'tab',
  input: z.object({ tabId: tabIdField }),
  async handle(tab, _input, { session }, res) {
    const found = await findConsentBanner(session, tab);
    if (!found) {
      res.merge({ tabId: tab.id, dismissed: false, reason: 'no_banner' });
      res.text(`No cookie consent banner found in tab ${tab.id} (nothing clicked).`);
      return;
    }
    const { banner } = found;
    const generic = banner.cmp === 'generic';
    const where = found.frame.parentFrame() ? ` in a frame (${new URL(found.frame.url()).origin})` : '';
    const what = generic ? `A cookie banner${where} (no known consent manager; generic match)` : `A ${banner.cmpName} consent banner${where}`;
    const candidates = candidatesOf(session, tab, banner.candidates);
    let action = banner.action;
    let settings: { name: string; ref: string } | undefined;
    let report: ActionReport | undefined;

    if (!action && banner.settings) {
      // Only "Accept" and "Settings" at the first layer: open the settings and take their reject or save-with-everything-off.
      const ref = session.refs.assign(tab.id, tab.instanceId, banner.settings.id);
      settings = { name: banner.settings.name, ref };
      report = await clickControl(session, tab, ref);
      if (interrupted(report)) {
        reportAction(res, report, `${what}: opened its settings by clicking ${JSON.stringify(settings.name)} [ref=${ref}]; the page then stopped (see below), so nothing else was clicked.`);
        res.merge({ dismissed: false, cmp: banner.cmp, cmpName: banner.cmpName, settings, reason: 'interrupted' });
        return;
      }
      const layer = await pollUntil(async () => {
        const scan = await scanFrame(session, found.frame, { layer2: banner.cmp });
        return scan?.banner && (scan.banner.action || scan.banner.optedIn) ? scan.banner : undefined;
      }, { ms: LAYER2_MS, intervalMs: 150 });
      if (!layer?.action) {
        const now = await scanFrame(session, found.frame, { layer2: banner.cmp });
        const fresh = candidatesOf(session, tab, now?.banner?.candidates ?? []);
        notDismissed(res, tab, found, fresh, layer?.optedIn ? 'settings_opted_in' : 'no_reject_control',
          `${what} offers no reject at its first layer; its settings were opened (clicked ${JSON.stringify(settings.name)} [ref=${ref}]), but they ` +
          (layer?.optedIn ? 'have optional purposes switched on, so saving them would not be a refusal. Nothing else was clicked.' : 'show no reject or save control tabwright knows. Nothing else was clicked.'));
        res.set('settings', settings);
        return;
      }
      action = layer.action;
    }

    if (!action) {
      if (generic) {
        throw new ToolError('not_recognized', `${what} has no button tabwright recognises as reject or necessary-only; nothing was clicked.`,
          'Read its buttons (details.candidates: role, name, ref) and click one with click {ref} if one refuses; never a guess that accepts.',
          { candidates });
      }
      notDismissed(res, tab, found, candidates, 'no_reject_control', `${what} shows no reject or necessary-only control, and no settings layer tabwright can refuse in; nothing was clicked (tabwright never accepts).`);
      return;
    }

    const ref = session.refs.assign(tab.id, tab.instanceId, action.id);
    const clicked = { name: action.name, ref, role: action.role };
    report = await clickControl(session, tab, ref);
    const verified = interrupted(report)
      ? false
      : !!(await pollUntil(async () => !(await bannerShown(session, tab, found)), { ms: VERIFY_MS, intervalMs: 150 }));
    const steps = settings ? ` after opening its settings (${JSON.stringify(settings.name)} [ref=${settings.ref}])` : '';
    const outcome = verified ? 'the banner is gone.' : report.dialog || report.tabClosed ? 'the page then stopped (see below); the banner was not checked.' : `the banner is still shown ${VERIFY_MS / 1000} s later (it may need another step: get_page_context shows it).`;
    reportAction(res, report, `${what}: clicked ${action.role} ${JSON.stringify(action.name)} [ref=${ref}] (${CHOICE_WORDS[action.choice]})${steps}; ${outcome}`);
    res.merge({ dismissed: true, cmp: banner.cmp, cmpName: banner.cmpName, generic, clicked, choice: action.choice, verified });
    if (settings) res.set('settings', settings);
  },
});
