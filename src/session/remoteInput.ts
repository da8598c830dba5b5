/**
 * Input on a tab reached from inside its page (`RemoteTabs`, the userscript connection;
 * docs/userscript-connection.md, "Tools"): synthetic DOM events dispatched by page script on the element a
 * get_page_context ref names, never trusted input (`isTrusted` is false: sites that check it ignore them). click:
 * pointer and mouse events, focus, then `click()`; text: the native value setter, `input` and `change`; submit:
 * Enter key events and the form's `requestSubmit()`; checkboxes and radios: a click when the state differs;
 * selects: the options by value or label, `input` and `change`.
 */
import type { RemoteTabInfo, RemoteTabs } from '../browser/connection.js';
import { ToolError } from '../errors.js';
import { remoteElementId } from './remoteSnapshot.js';
import type { Session } from './session.js';

/** One synthetic action. */
export type SyntheticAction =
  | { kind: 'click' }
  | { kind: 'text'; text: string; clear: boolean; submit?: boolean }
  | { kind: 'check'; checked: boolean }
  | { kind: 'select'; values: string[] };

/** The element after the action, as the page reads it. */
export interface SyntheticResult {
  tag: string;
  value?: string;
  checked?: boolean;
}

const PAGE_CODE = `{
const rt = globalThis.__tabwright;
const el = rt && rt.byRef ? rt.byRef(ID) : null;
if (!el) return { gone: true };
if (el.disabled) return { disabled: true };
const a = ACTION;
el.scrollIntoView({ block: 'center', inline: 'center' });
const kind = el.tagName === 'SELECT' ? 'select' : (el.type === 'checkbox' || el.type === 'radio') ? 'check' : 'text';
const read = () => ({ tag: el.tagName.toLowerCase(), ...(kind === 'check' ? { checked: !!el.checked } : 'value' in el ? { value: String(el.value) } : {}) });
const fire = (e) => el.dispatchEvent(e);
if (a.kind !== 'click' && a.kind !== kind) return { wrongKind: kind };
if (a.kind === 'click') {
  const o = { bubbles: true, cancelable: true, composed: true, view: window, button: 0 };
  fire(new PointerEvent('pointerdown', o)); fire(new MouseEvent('mousedown', o));
  if (el.focus) el.focus();
  fire(new PointerEvent('pointerup', o)); fire(new MouseEvent('mouseup', o));
  el.click();
  return read();
}
if (a.kind === 'check') {
  if (!!el.checked !== a.checked) el.click();
  return read();
}
if (a.kind === 'select') {
  for (const o of el.options) o.selected = a.values.includes(o.value) || a.values.includes(o.label) || a.values.includes(o.text.trim());
  fire(new Event('input', { bubbles: true, composed: true })); fire(new Event('change', { bubbles: true }));
  return read();
}
if (el.focus) el.focus();
if (el.isContentEditable) el.textContent = (a.clear ? '' : el.textContent) + a.text;
else {
  const proto = el instanceof HTMLTextAreaElement ? HTMLTextAreaElement.prototype : HTMLInputElement.prototype;
  const setter = Object.getOwnPropertyDescriptor(proto, 'value')?.set;
  const next = (a.clear ? '' : String(el.value)) + a.text;
  if (setter) setter.call(el, next); else el.value = next;
}
fire(new InputEvent('input', { bubbles: true, composed: true, inputType: 'insertText', data: a.text }));
fire(new Event('change', { bubbles: true }));
if (a.submit) {
  for (const t of ['keydown', 'keypress', 'keyup']) fire(new KeyboardEvent(t, { key: 'Enter', code: 'Enter', bubbles: true, cancelable: true, composed: true }));
  if (el.form) el.form.requestSubmit ? el.form.requestSubmit() : el.form.submit();
}
return read();
}`;

/**
 * Runs `action` on the element of `ref` in `tab`.
 * @throws ToolError stale_ref (a ref of another document, or an element no longer there), element_not_actionable
 *   (disabled), invalid_arguments (a value of the wrong kind for the element), and what execute throws.
 */
export async function syntheticInput(session: Session, tabs: RemoteTabs, tab: RemoteTabInfo, ref: string, action: SyntheticAction, limits: { timeoutMs: number; signal?: AbortSignal }): Promise<SyntheticResult> {
  const id = remoteElementId(session, tab, ref);
  const code = PAGE_CODE.replace('ID', () => JSON.stringify(id)).replace('ACTION', () => JSON.stringify(action));
  const answer = await tabs.execute(tab.tabId, `async () => ${code}`, { ...limits, maxBytes: 64 * 1024, instanceId: tab.instanceId }) as SyntheticResult & { gone?: true; disabled?: true; wrongKind?: string };
  if (answer?.gone) throw new ToolError('stale_ref', `Ref ${ref} is no longer in the page.`, 'Call get_page_context for fresh refs.');
  if (answer?.disabled) throw new ToolError('element_not_actionable', `Ref ${ref} is disabled.`, 'Wait for the page to enable it, or act on another element.');
  if (answer?.wrongKind) {
    throw new ToolError('invalid_arguments', `Ref ${ref} is a ${answer.wrongKind === 'check' ? 'checkbox or radio' : answer.wrongKind === 'select' ? 'select' : 'text field'}: its value must be ${answer.wrongKind === 'check' ? 'true or false' : answer.wrongKind === 'select' ? 'option values or labels' : 'a string'}.`, 'Pass a value of that kind.');
  }
  return answer;
}
