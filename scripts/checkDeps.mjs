// Checks that the imports of src/ follow src/DEPS.list (the layers and the allowed arrows; the file says
// how to read it), after Playwright's utils/check_deps.js. Imports are read with TypeScript's own
// pre-processor, so comments and strings never count, and type imports, `export … from` and `import(…)` do.
// `node scripts/checkDeps.mjs [root]` (default: src) prints one line per problem and exits 1 if there is any.
import { readdirSync, readFileSync } from 'node:fs';
import { join, posix, relative, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import ts from 'typescript';

/** The rules of a DEPS.list: `layers` ({name, units}, top first), `bottom`, `alone` (units), `arrows` ({from, to[], types, line}). */
export function parseRules(text) {
  const rules = { layers: [], bottom: [], alone: [], arrows: [] };
  let section;
  text.split('\n').forEach((raw, i) => {
    const line = raw.replace(/#.*/, '').trim();
    if (!line) return;
    const head = /^\[(\w+)\]$/.exec(line);
    if (head) section = head[1];
    else if (section === 'layers') {
      const [name, ...units] = line.split(/\s+/);
      rules.layers.push({ name, units });
    }
    else if (section === 'bottom' || section === 'alone') rules[section].push(...line.split(/\s+/));
    else if (section === 'arrows' && /^\S+\s*->\s*[^:]+:\s*\S/.test(line)) {
      const [, from, to] = /^(\S+)\s*->\s*([^:]+):/.exec(line);
      const targets = to.trim().split(/\s+/);
      const types = targets.at(-1) === '(types)';
      rules.arrows.push({ from, to: types ? targets.slice(0, -1) : targets, types, line: i + 1 });
    } else throw new Error(`DEPS.list:${i + 1}: cannot read "${line}"`);
  });
  return rules;
}

/** True when `path` (relative to the root, posix) is the file `unit` or lies in the folder `unit`. */
const within = (path, unit) => (unit.endsWith('/') ? path.startsWith(unit) : path === unit);

/** Every problem of the tree at `root` (posix) against its DEPS.list, as `root/file:line: from -> to (specifier): why`. */
export function checkTree(root) {
  const rules = parseRules(readFileSync(join(root, 'DEPS.list'), 'utf8'));
  const units = [...rules.layers.flatMap(l => l.units), ...rules.bottom];
  const unitOf = path => units.filter(u => within(path, u)).sort((a, b) => b.length - a.length)[0];
  const layerOf = unit => rules.layers.findIndex(layer => layer.units.includes(unit));
  const layerName = unit => rules.layers[layerOf(unit)].name;
  const walk = dir => readdirSync(dir, { withFileTypes: true }).flatMap(e => (e.isDirectory() ? walk(join(dir, e.name)) : /\.tsx?$/.test(e.name) && !e.name.endsWith('.d.ts') ? [join(dir, e.name)] : []));
  const files = walk(root).map(f => relative(root, f).split('\\').join('/'));
  const problems = [];
  const used = new Set();
  for (const file of files) {
    const from = unitOf(file);
    if (!from) {
      problems.push(`${posix.join(root, file)}: in no unit of DEPS.list (add its folder to a layer, or to [bottom])`);
      continue;
    }
    const text = readFileSync(join(root, file), 'utf8');
    for (const { fileName: spec, pos } of ts.preProcessFile(text, true, true).importedFiles) {
      const where = `${posix.join(root, file)}:${text.slice(0, pos).split('\n').length}: ${from} -> `;
      if (!spec.startsWith('.')) {
        // A package an [alone] unit may import is named by an arrow from the importing file (or its folder).
        const arrow = rules.alone.includes(from) ? rules.arrows.find(a => within(file, a.from) && a.to.includes(spec)) : undefined;
        if (arrow) used.add(arrow);
        else if (rules.alone.includes(from)) problems.push(`${where}${spec}: ${from} imports no package and no node: module`);
        continue;
      }
      const target = posix.normalize(posix.join(posix.dirname(file), spec)).replace(/\.js$/, '.ts');
      const to = unitOf(target);
      if (!to || to === from) continue;
      const statement = [...text.slice(0, pos).matchAll(/\b(?:import|export)\b/g)].at(-1);
      const typeOnly = statement !== undefined && /^(?:import|export)\s+type\s/.test(text.slice(statement.index, pos));
      const arrow = rules.arrows.find(a => within(file, a.from) && a.to.some(t => within(target, t)) && (!a.types || typeOnly));
      if (arrow) used.add(arrow);
      else if (rules.alone.includes(from)) problems.push(`${where}${to} (${spec}): ${from} imports only its own files`);
      else if (rules.bottom.includes(from) && !rules.bottom.includes(to)) problems.push(`${where}${to} (${spec}): a bottom unit imports only bottom units`);
      else if (rules.bottom.includes(to) || layerOf(from) < layerOf(to)) continue;
      else if (layerOf(from) === layerOf(to)) problems.push(`${where}${to} (${spec}): both are in layer ${layerName(from)}, and no arrow allows it`);
      else problems.push(`${where}${to} (${spec}): points up, from layer ${layerName(from)} to layer ${layerName(to)}`);
    }
  }
  for (const unit of units) if (!files.some(f => within(f, unit))) problems.push(`${posix.join(root, 'DEPS.list')}: ${unit} holds no file`);
  for (const arrow of rules.arrows) if (!used.has(arrow)) problems.push(`${posix.join(root, 'DEPS.list')}:${arrow.line}: no import needs the arrow ${arrow.from} -> ${arrow.to.join(' ')} (remove it)`);
  return problems;
}

if (process.argv[1] && resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  const problems = checkTree(process.argv[2] ?? 'src');
  for (const problem of problems) console.log(problem);
  process.exit(problems.length ? 1 : 0);
}
