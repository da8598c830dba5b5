/**
 * Finding a tab's cookie / privacy consent banner for
 * `dismiss_consent_banner` (docs/actions.md, "Cookie consent banners"; not
 * tabwright's consent gate, src/consent). The page runtime scans one
 * document (src/page/consentBanners.ts); this module asks the top document
 * and then every visible child frame, same-origin or not, since some consent
 * managers (Sourcepoint) serve their banner from an iframe of their own
 * origin. A known consent manager anywhere wins over a generic match.
 */
import type { ElementHandle, Frame } from 'playwright-core';
import type { BannerQuery, BannerScan } from '../page/consentBanners.js';
import { raceTimeout } from '../util/wait.js';
import { rememberFrame } from './refs.js';
import type { Session } from './session.js';
import type { Tab } from './tab.js';

/** A banner found, and the frame whose document holds it. */
export interface FoundBanner {
  frame: Frame;
  banner: NonNullable<BannerScan['banner']>;
}

/** Longest a frame's scan may take, in ms (a frame that does not answer is skipped). */
const SCAN_TIMEOUT_MS = 5_000;
/** At most this many child frames are scanned (ads can add dozens). */
const MAX_FRAMES = 30;

type RuntimeScan = { __tabwright?: { consentBanner?: (q: BannerQuery) => BannerScan } };

/**
 * Runs the runtime's scan in `frame`, injecting the runtime into a document
 * that predates it. Undefined when the frame went away or did not answer.
 */
export async function scanFrame(session: Session, frame: Frame, q: BannerQuery = {}): Promise<BannerScan | undefined> {
  const run = () => frame.evaluate(query => {
    const rt = (globalThis as RuntimeScan).__tabwright;
    return (rt?.consentBanner ? rt.consentBanner(query) : 'runtime-missing') as BannerScan | 'runtime-missing';
  }, q);
  try {
    const result = await raceTimeout((async () => {
      let r = await run();
      if (r === 'runtime-missing') {
        await session.injectRuntime(frame);
        r = await run();
      }
      return r === 'runtime-missing' ? undefined : r;
    })(), { ms: SCAN_TIMEOUT_MS, onTimeout: 'undefined' });
    if (result) rememberFrame(result.nonce, frame);
    return result;
  } catch {
    return undefined; // detached or navigated meanwhile
  }
}

/** Whether a child frame's iframe element is on its page and visible (the main frame always is). */
export async function frameShown(frame: Frame): Promise<boolean> {
  if (!frame.parentFrame()) return true;
  if (frame.isDetached()) return false;
  try {
    const handle = await frame.frameElement() as ElementHandle<Element>;
    try {
      return await raceTimeout(handle.evaluate((el: Element) => {
        if (!el.isConnected) return false;
        const rect = el.getBoundingClientRect();
        if (rect.width < 2 || rect.height < 2) return false;
        if (typeof el.checkVisibility === 'function' && !el.checkVisibility({ opacityProperty: true, visibilityProperty: true })) return false;
        return true;
      }), { ms: SCAN_TIMEOUT_MS, onTimeout: () => false });
    } finally {
      void handle.dispose().catch(() => undefined);
    }
  } catch {
    return false;
  }
}

/** The child frames worth a scan: loaded, not blank, iframe visible; in the page's frame order. */
async function childFrames(tab: Tab): Promise<Frame[]> {
  const main = tab.page.mainFrame();
  const frames = tab.page.frames().filter(f => f !== main && !f.isDetached() && !/^(about:blank|chrome-error:|javascript:)/.test(f.url()) && f.url() !== '').slice(0, MAX_FRAMES);
  const shown = await Promise.all(frames.map(frameShown));
  return frames.filter((_, i) => shown[i]);
}

/**
 * The consent banner of a tab: a known consent manager's in the top document
 * or a visible frame (the top document first), else a generic match there.
 * Undefined when there is none.
 */
export async function findConsentBanner(session: Session, tab: Tab): Promise<FoundBanner | undefined> {
  const main = tab.page.mainFrame();
  const top = await scanFrame(session, main);
  if (top?.banner && top.banner.cmp !== 'generic') return { frame: main, banner: top.banner };
  const frames = await childFrames(tab);
  const scans = await Promise.all(frames.map(f => scanFrame(session, f)));
  const found = frames.map((frame, i) => ({ frame, banner: scans[i]?.banner })).filter((f): f is FoundBanner => !!f.banner);
  return found.find(f => f.banner.cmp !== 'generic')
    ?? (top?.banner ? { frame: main, banner: top.banner } : undefined)
    ?? found[0];
}

/**
 * Whether the banner found in `frame` is still shown: its consent manager's
 * roots (or the generic box) visible in the frame's document, and for a
 * child frame its iframe visible. A main frame replaced meanwhile (the page
 * reloaded after the choice) is scanned anew.
 */
export async function bannerShown(session: Session, tab: Tab, found: FoundBanner): Promise<boolean> {
  const frame = found.frame.parentFrame() ? found.frame : tab.page.mainFrame();
  if (!(await frameShown(frame))) return false;
  const scan = await scanFrame(session, frame, { shown: { cmp: found.banner.cmp, rootId: found.banner.rootId } });
  return scan?.shown ?? false;
}
