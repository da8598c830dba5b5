/**
 * The page side of saving and loading web storage (docs/storage.md, "What a load changes"): two async functions
 * as source text, run with page.evaluate in a document of the origin. `COLLECT` returns the origin's localStorage
 * and IndexedDB in Playwright's storage-state shape (values that are not plain JSON encoded as Playwright's
 * `serializeAsCallArgument` does, so Playwright's own `storageState` option reads them back); `RESTORE` merges one
 * such origin state in: items are set (others stay), records are put into their stores (a missing store or index is
 * made by a version upgrade; other databases and records stay).
 */

/** `async () => ({ localStorage, indexedDB })`. */
export const COLLECT = `async () => {
  const req = r => new Promise((resolve, reject) => { r.onsuccess = () => resolve(r.result); r.onerror = () => reject(r.error); });
  const plain = v => {
    if (v === null || typeof v === 'string' || typeof v === 'boolean') return true;
    if (typeof v === 'number') return Number.isFinite(v) && !Object.is(v, -0);
    if (Array.isArray(v)) return v.every(plain);
    if (typeof v === 'object' && Object.getPrototypeOf(v) === Object.prototype) return Object.values(v).every(plain);
    return false;
  };
  const kinds = { i8: Int8Array, ui8: Uint8Array, ui8c: Uint8ClampedArray, i16: Int16Array, ui16: Uint16Array, i32: Int32Array, ui32: Uint32Array, f32: Float32Array, f64: Float64Array, bi64: BigInt64Array, bui64: BigUint64Array };
  const b64 = bytes => { let s = ''; for (const b of bytes) s += String.fromCharCode(b); return btoa(s); };
  const encode = (v, seen = new Map(), ids = { n: 0 }) => {
    if (v === undefined) return { v: 'undefined' };
    if (v === null) return { v: 'null' };
    if (typeof v === 'number') {
      if (Number.isNaN(v)) return { v: 'NaN' };
      if (v === Infinity) return { v: 'Infinity' };
      if (v === -Infinity) return { v: '-Infinity' };
      if (Object.is(v, -0)) return { v: '-0' };
      return v;
    }
    if (typeof v === 'string' || typeof v === 'boolean') return v;
    if (typeof v === 'bigint') return { bi: v.toString() };
    if (typeof v !== 'object') return { v: 'undefined' };
    if (v instanceof Date) return { d: v.toJSON() };
    if (v instanceof RegExp) return { r: { p: v.source, f: v.flags } };
    for (const [k, C] of Object.entries(kinds)) if (v instanceof C) return { ta: { b: b64(new Uint8Array(v.buffer, v.byteOffset, v.byteLength)), k } };
    if (v instanceof ArrayBuffer) return { ab: { b: b64(new Uint8Array(v)) } };
    if (seen.has(v)) return { ref: seen.get(v) };
    const id = ++ids.n;
    seen.set(v, id);
    if (v instanceof Map) return { m: [...v].map(([k, x]) => ({ k: encode(k, seen, ids), v: encode(x, seen, ids) })), id };
    if (v instanceof Set) return { s: [...v].map(x => encode(x, seen, ids)), id };
    if (Array.isArray(v)) return { a: v.map(x => encode(x, seen, ids)), id };
    return { o: Object.keys(v).map(k => ({ k, v: encode(v[k], seen, ids) })), id };
  };
  const field = (name, v) => plain(v) ? { [name]: v } : { [name + 'Encoded']: encode(v) };
  const localStorage = Object.keys(window.localStorage).map(name => ({ name, value: window.localStorage.getItem(name) }));
  const indexedDB = [];
  for (const info of await window.indexedDB.databases()) {
    if (!info.name) continue;
    const db = await req(window.indexedDB.open(info.name));
    try {
      const names = [...db.objectStoreNames];
      const tx = names.length ? db.transaction(names, 'readonly') : undefined;
      const stores = await Promise.all(names.map(async name => {
        const store = tx.objectStore(name);
        const [keys, values] = await Promise.all([req(store.getAllKeys()), req(store.getAll())]);
        return {
          name,
          keyPath: typeof store.keyPath === 'string' ? store.keyPath : undefined,
          keyPathArray: Array.isArray(store.keyPath) ? store.keyPath : undefined,
          autoIncrement: store.autoIncrement,
          indexes: [...store.indexNames].map(n => { const i = store.index(n); return { name: i.name, keyPath: typeof i.keyPath === 'string' ? i.keyPath : undefined, keyPathArray: Array.isArray(i.keyPath) ? i.keyPath : undefined, unique: i.unique, multiEntry: i.multiEntry }; }),
          records: keys.map((key, i) => ({ ...(store.keyPath === null ? field('key', key) : {}), ...field('value', values[i]) })),
        };
      }));
      indexedDB.push({ name: info.name, version: db.version, stores });
    } finally {
      db.close();
    }
  }
  return { localStorage, indexedDB };
}`;

/** `async (originState) => ({ items, records })`: how many localStorage items and IndexedDB records it wrote. */
export const RESTORE = `async (state) => {
  const req = r => new Promise((resolve, reject) => { r.onsuccess = () => resolve(r.result); r.onerror = () => reject(r.error); });
  const kinds = { i8: Int8Array, ui8: Uint8Array, ui8c: Uint8ClampedArray, i16: Int16Array, ui16: Uint16Array, i32: Int32Array, ui32: Uint32Array, f32: Float32Array, f64: Float64Array, bi64: BigInt64Array, bui64: BigUint64Array };
  const bytes = b => Uint8Array.from(atob(b), c => c.charCodeAt(0));
  const decode = (v, refs = new Map()) => {
    if (v === null || typeof v !== 'object') return v;
    if ('ref' in v) return refs.get(v.ref);
    if ('v' in v) return { undefined: undefined, null: null, NaN: NaN, Infinity: Infinity, '-Infinity': -Infinity, '-0': -0 }[v.v];
    if ('d' in v) return new Date(v.d);
    if ('u' in v) return new URL(v.u);
    if ('bi' in v) return BigInt(v.bi);
    if ('r' in v) return new RegExp(v.r.p, v.r.f);
    if ('ta' in v) return new kinds[v.ta.k](bytes(v.ta.b).buffer);
    if ('ab' in v) return bytes(v.ab.b).buffer;
    if ('e' in v) { const e = new Error(v.e.m); e.name = v.e.n; return e; }
    if ('a' in v) { const out = []; refs.set(v.id, out); for (const x of v.a) out.push(decode(x, refs)); return out; }
    if ('m' in v) { const out = new Map(); refs.set(v.id, out); for (const { k, v: x } of v.m) out.set(decode(k, refs), decode(x, refs)); return out; }
    if ('s' in v) { const out = new Set(); refs.set(v.id, out); for (const x of v.s) out.add(decode(x, refs)); return out; }
    if ('o' in v) { const out = {}; refs.set(v.id, out); for (const { k, v: x } of v.o) if (k !== '__proto__') out[k] = decode(x, refs); return out; }
    return undefined;
  };
  for (const { name, value } of state.localStorage || []) window.localStorage.setItem(name, value);
  let records = 0;
  for (const saved of state.indexedDB || []) {
    const known = (await window.indexedDB.databases()).find(d => d.name === saved.name);
    let version = saved.version;
    if (known) {
      const db = await req(window.indexedDB.open(saved.name));
      const lacks = saved.stores.some(s => !db.objectStoreNames.contains(s.name) || s.indexes.some(i => !db.transaction(s.name).objectStore(s.name).indexNames.contains(i.name)));
      version = lacks ? Math.max(db.version + 1, saved.version) : db.version;
      db.close();
    }
    const open = window.indexedDB.open(saved.name, version);
    open.onupgradeneeded = () => {
      const db = open.result;
      for (const s of saved.stores) {
        const store = db.objectStoreNames.contains(s.name) ? open.transaction.objectStore(s.name) : db.createObjectStore(s.name, { autoIncrement: s.autoIncrement, keyPath: s.keyPathArray ?? s.keyPath });
        for (const i of s.indexes) if (!store.indexNames.contains(i.name)) store.createIndex(i.name, i.keyPathArray ?? i.keyPath, { unique: i.unique, multiEntry: i.multiEntry });
      }
    };
    const blocked = new Promise((_, reject) => { open.onblocked = () => setTimeout(() => reject(new Error('IndexedDB database "' + saved.name + '" is open in another tab of ' + location.origin + ', which keeps its missing stores from being made: close that tab and load again')), 5000); });
    const db = await Promise.race([req(open), blocked]);
    try {
      if (saved.stores.length) {
        const tx = db.transaction(saved.stores.map(s => s.name), 'readwrite');
        const done = new Promise((resolve, reject) => { tx.oncomplete = resolve; tx.onerror = () => reject(tx.error); tx.onabort = () => reject(tx.error); });
        for (const s of saved.stores) {
          const store = tx.objectStore(s.name);
          for (const r of s.records) {
            const value = 'value' in r ? r.value : decode(r.valueEncoded);
            if (store.keyPath === null) store.put(value, 'key' in r ? r.key : decode(r.keyEncoded));
            else store.put(value);
            records++;
          }
        }
        await done;
      }
    } finally {
      db.close();
    }
  }
  return { items: (state.localStorage || []).length, records };
}`;
