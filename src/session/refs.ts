/**
 * Element refs (DESIGN.md, "snapshot"): each actionable node in a snapshot
 * carries a ref valid for that document revision. Refs are unique in the
 * process (`e1`, `e2`, ... never reused), so a ref names its tab and document
 * by itself and a ref from an older revision is recognised as stale instead of
 * matching an element of the new document.
 *
 * Within one document an element keeps its ref across snapshots (the
 * in-page runtime keeps one id per element, and we map ids one to one).
 */

export interface RefTarget {
  tabId: number;
  /** Document the ref was issued for. */
  instanceId: string;
  /** Where the element is in that document: the in-page runtime id (`<document nonce>_<n>`, src/page/snapshot.ts). */
  ariaRef: string;
}

export type RefLookup =
  | { status: 'live'; target: RefTarget }
  | { status: 'stale' }
  | { status: 'unknown' };

export class RefRegistry {
  private counter = 0;
  private readonly byRef = new Map<string, RefTarget>();
  private readonly byDocument = new Map<string, Map<string, string>>();

  /** Returns the ref for `ariaRef` (an element's key) in a document, issuing one if new. */
  assign(tabId: number, instanceId: string, ariaRef: string): string {
    let doc = this.byDocument.get(instanceId);
    if (!doc) this.byDocument.set(instanceId, (doc = new Map()));
    let ref = doc.get(ariaRef);
    if (!ref) {
      ref = `e${++this.counter}`;
      doc.set(ariaRef, ref);
      this.byRef.set(ref, { tabId, instanceId, ariaRef });
    }
    return ref;
  }

  /** Looks a ref up: `live`, `stale` (issued earlier for a document now gone), or `unknown`. */
  lookup(ref: string): RefLookup {
    const target = this.byRef.get(ref);
    if (target) return { status: 'live', target };
    const m = /^e(\d+)$/.exec(ref);
    if (m && Number(m[1]) >= 1 && Number(m[1]) <= this.counter) return { status: 'stale' };
    return { status: 'unknown' };
  }

  /** Forgets the refs of a document that was replaced or whose tab closed. */
  dropDocument(instanceId: string): void {
    const doc = this.byDocument.get(instanceId);
    if (!doc) return;
    for (const ref of doc.values()) this.byRef.delete(ref);
    this.byDocument.delete(instanceId);
  }

  /** Number of live refs (all documents). */
  get size(): number {
    return this.byRef.size;
  }
}
