/**
 * The consent window (consent.html?req=<nonce>, EXTENSION-DESIGN.md §4.8): shows the server's question and sends
 * the user's answer to the worker with the click's `isTrusted`. The worker accepts it only from the popup window it
 * created for that request (./worker.ts `answerConsent`); this page is not web-accessible.
 */
import { byId } from './pages.js';

const req = new URLSearchParams(location.search).get('req') ?? '';
const status = byId('status');

chrome.runtime.sendMessage({ type: 'consent.get', req }).then((reply: { ok: boolean; result?: { title: string; detail: string }; error?: string }) => {
  if (!reply?.ok) {
    status.textContent = reply?.error ?? 'This question is not pending.';
    return;
  }
  byId('title').textContent = reply.result!.title;
  byId('detail').textContent = reply.result!.detail;
}, () => undefined);

for (const decision of ['once', 'always', 'deny', 'never']) {
  byId(decision).addEventListener('click', event => {
    chrome.runtime.sendMessage({ type: 'consent.answer', req, decision, trusted: event.isTrusted }).then((reply: { ok: boolean; error?: string }) => {
      status.textContent = reply?.ok ? 'Answered.' : reply?.error ?? 'Not accepted.';
      status.dataset.state = reply?.ok ? 'accepted' : 'refused';
    }, () => undefined);
  });
}
