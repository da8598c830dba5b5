/**
 * What `tabwright webmcp scan` reads in one script (docs/webmcp-dev.md, "Scan"), with the `typescript` package's
 * parser (`ts.createSourceFile`; .ts/.tsx/.js/.jsx/.mjs/.cjs, and the `<script>` blocks of HTML, .vue and .svelte
 * files): framework bootstraps, WebMCP `registerTool` and `provideContext` calls on `document.modelContext` or
 * `navigator.modelContext` (directly or through a variable that holds one), and JSX `<form toolname>`. Values are
 * read only when they are literals in the file (a `const` with a literal initializer counts); anything else is named
 * in `unknown`, never guessed.
 */
import type * as TS from 'typescript';
import { nameProblem } from './declarations.js';

/** The frameworks whose bootstraps the scan recognises. */
export type Framework = 'react' | 'vue' | 'svelte' | 'angular';

/** A call that mounts a framework app into the page. `line` is 1-based. */
export interface Bootstrap {
  file: string;
  line: number;
  framework: Framework;
  /** The shape found, e.g. `createRoot`, `ReactDOM.render`, `createApp(...).mount`, `new App({target})`. */
  call: string;
}

/** A WebMCP tool declaration found in source: imperative (`registerTool`, obsolete `provideContext`) or a form. */
export interface FoundTool {
  file: string;
  line: number;
  kind: 'registerTool' | 'provideContext' | 'form';
  /** The model-context surfaces the receiver comes from (imperative tools), sorted. */
  via?: string[];
  name?: string;
  title?: string;
  description?: string;
  annotations?: Record<string, unknown>;
  inputSchema?: unknown;
  /** Forms: whether `toolautosubmit` is present. */
  autosubmit?: boolean;
  /** Imperative tools: how many parameters `execute` declares (2 means it takes `{signal}`); absent when unknown. */
  executeParams?: number;
  /** registerTool: whether a second argument (the registration options, e.g. `{signal}`) is passed. */
  registrationOptions?: boolean;
  /** Members present whose values are not literals in the file. */
  unknown: string[];
  /** What is wrong by WebMCP's rules, as far as the literals tell. */
  problems: string[];
}

/** What one script holds. */
export interface ScriptFindings {
  bootstraps: Bootstrap[];
  tools: FoundTool[];
}

type Literal = { ok: true; value: unknown } | { ok: false };
const NO: Literal = { ok: false };
const MAX_DEPTH = 8;

/** The static problems of a declaration (name, description, schema, obsolete API). */
function problemsOf(tool: FoundTool): string[] {
  const problems: string[] = [];
  if (tool.kind === 'provideContext') problems.push('provideContext is obsolete: register each tool with registerTool');
  if (tool.name !== undefined) {
    const problem = nameProblem(tool.name);
    if (problem) problems.push(problem);
  }
  if (tool.description !== undefined && tool.description.trim() === '') problems.push('description is empty');
  if (tool.kind !== 'form' && !tool.unknown.includes('description') && tool.description === undefined) problems.push('description is missing');
  if (tool.inputSchema !== undefined) {
    const schema = tool.inputSchema as { type?: unknown } | null;
    if (schema === null || typeof schema !== 'object' || Array.isArray(schema) || schema.type !== 'object') problems.push('inputSchema is not an object schema ({"type": "object", ...})');
  }
  return problems;
}

/**
 * Reads the script `text` of `file` (posix, relative to the scanned folder). `line` is the 1-based line the text
 * starts on in the file; `kind` picks the parser's dialect (`tsx` reads JSX and TypeScript alike).
 */
export function scanScript(ts: typeof TS.default, file: string, text: string, line = 1, kind: 'ts' | 'tsx' | 'js' | 'jsx' = 'tsx'): ScriptFindings {
  const scriptKind = { ts: ts.ScriptKind.TS, tsx: ts.ScriptKind.TSX, js: ts.ScriptKind.JS, jsx: ts.ScriptKind.JSX }[kind];
  const source = ts.createSourceFile(file, text, ts.ScriptTarget.Latest, true, scriptKind);
  const lineOf = (node: TS.Node) => source.getLineAndCharacterOfPosition(node.getStart(source)).line + line;
  const bootstraps: Bootstrap[] = [];
  const tools: FoundTool[] = [];

  // Every variable's initializers and assignments, by name (one scope per file: good enough for aliases).
  const values = new Map<string, TS.Expression[]>();
  const note = (name: string, value: TS.Expression) => values.set(name, [...(values.get(name) ?? []), value]);
  const collect = (node: TS.Node): void => {
    if (ts.isVariableDeclaration(node) && node.initializer) {
      if (ts.isIdentifier(node.name)) note(node.name.text, node.initializer);
      else if (ts.isObjectBindingPattern(node.name)) {
        // const { modelContext } = navigator  ->  modelContext holds navigator.modelContext
        for (const element of node.name.elements) {
          const key = element.propertyName && ts.isIdentifier(element.propertyName) ? element.propertyName.text : ts.isIdentifier(element.name) ? element.name.text : undefined;
          if (key && ts.isIdentifier(element.name)) note(element.name.text, ts.factory.createPropertyAccessExpression(node.initializer, key));
        }
      }
    } else if (ts.isBinaryExpression(node) && node.operatorToken.kind === ts.SyntaxKind.EqualsToken && ts.isIdentifier(node.left)) {
      note(node.left.text, node.right);
    }
    ts.forEachChild(node, collect);
  };
  collect(source);

  const unwrap = (node: TS.Expression): TS.Expression => {
    let n = node;
    while (ts.isParenthesizedExpression(n) || ts.isAsExpression(n) || ts.isSatisfiesExpression(n) || ts.isNonNullExpression(n) || ts.isTypeAssertionExpression(n) || ts.isAwaitExpression(n)) n = n.expression;
    return n;
  };
  const textOf = (node: TS.Node): string => (ts.isIdentifier(node) || ts.isPrivateIdentifier(node) ? node.text : node.pos >= 0 ? node.getText(source) : '');

  /** The model-context surfaces `expr` reaches (through variables, `||`, `??`, `?.`), e.g. `navigator.modelContext`. */
  const surfaces = (expr: TS.Node, depth = 0, out = new Set<string>()): Set<string> => {
    if (depth > MAX_DEPTH) return out;
    const visit = (node: TS.Node): void => {
      if (ts.isPropertyAccessExpression(node) && node.name.text === 'modelContext') {
        const owner = unwrap(node.expression);
        const ownerName = ts.isPropertyAccessExpression(owner) ? owner.name.text : ts.isIdentifier(owner) ? owner.text : '';
        out.add(ownerName === 'document' ? 'document.modelContext' : ownerName === 'navigator' ? 'navigator.modelContext' : `${ownerName || '?'}.modelContext`);
        return;
      }
      if (ts.isIdentifier(node) && node !== expr) for (const value of values.get(node.text) ?? []) surfaces(value, depth + 1, out);
      ts.forEachChild(node, visit);
    };
    if (ts.isIdentifier(expr)) for (const value of values.get(expr.text) ?? []) surfaces(value, depth + 1, out);
    else visit(expr);
    return out;
  };

  const literal = (node: TS.Expression, depth = 0): Literal => {
    if (depth > MAX_DEPTH) return NO;
    const n = unwrap(node);
    if (ts.isStringLiteral(n) || ts.isNoSubstitutionTemplateLiteral(n)) return { ok: true, value: n.text };
    if (ts.isNumericLiteral(n)) return { ok: true, value: Number(n.text) };
    if (ts.isPrefixUnaryExpression(n) && n.operator === ts.SyntaxKind.MinusToken && ts.isNumericLiteral(n.operand)) return { ok: true, value: -Number(n.operand.text) };
    if (n.kind === ts.SyntaxKind.TrueKeyword) return { ok: true, value: true };
    if (n.kind === ts.SyntaxKind.FalseKeyword) return { ok: true, value: false };
    if (n.kind === ts.SyntaxKind.NullKeyword) return { ok: true, value: null };
    if (ts.isBinaryExpression(n) && n.operatorToken.kind === ts.SyntaxKind.PlusToken) {
      const left = literal(n.left, depth + 1);
      const right = literal(n.right, depth + 1);
      return left.ok && right.ok && typeof left.value === 'string' && typeof right.value === 'string' ? { ok: true, value: left.value + right.value } : NO;
    }
    if (ts.isArrayLiteralExpression(n)) {
      const items: unknown[] = [];
      for (const element of n.elements) {
        const item = ts.isSpreadElement(element) ? NO : literal(element, depth + 1);
        if (!item.ok) return NO;
        items.push(item.value);
      }
      return { ok: true, value: items };
    }
    if (ts.isObjectLiteralExpression(n)) {
      const object: Record<string, unknown> = {};
      for (const property of n.properties) {
        const key = property.name ? propertyKey(property.name) : undefined;
        if (key === undefined) return NO;
        const value = ts.isPropertyAssignment(property) ? literal(property.initializer, depth + 1)
          : ts.isShorthandPropertyAssignment(property) ? literal(property.name, depth + 1) : NO;
        if (!value.ok) return NO;
        object[key] = value.value;
      }
      return { ok: true, value: object };
    }
    if (ts.isIdentifier(n)) {
      const candidates = values.get(n.text) ?? [];
      return candidates.length === 1 ? literal(candidates[0], depth + 1) : NO;
    }
    return NO;
  };
  const propertyKey = (name: TS.PropertyName): string | undefined =>
    ts.isIdentifier(name) || ts.isStringLiteral(name) || ts.isNumericLiteral(name) || ts.isNoSubstitutionTemplateLiteral(name) ? name.text : undefined;

  /** The object literal `expr` is, directly or through a variable with one initializer. */
  const objectOf = (expr: TS.Expression, depth = 0): TS.ObjectLiteralExpression | undefined => {
    const n = unwrap(expr);
    if (ts.isObjectLiteralExpression(n)) return n;
    if (ts.isIdentifier(n) && depth < MAX_DEPTH) {
      const candidates = values.get(n.text) ?? [];
      return candidates.length === 1 ? objectOf(candidates[0], depth + 1) : undefined;
    }
    return undefined;
  };

  /** One imperative tool from its declaration object (a literal, or a variable holding one). */
  const readTool = (expr: TS.Expression, at: TS.Node, kind: 'registerTool' | 'provideContext', via: string[]): FoundTool => {
    const tool: FoundTool = { file, line: lineOf(at), kind, via, unknown: [], problems: [] };
    const object = objectOf(expr);
    if (!object) {
      tool.unknown.push('tool');
      return tool;
    }
    for (const property of object.properties) {
      if (ts.isSpreadAssignment(property)) {
        tool.unknown.push('...');
        continue;
      }
      const key = property.name ? propertyKey(property.name) : undefined;
      if (key === undefined) continue;
      if (key === 'execute') {
        const fn = ts.isMethodDeclaration(property) ? property : ts.isPropertyAssignment(property) ? unwrap(property.initializer) : undefined;
        if (fn && (ts.isMethodDeclaration(fn) || ts.isFunctionExpression(fn) || ts.isArrowFunction(fn))) tool.executeParams = fn.parameters.length;
        continue;
      }
      if (!['name', 'title', 'description', 'annotations', 'inputSchema'].includes(key)) continue;
      const value = ts.isPropertyAssignment(property) ? literal(property.initializer) : ts.isShorthandPropertyAssignment(property) ? literal(property.name) : NO;
      if (!value.ok) tool.unknown.push(key);
      else if ((key === 'name' || key === 'title' || key === 'description') && typeof value.value === 'string') tool[key] = value.value;
      else if (key === 'annotations' && value.value !== null && typeof value.value === 'object') tool.annotations = value.value as Record<string, unknown>;
      else if (key === 'inputSchema') tool.inputSchema = value.value;
      else tool.unknown.push(key);
    }
    return tool;
  };

  /** The called function's name: `f` for `f()` and `a.b.f()`. */
  const calleeName = (call: TS.CallExpression): string | undefined => {
    const callee = unwrap(call.expression);
    return ts.isIdentifier(callee) ? callee.text : ts.isPropertyAccessExpression(callee) ? callee.name.text : undefined;
  };
  /** Whether `expr` (through calls, property chains and variables) comes from a call named one of `names`. */
  const comesFrom = (expr: TS.Expression, names: string[], depth = 0): boolean => {
    if (depth > MAX_DEPTH) return false;
    const n = unwrap(expr);
    if (ts.isCallExpression(n)) {
      const name = calleeName(n);
      if (name && names.includes(name)) return true;
      const callee = unwrap(n.expression);
      return ts.isPropertyAccessExpression(callee) && comesFrom(callee.expression, names, depth + 1);
    }
    if (ts.isIdentifier(n)) return (values.get(n.text) ?? []).some(v => comesFrom(v, names, depth + 1));
    return false;
  };
  const hasTarget = (arg: TS.Expression | undefined) => {
    const object = arg && objectOf(arg);
    return object?.properties.some(p => p.name !== undefined && propertyKey(p.name) === 'target') ?? false;
  };

  const visit = (node: TS.Node): void => {
    if (ts.isCallExpression(node)) {
      const callee = unwrap(node.expression);
      const name = calleeName(node);
      if (ts.isPropertyAccessExpression(callee) && (name === 'registerTool' || name === 'provideContext')) {
        const via = [...surfaces(callee.expression)].sort();
        if (via.length && name === 'registerTool' && node.arguments[0]) {
          const tool = readTool(node.arguments[0], node, 'registerTool', via);
          tool.registrationOptions = node.arguments.length > 1;
          tools.push(tool);
        } else if (via.length && name === 'provideContext') {
          const context = node.arguments[0] && objectOf(node.arguments[0]);
          const list = context?.properties.find((p): p is TS.PropertyAssignment => ts.isPropertyAssignment(p) && propertyKey(p.name) === 'tools');
          const array = list && unwrap(list.initializer);
          if (array && ts.isArrayLiteralExpression(array)) for (const element of array.elements) tools.push(readTool(element, element, 'provideContext', via));
          else tools.push({ file, line: lineOf(node), kind: 'provideContext', via, unknown: ['tools'], problems: [] });
        }
      }
      if ((name === 'createRoot' || name === 'hydrateRoot') && node.arguments.length) bootstraps.push({ file, line: lineOf(node), framework: 'react', call: name });
      else if (name === 'render' && ts.isPropertyAccessExpression(callee) && ts.isIdentifier(callee.expression) && callee.expression.text === 'ReactDOM') bootstraps.push({ file, line: lineOf(node), framework: 'react', call: 'ReactDOM.render' });
      else if (name === 'mount' && ts.isPropertyAccessExpression(callee) && comesFrom(callee.expression, ['createApp', 'createSSRApp'])) bootstraps.push({ file, line: lineOf(node), framework: 'vue', call: 'createApp(...).mount' });
      else if ((name === 'mount' || name === 'hydrate') && ts.isIdentifier(callee) && hasTarget(node.arguments[1])) bootstraps.push({ file, line: lineOf(node), framework: 'svelte', call: `${name}(App, {target})` });
      else if (name === 'bootstrapApplication' && ts.isIdentifier(callee)) bootstraps.push({ file, line: lineOf(node), framework: 'angular', call: 'bootstrapApplication' });
      else if (name === 'bootstrapModule' && ts.isPropertyAccessExpression(callee)) bootstraps.push({ file, line: lineOf(node), framework: 'angular', call: 'platformBrowserDynamic().bootstrapModule' });
    } else if (ts.isNewExpression(node) && hasTarget(node.arguments?.[0])) {
      bootstraps.push({ file, line: lineOf(node), framework: 'svelte', call: 'new App({target})' });
    } else if ((ts.isJsxOpeningElement(node) || ts.isJsxSelfClosingElement(node)) && textOf(node.tagName) === 'form') {
      const attrs = new Map<string, Literal>();
      for (const attribute of node.attributes.properties) {
        if (!ts.isJsxAttribute(attribute)) continue;
        const key = textOf(attribute.name).toLowerCase();
        const init = attribute.initializer;
        attrs.set(key, !init ? { ok: true, value: true } : ts.isStringLiteral(init) ? { ok: true, value: init.text }
          : ts.isJsxExpression(init) && init.expression ? literal(init.expression) : NO);
      }
      if (attrs.has('toolname')) tools.push(formTool(file, lineOf(node), attrs));
    }
    ts.forEachChild(node, visit);
  };
  visit(source);
  return { bootstraps, tools: tools.map(tool => ordered({ ...tool, problems: tool.kind === 'form' ? tool.problems : problemsOf(tool) })) };
}

const TOOL_KEYS: (keyof FoundTool)[] = ['file', 'line', 'kind', 'via', 'name', 'title', 'description', 'inputSchema', 'annotations', 'autosubmit', 'executeParams', 'registrationOptions', 'unknown', 'problems'];

/** `tool` with its keys in one order (the JSON reads the same for every tool). */
function ordered(tool: FoundTool): FoundTool {
  const out: Record<string, unknown> = {};
  for (const key of TOOL_KEYS) if (tool[key] !== undefined) out[key] = tool[key];
  return out as unknown as FoundTool;
}

/** A declarative tool from a `<form>`'s attributes (`toolname`, `tooldescription`, `tooltitle`, `toolautosubmit`). */
export function formTool(file: string, line: number, attrs: Map<string, Literal>): FoundTool {
  const tool: FoundTool = { file, line, kind: 'form', unknown: [], problems: [] };
  const read = (attr: string, key: 'name' | 'description' | 'title') => {
    const value = attrs.get(attr);
    if (!value) return;
    if (value.ok && typeof value.value === 'string') tool[key] = value.value;
    else tool.unknown.push(key);
  };
  read('toolname', 'name');
  read('tooldescription', 'description');
  read('tooltitle', 'title');
  tool.autosubmit = attrs.has('toolautosubmit') && !(attrs.get('toolautosubmit')?.ok && (attrs.get('toolautosubmit') as { value: unknown }).value === false);
  tool.problems = problemsOf(tool);
  if (!attrs.has('tooldescription')) tool.problems.push('the form has no tooldescription attribute (the browser leaves it out)');
  return ordered(tool);
}

/** A form tool from markup attributes (HTML, .vue/.svelte templates). */
export function markupFormTool(file: string, line: number, attrs: Map<string, string>): FoundTool {
  return formTool(file, line, new Map([...attrs].map(([k, v]) => [k, { ok: true, value: v } as Literal])));
}
