/**
 * An in-memory ScriptSource for the engine's unit tests only (the e2e tests
 * use the real store through export_script). Scripts are parsed with the
 * real metadata parser.
 */
import { createHash } from 'node:crypto';
import { parseMetadata } from '../../src/userscripts/metadata.js';
import type { ScriptAuthor, ScriptSource, StoredResource, StoredScript } from '../../src/userscripts/types.js';

export class MemorySource implements ScriptSource {
  readonly scripts = new Map<string, StoredScript>();
  readonly values = new Map<string, Map<string, unknown>>();
  /** Resources by script id, as a save would have resolved them. */
  readonly resourceData = new Map<string, StoredResource[]>();
  private readonly listeners = new Set<() => void>();
  private seq = 0;

  /** Adds (enabled) a script from its source; returns its id. */
  add(code: string, opts: { author?: ScriptAuthor; enabled?: boolean } = {}): string {
    const { metadata } = parseMetadata(code);
    if (!metadata) throw new Error("no header");
    const id = `s${++this.seq}`;
    const now = Date.now();
    this.scripts.set(id, {
      id, kind: metadata.kind, name: metadata.name, namespace: metadata.namespace, code,
      codeHash: createHash('sha256').update(code).digest('hex'), enabled: opts.enabled ?? true, author: opts.author ?? 'agent',
      metadata, createdAt: now, updatedAt: now,
    });
    this.changed();
    return id;
  }

  toggle(id: string, enabled: boolean): void {
    this.scripts.get(id)!.enabled = enabled;
    this.changed();
  }

  enabledScripts(): StoredScript[] {
    return [...this.scripts.values()].filter(s => s.enabled);
  }

  get(id: string): StoredScript | undefined {
    return this.scripts.get(id);
  }

  getValue(scriptId: string, key: string): unknown {
    return this.values.get(scriptId)?.get(key);
  }

  setValue(scriptId: string, key: string, value: unknown): void {
    let map = this.values.get(scriptId);
    if (!map) this.values.set(scriptId, (map = new Map()));
    map.set(key, value);
  }

  deleteValue(scriptId: string, key: string): void {
    this.values.get(scriptId)?.delete(key);
  }

  resources(scriptId: string): StoredResource[] {
    return this.resourceData.get(scriptId) ?? [];
  }

  listValues(scriptId: string): string[] {
    return [...(this.values.get(scriptId)?.keys() ?? [])];
  }

  onChange(listener: () => void): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  private changed(): void {
    for (const l of [...this.listeners]) l();
  }
}
