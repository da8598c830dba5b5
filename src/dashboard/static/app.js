// The dashboard page (docs/dashboard.md): reads the key from the address it was opened with (`#token=` or
// `?token=`, then removed from the address bar and kept in sessionStorage), follows the state feed
// (GET /api/events, Server-Sent Events read with fetch so the key goes in the Authorization header), renders it,
// and answers consent prompts and resets saved permissions with POSTs. Text is set with textContent only.

const KEY = 'tabwright-dashboard-token';
// The answers a prompt offers (question.offers, src/consent/channel.ts): a WebMCP tool's four, or a code tool's six.
const ANSWERS = [['once', 'Allow once', 'allow'], ['code', 'Always allow this exact code here', 'allow'], ['always', 'Always allow', 'allow'],
  ['everywhere', 'Always allow any code on every site', 'allow'], ['deny', 'Deny', 'deny'], ['never', 'Always deny', 'deny']];
const WEBMCP_ANSWERS = ['once', 'always', 'deny', 'never'];

function takeToken() {
  const url = new URL(location.href);
  const fromHash = new URLSearchParams(url.hash.slice(1)).get('token');
  const given = fromHash || url.searchParams.get('token');
  if (given) {
    sessionStorage.setItem(KEY, given);
    url.hash = '';
    url.searchParams.delete('token');
    history.replaceState(null, '', url.pathname + url.search);
  }
  return sessionStorage.getItem(KEY);
}

const token = takeToken();
const auth = { authorization: `Bearer ${token}` };
const $ = id => document.getElementById(id);

function el(tag, attrs = {}, ...children) {
  const node = document.createElement(tag);
  for (const [k, v] of Object.entries(attrs)) {
    if (k === 'class') node.className = v;
    else if (k.startsWith('on')) node.addEventListener(k.slice(2), v);
    else node.setAttribute(k, v);
  }
  for (const child of children) node.append(child instanceof Node ? child : document.createTextNode(String(child ?? '')));
  return node;
}

function notice(text) {
  $('notice').hidden = !text;
  $('notice').textContent = text ?? '';
}

const time = ms => new Date(ms).toLocaleTimeString([], { hour12: false });
const outcomeClass = o => (o === 'ok' ? 'ok' : o === 'pending' ? 'pending' : 'bad');

function rows(id, items, cells, empty) {
  const body = $(id).querySelector('tbody');
  body.replaceChildren(...(items.length ? items.map(item => el('tr', {}, ...cells(item))) : [el('tr', {}, el('td', { colspan: '9', class: 'empty' }, empty))]));
  const count = $(`${id}-count`);
  if (count) count.textContent = items.length ? `(${items.length})` : '';
}

async function post(path, body) {
  const res = await fetch(path, { method: 'POST', headers: { ...auth, 'content-type': 'application/json' }, body: JSON.stringify(body) });
  const json = await res.json().catch(() => ({}));
  if (!res.ok) notice(json.error ? `${json.error.message} ${json.error.hint}` : `HTTP ${res.status}`);
  return res.ok;
}

function renderPrompts(prompts) {
  $('prompts-section').classList.toggle('waiting', prompts.length > 0);
  $('prompts-count').textContent = prompts.length ? `(${prompts.length})` : '';
  $('prompts').replaceChildren(...(prompts.length ? prompts.map(p => el('div', { class: 'prompt', 'data-prompt': p.id },
    p.source === 'tabwright'
      ? el('p', {}, el('strong', {}, `Allow ${p.tool}`), ` (code the agent wrote) on ${p.origin}${p.tabId !== undefined ? ` (tab ${p.tabId})` : ''}?`)
      : el('p', {}, el('strong', {}, `Allow WebMCP tool "${p.tool}"`), ` of ${p.origin}${p.tabId !== undefined ? ` (tab ${p.tabId})` : ''}?`),
    p.description ? el('p', {}, p.description) : '',
    el('p', {}, p.source === 'tabwright' ? 'Code: ' : 'Arguments: ', el('code', {}, p.argumentsPreview)),
    el('p', { class: 'empty' }, `Asked ${time(p.askedAt)}, expires ${time(p.expiresAt)}${p.alsoAskedBy.length ? `; also asked in: ${p.alsoAskedBy.join(', ')}` : ''}`),
    el('div', { class: 'answers' }, ...ANSWERS.filter(([answer]) => (p.offers ?? WEBMCP_ANSWERS).includes(answer)).map(([answer, label, kind]) =>
      el('button', { type: 'button', class: kind, 'data-answer': answer, onclick: () => post(`/api/prompts/${p.id}`, { answer }) }, label))),
  )) : [el('p', { class: 'empty' }, 'No prompt is waiting.')]));
}

const images = new Map(); // tabId -> {version, url}

async function thumbnail(tabId, version) {
  const known = images.get(tabId);
  if (known && known.version === version) return known.url;
  const res = await fetch(`/api/tabs/${tabId}/thumbnail`, { headers: auth });
  if (!res.ok) return known?.url;
  const url = URL.createObjectURL(await res.blob());
  if (known) URL.revokeObjectURL(known.url);
  images.set(tabId, { version, url });
  return url;
}

async function renderTabs(tabs) {
  $('tabs-count').textContent = tabs.length ? `(${tabs.length})` : '';
  const cards = await Promise.all(tabs.map(async t => {
    const src = t.thumbnail === null ? undefined : await thumbnail(t.tabId, t.thumbnail.version);
    return el('div', { class: `tab${t.active ? ' active' : ''}`, 'data-tab': String(t.tabId) },
      src ? el('img', { src, alt: `tab ${t.tabId}`, title: `as of ${time(t.thumbnail.takenAt)}` }) : el('div', { class: 'noimg' }, t.active ? 'no thumbnail yet' : 'a thumbnail is taken while the tab is in front'),
      el('div', { class: 'meta' },
        el('div', { class: 'title' }, `${t.tabId} · ${t.title || '(untitled)'}${t.busy ? ' · busy' : ''}`),
        el('div', { class: 'url', title: t.url }, t.url),
        t.scripts.length ? el('div', { class: 'url' }, `scripts: ${t.scripts.map(s => s.name).join(', ')}`) : '',
        src && !t.active ? el('div', { class: 'url' }, `picture as of ${time(t.thumbnail.takenAt)}`) : ''));
  }));
  $('tabs').replaceChildren(...(cards.length ? cards : [el('p', { class: 'empty' }, 'No tab is open (the browser starts with the first call that needs it).')]));
}

function renderBench(bench) {
  if (!bench) return $('bench').replaceChildren(el('p', { class: 'empty' }, 'No report yet (npm run bench writes one).'));
  $('bench').replaceChildren(el('p', {}, `${bench.file}: ${bench.run}`), el('table', {},
    el('thead', {}, el('tr', {}, el('th', {}, 'measure'), el('th', {}, 'tabwright'), el('th', {}, 'verdict'))),
    el('tbody', {}, ...bench.rows.map(r => el('tr', {}, el('td', {}, r.measure), el('td', {}, r.tabwright), el('td', { class: r.verdict.startsWith('met') ? 'ok' : 'bad' }, r.verdict))))));
}

function render(state) {
  $('where').textContent = `${state.url} · pid ${state.pid} · tabwright ${state.version}${state.connection ? ` · ${state.connection} connection` : ''} · browser ${state.browserRunning ? 'running' : 'not started'}`;
  notice(state.lead ? '' : 'This process does not own the browser right now (it follows another tabwright process).');
  renderPrompts(state.prompts);
  void renderTabs(state.tabs);
  rows('sessions', state.sessions, s => [el('td', {}, `${s.client ?? '?'}${s.clientVersion ? ` ${s.clientVersion}` : ''}`), el('td', {}, s.front), el('td', {}, s.workspace ?? ''), el('td', { class: 'num' }, s.calls), el('td', {}, time(s.lastSeen))], 'No call yet.');
  rows('calls', state.calls, c => [el('td', {}, time(c.startedAt)), el('td', {}, c.tool), el('td', { class: 'num' }, c.tabId ?? ''), el('td', { class: 'num' }, c.durationMs === undefined ? '' : `${c.durationMs} ms`), el('td', { class: outcomeClass(c.outcome) }, c.outcome)], 'No call yet.');
  rows('scripts', state.scripts, s => [el('td', {}, s.name), el('td', {}, s.kind), el('td', { class: s.enabled ? 'ok' : 'bad' }, s.enabled ? 'on' : 'off'), el('td', {}, s.matches.join(' ')), el('td', {}, s.ranIn.join(', '))], 'No script is installed.');
  rows('permissions', state.permissions, p => [el('td', {}, p.origin), el('td', {}, p.tool), el('td', {}, p.scriptId ?? (p.codeHash ? `code ${p.codeHash.slice(0, 12)}…` : '')), el('td', { class: p.permission === 'allow' ? 'ok' : 'bad' }, p.permission === 'allow' ? 'always allow' : 'always deny'), el('td', {}, new Date(p.created).toLocaleString()),
    el('td', {}, el('button', { type: 'button', 'data-reset': `${p.origin} ${p.tool}`, onclick: () => post('/api/permissions/reset', { origin: p.origin, tool: p.tool, ...(p.scriptId ? { scriptId: p.scriptId } : {}), ...(p.codeHash ? { codeHash: p.codeHash } : {}) }) }, 'Reset'))], 'No saved answer.');
  rows('audit', state.audit, a => [el('td', {}, time(Date.parse(a.time))), el('td', {}, a.origin), el('td', {}, a.tool), el('td', { class: a.decision === 'allowed' ? 'ok' : 'bad' }, a.decision), el('td', {}, `${a.channel}${a.answer ? ` (${a.answer})` : ''}`)], 'No decision yet.');
  renderBench(state.bench);
}

function live(on, text) {
  $('live').className = `badge${on ? '' : ' off'}`;
  $('live').textContent = text;
}

async function follow() {
  for (;;) {
    try {
      const res = await fetch('/api/events', { headers: { ...auth, accept: 'text/event-stream' } });
      if (res.status === 401) {
        live(false, 'no key');
        notice('This page has no valid dashboard key. Run `tabwright dashboard` and open the address it prints.');
        return;
      }
      if (!res.ok || !res.body) throw new Error(`HTTP ${res.status}`);
      live(true, 'live');
      const reader = res.body.pipeThrough(new TextDecoderStream()).getReader();
      let buffer = '';
      for (;;) {
        const { value, done } = await reader.read();
        if (done) break;
        buffer += value;
        let end;
        while ((end = buffer.indexOf('\n\n')) >= 0) {
          const frame = buffer.slice(0, end);
          buffer = buffer.slice(end + 2);
          const event = /^event: (.*)$/m.exec(frame)?.[1];
          const data = frame.split('\n').filter(l => l.startsWith('data: ')).map(l => l.slice(6)).join('\n');
          if (event === 'state' && data) render(JSON.parse(data));
        }
      }
    } catch {
      // The process went away or restarts: try again shortly.
    }
    live(false, 'reconnecting…');
    await new Promise(resolve => setTimeout(resolve, 2000));
  }
}

$('reset-all').addEventListener('click', () => post('/api/permissions/reset', {}));
if (!token) {
  live(false, 'no key');
  notice('Open the address `tabwright dashboard` prints: it carries the dashboard key.');
} else {
  void follow();
}
