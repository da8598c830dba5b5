/** The pairing page (pair.html): stores the server's pairing code and port in the worker, shows the link's state. */
import { ask, byId } from './pages.js';
import type { Status } from './worker.js';

const out = byId('status');
const show = (s: Status) => {
  out.textContent = s.state === 'connected' ? `Paired and connected to port ${s.port}.` : s.paired ? `Paired (port ${s.port}): ${s.state}${s.lastError ? ` — ${s.lastError}` : ''}.` : 'Not paired.';
  out.dataset.state = s.state;
  byId<HTMLInputElement>('port').value = String(s.port);
};
const fail = (error: unknown) => {
  out.textContent = error instanceof Error ? error.message : String(error);
  out.dataset.state = 'error';
};
byId('pair').addEventListener('click', () => {
  ask({ type: 'pair', code: byId<HTMLInputElement>('code').value, port: Number(byId<HTMLInputElement>('port').value) }).then(show, fail);
  byId<HTMLInputElement>('code').value = '';
});
byId('unpair').addEventListener('click', () => void ask({ type: 'unpair' }).then(show, fail));
ask({ type: 'status' }).then(show, fail);
setInterval(() => void ask({ type: 'status' }).then(show, () => undefined), 1000);
