/** The pairing page (pair.html): stores the server's pairing code and port in the worker, shows the link's state. */
import { ask, byId } from './pages.js';
import type { Status } from './worker.js';

const out = byId('status');
const portField = byId<HTMLInputElement>('port');
/** Set once the person edits the port: the status refresh (every second) then leaves the field as they typed it. */
let portEdited = false;
portField.addEventListener('input', () => {
  portEdited = true;
});
const show = (s: Status) => {
  out.textContent = s.state === 'connected' ? `Paired and connected to port ${s.port}.` : s.paired ? `Paired (port ${s.port}): ${s.state}${s.lastError ? ` — ${s.lastError}` : ''}.` : 'Not paired.';
  out.dataset.state = s.state;
  if (!portEdited) portField.value = String(s.port);
};
const fail = (error: unknown) => {
  out.textContent = error instanceof Error ? error.message : String(error);
  out.dataset.state = 'error';
};
/** Set while a pairing is on its way: the status shown then is "Pairing…", never one read before it was taken. */
let pairing = false;
byId('pair').addEventListener('click', () => {
  pairing = true;
  out.textContent = 'Pairing…';
  out.dataset.state = 'pairing';
  ask({ type: 'pair', code: byId<HTMLInputElement>('code').value, port: Number(portField.value) })
    .then(s => {
      // The field now shows the port the worker took.
      portEdited = false;
      show(s);
    }, fail)
    .finally(() => {
      pairing = false;
    });
  byId<HTMLInputElement>('code').value = '';
});
byId('unpair').addEventListener('click', () => void ask({ type: 'unpair' }).then(show, fail));
const refresh = () => ask({ type: 'status' }).then(s => pairing || show(s));
refresh().catch(fail);
setInterval(() => void refresh().catch(() => undefined), 1000);
