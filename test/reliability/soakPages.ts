/**
 * The generated pages of the server soak (./soakServer.test.ts), each a kind of page a long session meets, with
 * what the soak does there after its snapshot: a form to fill and send, a long list to search, a same-origin
 * iframe with a button, WebMCP tools to call, a page that logs to the console, one that runs timers, one that
 * opens a popup. `n` makes each page's content differ from the last one of its kind.
 */
import type { Site } from '../fixtures/site.js';

export type GeneratedKind = 'form' | 'list' | 'iframe' | 'webmcp' | 'console' | 'timers' | 'popup';
export const GENERATED_KINDS: GeneratedKind[] = ['form', 'list', 'iframe', 'webmcp', 'console', 'timers', 'popup'];

const head = (title: string) => `<!doctype html><meta charset="utf-8"><title>${title}</title>`;

/** The page of `kind` for round `n` (its query string carries n). */
function page(kind: GeneratedKind, n: number): string {
  switch (kind) {
    case 'form':
      return `${head(`Form ${n}`)}<h1>Order ${n}</h1>
<form id="f" onsubmit="event.preventDefault(); document.getElementById('out').textContent = 'Sent ' + this.name.value + ' x' + this.qty.value;">
  <label>Name <input name="name"></label>
  <label>Quantity <input name="qty" type="number"></label>
  <label>Size <select name="size"><option>S</option><option>M</option><option>L</option></select></label>
  <label><input type="checkbox" name="gift"> Gift</label>
  <button>Send</button>
</form><p id="out"></p>`;
    case 'list':
      return `${head(`List ${n}`)}<h1>Items</h1><ul>${Array.from({ length: 300 }, (_, i) => `<li>Item ${i} of round ${n} <button onclick="this.textContent='Done'">Mark ${i}</button></li>`).join('')}</ul>`;
    case 'iframe':
      return `${head(`Frames ${n}`)}<h1>Outer ${n}</h1><iframe src="/gen/inner?n=${n}" title="inner"></iframe>`;
    case 'webmcp':
      return `${head(`Tools ${n}`)}<h1>Calculator ${n}</h1><script>
  document.modelContext.registerTool({
    name: 'add', description: 'Add two numbers', annotations: { readOnlyHint: true },
    inputSchema: { type: 'object', properties: { a: { type: 'number' }, b: { type: 'number' } }, required: ['a', 'b'] },
    execute: async ({ a, b }) => ({ content: [{ type: 'text', text: String(a + b) }] }),
  });
  document.modelContext.registerTool({
    name: 'echo_${n % 7}', description: 'Echo', annotations: { readOnlyHint: true },
    inputSchema: { type: 'object', properties: { s: { type: 'string' } } },
    execute: async ({ s }) => ({ content: [{ type: 'text', text: String(s) }] }),
  });
</script>`;
    case 'console':
      return `${head(`Console ${n}`)}<h1>Logs ${n}</h1><script>
  for (let i = 0; i < 40; i++) console.log('line', i, { round: ${n}, nested: { i, list: [1, 2, 3] } });
  console.warn('a warning of round ${n}');
  console.error('an error of round ${n}');
  setTimeout(() => { throw new Error('thrown late in round ${n}'); }, 10);
</script>`;
    case 'timers':
      return `${head(`Timers ${n}`)}<h1>Ticking ${n}</h1><p id="count">0</p><script>
  let ticks = 0;
  setInterval(() => { document.getElementById('count').textContent = String(++ticks); }, 30);
  (function chain(k) { if (k < 200) setTimeout(() => chain(k + 1), 5); })(0);
  requestAnimationFrame(function frame() { requestAnimationFrame(frame); });
  fetch('/gen/ping?n=${n}').catch(() => {});
</script>`;
    case 'popup':
      return `${head(`Opener ${n}`)}<h1>Opener ${n}</h1><button onclick="window.open('/gen/child?n=${n}', 'child${n}', 'popup,width=400,height=300')">Open popup</button>`;
  }
}

/** Serves the generated pages on `site` under /gen/<kind>?n=N, plus the iframe's and the popup's documents. */
export function serveGenerated(site: Site): void {
  for (const kind of GENERATED_KINDS) {
    site.route(`/gen/${kind}`, (req, res) => {
      const n = Number(new URL(req.url ?? '/', 'http://x').searchParams.get('n')) || 0;
      res.writeHead(200, { 'content-type': 'text/html; charset=utf-8' });
      res.end(page(kind, n));
    });
  }
  site.route('/gen/inner', (req, res) => {
    const n = new URL(req.url ?? '/', 'http://x').searchParams.get('n');
    res.writeHead(200, { 'content-type': 'text/html; charset=utf-8' });
    res.end(`${head('Inner')}<p>Inside ${n}</p><button onclick="this.textContent='Pressed'">Press inside</button>`);
  });
  site.route('/gen/child', (req, res) => {
    const n = new URL(req.url ?? '/', 'http://x').searchParams.get('n');
    res.writeHead(200, { 'content-type': 'text/html; charset=utf-8' });
    res.end(`${head(`Child ${n}`)}<h1>Popup ${n}</h1>`);
  });
  site.route('/gen/ping', (_req, res) => {
    res.writeHead(204);
    res.end();
  });
}
