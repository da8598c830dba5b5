/**
 * `tabwright webmcp scan DIR` (docs/webmcp-dev.md, "Scan"): an inventory of a workspace's browser apps and the
 * WebMCP tools their sources declare, as JSON. An app is a folder with a package.json (its framework dependencies
 * named); each source file belongs to the nearest one (or to DIR itself when none is above it). Entry points are
 * HTML files (with their `<script src>`) and framework bootstraps; tools are `registerTool`/`provideContext` calls on
 * a model context and `<form toolname>` in HTML, JSX, .vue and .svelte files. Scripts are parsed with the
 * `typescript` package (loaded here, lazily), markup with src/webmcp/scanMarkup.ts.
 *
 * Bounds: folders named in SKIPPED_DIRS are not entered, files over MAX_FILE_BYTES are listed in `skipped` unread,
 * at most MAX_FILES files are read (`truncated` says when more were left), symbolic links are followed only to
 * targets inside DIR and each real folder is walked once.
 */
import { readdirSync, readFileSync, realpathSync, statSync } from 'node:fs';
import { join, relative, sep } from 'node:path';
import { ToolError } from '../errors.js';
import { tokenizeMarkup } from './scanMarkup.js';
import { markupFormTool, scanScript, type Bootstrap, type FoundTool } from './scanScript.js';

/** Folders never entered: dependencies, VCS data, build output and caches. */
export const SKIPPED_DIRS = new Set(['node_modules', '.git', '.hg', '.svn', 'dist', 'build', 'out', 'coverage', '.next', '.nuxt', '.output', '.svelte-kit', '.angular', '.cache', '.turbo', '.parcel-cache', '.vercel', 'bower_components', '.tabwright']);
/** Files larger than this (bytes) are not read. */
export const MAX_FILE_BYTES = 1_000_000;
/** At most this many files are read. */
export const MAX_FILES = 5_000;

const SCRIPT_KIND: Record<string, 'ts' | 'tsx' | 'js' | 'jsx'> = { ts: 'ts', mts: 'ts', cts: 'ts', tsx: 'tsx', js: 'jsx', mjs: 'js', cjs: 'js', jsx: 'jsx' };
const MARKUP = new Set(['html', 'htm', 'vue', 'svelte']);
/** Dependencies named as an app's framework deps, and the framework each means. */
const FRAMEWORK_DEPS: Record<string, string> = {
  react: 'react', 'react-dom': 'react', next: 'react', preact: 'preact', vue: 'vue', nuxt: 'vue', svelte: 'svelte',
  '@sveltejs/kit': 'svelte', '@angular/core': 'angular', '@angular/platform-browser': 'angular', 'solid-js': 'solid', lit: 'lit',
};

/** An HTML file of an app, with its `<script>` elements (`src` as written; inline ones have none). */
export interface HtmlEntry {
  file: string;
  scripts: { line: number; src?: string; module?: true }[];
}

/** One browser app (or the folder's loose files: `packageJson` null). Paths are posix, relative to DIR. */
export interface ScannedApp {
  dir: string;
  packageJson: string | null;
  name?: string;
  frameworks: string[];
  /** The framework packages of dependencies/devDependencies/peerDependencies, with the versions written. */
  frameworkDeps: Record<string, string>;
  html: HtmlEntry[];
  bootstraps: Bootstrap[];
  tools: FoundTool[];
}

/** The scan's answer. */
export interface ScanResult {
  root: string;
  apps: ScannedApp[];
  filesRead: number;
  skipped: { file: string; reason: 'too_large' | 'unreadable' | 'outside' }[];
  truncated: boolean;
}

const posix = (path: string) => path.split(sep).join('/');

/**
 * Scans the folder `dir`.
 * @throws ToolError file_not_found when `dir` is not a folder.
 */
export async function scanWorkspace(dir: string): Promise<ScanResult> {
  let root: string;
  try {
    root = realpathSync(dir);
    if (!statSync(root).isDirectory()) throw new Error('not a folder');
  } catch {
    throw new ToolError('file_not_found', `${dir} is not a folder.`, 'Pass the folder of the workspace to scan, e.g. `tabwright webmcp scan .`.');
  }
  const ts = (await import('typescript')).default;
  const files: string[] = [];
  const packages: string[] = [];
  const skipped: ScanResult['skipped'] = [];
  const seen = new Set<string>();
  let truncated = false;
  const inside = (real: string) => real === root || real.startsWith(root + sep);

  const walk = (abs: string): void => {
    let entries;
    try {
      entries = readdirSync(abs, { withFileTypes: true }).sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
    } catch {
      skipped.push({ file: posix(relative(root, abs)) || '.', reason: 'unreadable' });
      return;
    }
    for (const entry of entries) {
      const path = join(abs, entry.name);
      const rel = posix(relative(root, path));
      let isDir = entry.isDirectory();
      let isFile = entry.isFile();
      if (entry.isSymbolicLink()) {
        let real: string;
        try {
          real = realpathSync(path);
        } catch {
          continue;
        }
        if (!inside(real)) {
          skipped.push({ file: rel, reason: 'outside' });
          continue;
        }
        const stat = statSync(real);
        isDir = stat.isDirectory();
        isFile = stat.isFile();
      }
      if (isDir) {
        if (SKIPPED_DIRS.has(entry.name)) continue;
        const real = realpathSync(path);
        if (seen.has(real)) continue;
        seen.add(real);
        walk(path);
      } else if (isFile) {
        const ext = entry.name.slice(entry.name.lastIndexOf('.') + 1).toLowerCase();
        if (entry.name === 'package.json') packages.push(rel);
        else if ((SCRIPT_KIND[ext] && !entry.name.endsWith('.d.ts')) || MARKUP.has(ext)) {
          if (files.length >= MAX_FILES) truncated = true;
          else files.push(rel);
        }
      }
    }
  };
  seen.add(root);
  walk(root);

  const apps = new Map<string, ScannedApp>();
  for (const pkg of packages) {
    const appDir = pkg === 'package.json' ? '.' : pkg.slice(0, -'/package.json'.length);
    let app: ScannedApp = { dir: appDir, packageJson: pkg, frameworks: [], frameworkDeps: {}, html: [], bootstraps: [], tools: [] };
    try {
      const json = JSON.parse(readFileSync(join(root, pkg), 'utf8')) as Record<string, unknown>;
      if (typeof json.name === 'string') app = { dir: appDir, packageJson: pkg, name: json.name, frameworks: [], frameworkDeps: {}, html: [], bootstraps: [], tools: [] };
      for (const field of ['dependencies', 'devDependencies', 'peerDependencies']) {
        const deps = json[field];
        if (!deps || typeof deps !== 'object') continue;
        for (const [dep, version] of Object.entries(deps as Record<string, unknown>)) {
          if (FRAMEWORK_DEPS[dep] && typeof version === 'string') app.frameworkDeps[dep] = version;
        }
      }
    } catch {
      skipped.push({ file: pkg, reason: 'unreadable' });
    }
    app.frameworks = [...new Set(Object.keys(app.frameworkDeps).map(d => FRAMEWORK_DEPS[d]))].sort();
    apps.set(appDir, app);
  }
  const appOf = (file: string): ScannedApp => {
    for (let dir = file.includes('/') ? file.slice(0, file.lastIndexOf('/')) : '.'; ; dir = dir.includes('/') ? dir.slice(0, dir.lastIndexOf('/')) : '.') {
      const app = apps.get(dir);
      if (app) return app;
      if (dir === '.') break;
    }
    const loose: ScannedApp = { dir: '.', packageJson: null, frameworks: [], frameworkDeps: {}, html: [], bootstraps: [], tools: [] };
    apps.set('.', loose);
    return loose;
  };

  let filesRead = 0;
  for (const file of files) {
    const abs = join(root, file);
    let text: string;
    try {
      if (statSync(abs).size > MAX_FILE_BYTES) {
        skipped.push({ file, reason: 'too_large' });
        continue;
      }
      text = readFileSync(abs, 'utf8');
    } catch {
      skipped.push({ file, reason: 'unreadable' });
      continue;
    }
    filesRead++;
    const ext = file.slice(file.lastIndexOf('.') + 1).toLowerCase();
    const found: { bootstraps: Bootstrap[]; tools: FoundTool[]; html?: HtmlEntry } = { bootstraps: [], tools: [] };
    if (SCRIPT_KIND[ext]) {
      const result = scanScript(ts, file, text, 1, SCRIPT_KIND[ext]);
      found.bootstraps.push(...result.bootstraps);
      found.tools.push(...result.tools);
    } else {
      const markup = tokenizeMarkup(text);
      for (const script of markup.scripts) {
        if (script.attrs.has('src')) continue;
        const type = script.attrs.get('type');
        if (type !== undefined && !/^(module|text\/javascript|application\/javascript|)$/i.test(type)) continue;
        const lang = script.attrs.get('lang');
        const result = scanScript(ts, file, script.text, script.line, lang === 'ts' || lang === 'tsx' ? 'tsx' : 'jsx');
        found.bootstraps.push(...result.bootstraps);
        found.tools.push(...result.tools);
      }
      for (const tag of markup.tags) {
        if (tag.name === 'form' && tag.attrs.has('toolname')) found.tools.push(markupFormTool(file, tag.line, tag.attrs));
      }
      if (ext === 'html' || ext === 'htm') {
        found.html = {
          file,
          scripts: markup.tags.filter(t => t.name === 'script').map(t => ({
            line: t.line,
            ...(t.attrs.has('src') ? { src: t.attrs.get('src') } : {}),
            ...(t.attrs.get('type') === 'module' ? { module: true as const } : {}),
          })),
        };
      }
    }
    if (!found.html && !found.bootstraps.length && !found.tools.length) continue;
    const app = appOf(file);
    if (found.html) app.html.push(found.html);
    app.bootstraps.push(...found.bootstraps.sort((a, b) => a.line - b.line));
    app.tools.push(...found.tools.sort((a, b) => a.line - b.line));
  }
  return { root, apps: [...apps.values()].sort((a, b) => (a.dir < b.dir ? -1 : a.dir > b.dir ? 1 : 0)), filesRead, skipped, truncated };
}
