/**
 * The toolbar popup (popup.html): share or stop sharing the current tab, share all, stop all, and the list of shared
 * tabs. `popup.html?tabId=N` acts on tab N instead of the active one (what a test harness opens as a tab).
 */
import { ask, byId } from './pages.js';
import type { Status } from './worker.js';

async function target(): Promise<number | undefined> {
  const given = Number(new URLSearchParams(location.search).get('tabId'));
  if (given) return given;
  const [tab] = await chrome.tabs.query({ active: true, lastFocusedWindow: true });
  return tab?.id;
}

/** The last refusal of a button here (kept over the link's own error until the next button works). */
let actionError: string | undefined;

function render(s: Status): void {
  byId('state').textContent = s.state === 'connected' ? 'connected' : s.paired ? s.state : 'not paired';
  byId('state').dataset.state = s.state;
  byId('error').textContent = actionError ?? s.lastError ?? '';
  const list = byId('shared');
  list.replaceChildren(...s.shared.map(tab => {
    const item = document.createElement('li');
    item.textContent = `${tab.title || tab.url} `;
    item.dataset.tabId = String(tab.tabId);
    const stop = document.createElement('button');
    stop.textContent = 'Stop';
    stop.addEventListener('click', () => void ask({ type: 'unshare', tabId: tab.tabId }).then(done, fail));
    item.append(stop);
    return item;
  }));
}

function fail(error: unknown): void {
  actionError = error instanceof Error ? error.message : String(error);
  byId('error').textContent = actionError;
}

/** After a button's request worked: its earlier refusal no longer applies. */
function done(s: Status): void {
  actionError = undefined;
  render(s);
}

byId('share').addEventListener('click', () => void target().then(tabId => ask({ type: 'share', tabId })).then(done, fail));
byId('unshare').addEventListener('click', () => void target().then(tabId => ask({ type: 'unshare', tabId })).then(done, fail));
byId('shareAll').addEventListener('click', () => void ask({ type: 'shareAll' }).then(done, fail));
byId('stopAll').addEventListener('click', () => void ask({ type: 'stopAll' }).then(done, fail));
ask({ type: 'status' }).then(render, fail);
setInterval(() => void ask({ type: 'status' }).then(render, () => undefined), 1000);
