/**
 * Declarative WebMCP tools for the polyfill: a
 * `<form toolname tooldescription>` is a tool whose inputSchema comes from its
 * named controls, built the way Chromium's native WebMCP builds it (observed
 * on Chromium 156, so `list_webmcp_tools` reads the same both ways):
 *
 * - text-like inputs, textarea, password: `{type: 'string'}` (+ `pattern`);
 * - number / range: `{type: 'number', minimum?, maximum?, multipleOf}` (step
 *   defaults to 1; a range's bounds default to 0..100);
 * - a lone checkbox: `{type: 'boolean'}`; same-name checkboxes: an array of
 *   their values (`uniqueItems`);
 * - select and radio groups: `{type: 'string', anyOf: [{const, title}], enum}`
 *   (a multiple select: an array of those);
 * - date: `format: 'date'`; datetime-local, time, color: `format` with the
 *   value's pattern;
 * - description: the control's `toolparamdescription`, else its label text;
 * - hidden, file, submit, reset, image and button controls are not
 *   parameters; `required` lists the required controls.
 *
 * No Node imports: bundled into the in-page runtime.
 */

type Control = HTMLInputElement | HTMLSelectElement | HTMLTextAreaElement;
type Schema = Record<string, unknown>;

const SKIPPED = new Set(['hidden', 'file', 'submit', 'reset', 'image', 'button']);
const FORMATS: Record<string, string> = {
  'datetime-local': '^[0-9]{4}-(0[1-9]|1[0-2])-[0-9]{2}T([01][0-9]|2[0-3]):[0-5][0-9]$',
  time: '^([01][0-9]|2[0-3]):[0-5][0-9]$',
  color: '^#[0-9a-zA-Z]{6}$',
};

function text(s: string | null | undefined): string {
  return (s ?? '').replace(/\s+/g, ' ').trim();
}

/** The control's label text (its first label), without the text of controls inside the label. */
function labelOf(el: Control): string {
  const label = el.labels?.[0];
  if (!label) return '';
  const copy = label.cloneNode(true) as HTMLElement;
  for (const inner of Array.from(copy.querySelectorAll('input,select,textarea'))) inner.remove();
  return text(copy.textContent);
}

function describe(el: Control): string {
  return text(el.getAttribute('toolparamdescription')) || labelOf(el);
}

/** The form's named parameter controls, grouped by name, in document order. */
function groups(form: HTMLFormElement): Map<string, Control[]> {
  const out = new Map<string, Control[]>();
  for (const el of Array.from(form.elements) as Control[]) {
    if (!el.name || !/^(input|select|textarea)$/.test(el.localName)) continue;
    if (el.localName === 'input' && SKIPPED.has((el as HTMLInputElement).type)) continue;
    const list = out.get(el.name);
    if (list) list.push(el);
    else out.set(el.name, [el]);
  }
  return out;
}

function choices(options: Array<{ value: string; title: string }>): Schema {
  return {
    type: 'string',
    anyOf: options.map(o => (o.title ? { type: 'string', const: o.value, title: o.title } : { type: 'string', const: o.value })),
    enum: options.map(o => o.value),
  };
}

function schemaOf(controls: Control[]): Schema {
  const el = controls[0]!;
  if (el.localName === 'select') {
    const opts = Array.from((el as HTMLSelectElement).options).map(o => ({ value: o.value, title: text(o.label || o.text) }));
    const one = choices(opts);
    return (el as HTMLSelectElement).multiple ? { type: 'array', items: one, uniqueItems: true } : one;
  }
  const type = el.localName === 'textarea' ? 'textarea' : (el as HTMLInputElement).type;
  let s: Schema;
  if (type === 'radio') return choices(controls.map(c => ({ value: c.value, title: labelOf(c) })));
  if (type === 'checkbox') {
    if (controls.length > 1) return { type: 'array', items: choices(controls.map(c => ({ value: c.value, title: labelOf(c) }))), uniqueItems: true };
    s = { type: 'boolean' };
  } else if (type === 'number' || type === 'range') {
    s = { type: 'number' };
    const min = el.getAttribute('min') ?? (type === 'range' ? '0' : null);
    const max = el.getAttribute('max') ?? (type === 'range' ? '100' : null);
    const step = el.getAttribute('step') ?? '1';
    if (min !== null && min !== '' && !isNaN(Number(min))) s.minimum = Number(min);
    if (max !== null && max !== '' && !isNaN(Number(max))) s.maximum = Number(max);
    if (step !== 'any' && Number(step) > 0) s.multipleOf = Number(step);
  } else if (type === 'date') {
    return { type: 'string', format: 'date', description: describe(el) || "Dates MUST be provided in 'YYYY-MM-DD' format." };
  } else {
    s = { type: 'string' };
    if (FORMATS[type]) s.format = FORMATS[type];
    const pattern = el.getAttribute('pattern');
    if (pattern) s.pattern = pattern;
  }
  const d = describe(el);
  if (d) s.description = d;
  return s;
}

/** The inputSchema of a declarative form tool. */
export function formSchema(form: HTMLFormElement): Schema {
  const properties: Schema = {};
  const required: string[] = [];
  for (const [name, controls] of groups(form)) {
    properties[name] = schemaOf(controls);
    if (controls.some(c => c.required)) required.push(name);
  }
  return required.length ? { type: 'object', properties, required } : { type: 'object', properties };
}

function setValue(el: Control, value: string): void {
  const proto = el.localName === 'select' ? HTMLSelectElement.prototype : el.localName === 'textarea' ? HTMLTextAreaElement.prototype : HTMLInputElement.prototype;
  // The prototype setter, so frameworks that track the value see the change.
  Object.getOwnPropertyDescriptor(proto, 'value')!.set!.call(el, value);
}

/** What a fill can change: checkedness, the selected options of a multiple select, else the value. */
function stateOf(el: Control): string {
  if (el.localName === 'input' && /^(checkbox|radio)$/.test((el as HTMLInputElement).type)) return String((el as HTMLInputElement).checked);
  if (el.localName === 'select' && (el as HTMLSelectElement).multiple) return Array.from((el as HTMLSelectElement).options, o => (o.selected ? '1' : '0')).join('');
  return el.value;
}

/** Fills the form's controls from tool arguments and fires input/change on the ones that changed. */
export function fillForm(form: HTMLFormElement, input: Record<string, unknown>): void {
  for (const [name, controls] of groups(form)) {
    if (!(name in input)) continue;
    const value = input[name];
    const values = Array.isArray(value) ? value.map(String) : [String(value)];
    for (const el of controls) {
      const before = stateOf(el);
      if (el.localName === 'select' && (el as HTMLSelectElement).multiple) {
        for (const o of Array.from((el as HTMLSelectElement).options)) o.selected = values.includes(o.value);
      } else if (el.localName === 'input' && (el as HTMLInputElement).type === 'checkbox') {
        (el as HTMLInputElement).checked = controls.length > 1 ? values.includes(el.value) : value === true || value === 'true' || value === 'on';
      } else if (el.localName === 'input' && (el as HTMLInputElement).type === 'radio') {
        (el as HTMLInputElement).checked = el.value === values[0];
      } else {
        setValue(el, values[0] ?? '');
      }
      // As Chromium 156: input then change, once each, on a control whose state changed; none on one that did not.
      if (stateOf(el) !== before) {
        el.dispatchEvent(new Event('input', { bubbles: true, composed: true }));
        el.dispatchEvent(new Event('change', { bubbles: true }));
      }
    }
  }
}
