/**
 * Thumbnails of the main session's tabs for the dashboard: small JPEGs of the viewport (320 px wide), taken through
 * the tab's own CDP session (src/tools/screenshotCapture.ts). Taken only while a dashboard page listens, after calls
 * end and at a low rate, never while a call holds the tab (LocalDispatcher.tabBusy), never starting the browser.
 * Only the active tab is captured: Chromium paints only the tab in front, and a picture is no reason to bring another
 * tab forward (the page would see its visibility change); a background tab keeps the thumbnail of when it was last in
 * front, with its time.
 */
import type { LocalDispatcher } from '../dispatch/dispatcher.js';
import { captureClip, pageMetrics } from '../tools/screenshotCapture.js';
import { logger } from '../log.js';

const log = logger('dashboard');

/** The thumbnails' width in pixels. */
export const THUMBNAIL_WIDTH = 320;
/** How long one capture may take before it is given up, in ms. */
const CAPTURE_MS = 2000;

interface Thumb {
  image: Buffer;
  /** Increases when the image changes: the page refetches it then. */
  version: number;
  /** When it was taken, epoch ms. */
  takenAt: number;
}

/** The latest thumbnail per tab of one dispatcher. */
export class Thumbnails {
  private readonly thumbs = new Map<number, Thumb>();
  private running?: Promise<boolean>;

  /** The JPEG of `tabId`, if one was taken. */
  image(tabId: number): Buffer | undefined {
    return this.thumbs.get(tabId)?.image;
  }

  /** The version of `tabId`'s thumbnail and when it was taken (undefined: none yet). */
  info(tabId: number): { version: number; takenAt: number } | undefined {
    const thumb = this.thumbs.get(tabId);
    return thumb && { version: thumb.version, takenAt: thumb.takenAt };
  }

  /**
   * Captures the active tab of `local`'s main session unless a call holds it, and forgets closed tabs; one refresh at
   * a time (a second call while one runs joins it). Resolves true when an image changed.
   */
  refresh(local: LocalDispatcher): Promise<boolean> {
    this.running ??= this.capture(local).finally(() => {
      this.running = undefined;
    });
    return this.running;
  }

  private async capture(local: LocalDispatcher): Promise<boolean> {
    const session = local.session;
    if (!session.running) return false;
    const tabs = session.openTabs();
    const open = new Set(tabs.map(t => t.id));
    let changed = false;
    for (const id of this.thumbs.keys()) {
      if (!open.has(id)) {
        this.thumbs.delete(id);
        changed = true;
      }
    }
    for (const tab of tabs) {
      if (tab.id !== session.activeTabId || local.tabBusy(tab.id) || tab.dialogs.current) continue;
      try {
        const { viewport } = await pageMetrics(tab, CAPTURE_MS);
        if (local.tabBusy(tab.id)) continue;
        const shot = await captureClip(tab, viewport, { width: THUMBNAIL_WIDTH, beyondViewport: false, format: 'jpeg', quality: 60, timeoutMs: CAPTURE_MS });
        const old = this.thumbs.get(tab.id);
        if (old?.image.equals(shot.image)) {
          old.takenAt = Date.now();
          continue;
        }
        this.thumbs.set(tab.id, { image: shot.image, version: (old?.version ?? 0) + 1, takenAt: Date.now() });
        changed = true;
      } catch (error) {
        log.debug(`no thumbnail of tab ${tab.id}:`, error);
      }
    }
    return changed;
  }
}
