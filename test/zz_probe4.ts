import { connect } from '/work/main/test/fixtures/mcp.ts';
import { startSite } from '/work/main/test/fixtures/site.ts';
const site = await startSite();
site.page('/login', `<!doctype html><title>Login</title><form><label>Username <input id=user></label><label>Password <input type=password></label><label><input type=checkbox> Remember</label><button type=button>Sign in</button></form><a href=/x>Forgot</a>`);
const c = await connect();
const t = async (name: string, args: any) => { const t0 = performance.now(); const r: any = await c.client.callTool({ name, arguments: args }); return [Math.round(performance.now() - t0), r]; };
const rows: any[] = [];
for (let i = 0; i < 10; i++) {
  const [nav] = await t('navigate', { url: `${site.origin}/login` });
  const [sn, snap] = await t('get_page_context', {});
  const ref = /textbox "Username" \[ref=(e\d+)\]/.exec(snap.content[0].text)![1];
  const bref = /button "Sign in" \[ref=(e\d+)\]/.exec(snap.content[0].text)![1];
  const [ty1] = await t('type', { ref, text: 'hello' });
  const [ty2] = await t('type', { ref, text: 'again' });
  const [cl] = await t('click', { ref: bref });
  const [sc] = await t('take_screenshot', {});
  rows.push({ nav, sn, ty1, ty2, cl, sc });
}
const med = (k: string) => rows.map(r => r[k]).sort((a, b) => a - b)[5];
console.log(Object.fromEntries(['nav', 'sn', 'ty1', 'ty2', 'cl', 'sc'].map(k => [k, med(k)])));
await c.close(); await site.close();
