/**
 * Declarative closed shadow roots (docs/snapshot.md rule 9).
 *
 * The runtime records every closed root created through `attachShadow`
 * (src/page/shadow.ts), but a `<template shadowrootmode="closed">` is
 * attached by the parser, before any script, and page JavaScript can never
 * reach it. CDP can: `DOM.describeNode` lists a host's shadow roots, closed
 * ones included, and `DOM.resolveNode` turns one into a JS object in the
 * page's main world, which we hand to the runtime's `adoptClosedRoot`.
 *
 * This costs CDP round trips, so it runs only when a walk listed candidates:
 * custom elements (tag with a hyphen) with no shadow root the runtime knows,
 * a box, and light DOM that does not account for it, each listed once per
 * document and at most 50 per snapshot (src/page/shadow.ts).
 */
import type { CDPSession, Frame } from 'playwright-core';
import { logger } from '../log.js';

const log = logger('shadow');

/** Collects the listed candidates of a document and of its same-origin frames, from that document's main world. */
const COLLECT = `(() => {
  const out = [];
  const visit = w => {
    let rt;
    try { rt = w.__tabwright; } catch { return; }
    if (rt && rt.takeCandidates) out.push(...rt.takeCandidates());
    for (let i = 0; i < w.frames.length; i++) visit(w.frames[i]);
  };
  visit(window);
  return out;
})()`;

const ADOPT = 'function () { const rt = globalThis.__tabwright; return !!(rt && rt.adoptClosedRoot && rt.adoptClosedRoot(this)); }';

/** A CDP session whose default context is `frame`'s main world: the page's for the main frame, the frame's own for an out-of-process one. */
async function sessionFor(frame: Frame): Promise<CDPSession | undefined> {
  const page = frame.page();
  try {
    return await page.context().newCDPSession(frame === page.mainFrame() ? page : frame);
  } catch {
    return undefined; // an in-process cross-origin frame: no session of its own (documented limit)
  }
}

/**
 * Finds closed shadow roots of the candidates `frame`'s walk listed and
 * hands them to the runtime. Returns how many were adopted (0 when CDP is
 * not available for this frame); never throws.
 */
export async function adoptClosedRoots(frame: Frame): Promise<number> {
  const cdp = await sessionFor(frame);
  if (!cdp) return 0;
  const group = 'tabwright-closed-shadow';
  let adopted = 0;
  try {
    const { result } = await cdp.send('Runtime.evaluate', { expression: COLLECT, objectGroup: group });
    if (!result.objectId) return 0;
    const { result: props } = await cdp.send('Runtime.getProperties', { objectId: result.objectId, ownProperties: true });
    const hosts = props.filter(p => /^\d+$/.test(p.name) && p.value?.objectId).map(p => p.value!.objectId!);
    await Promise.all(hosts.map(async objectId => {
      const { node } = await cdp.send('DOM.describeNode', { objectId });
      const root = node.shadowRoots?.find(r => r.shadowRootType === 'closed');
      if (!root) return;
      const { object } = await cdp.send('DOM.resolveNode', { backendNodeId: root.backendNodeId, objectGroup: group });
      if (!object.objectId) return;
      const { result: ok } = await cdp.send('Runtime.callFunctionOn', { objectId: object.objectId, functionDeclaration: ADOPT, returnByValue: true });
      if (ok.value === true) adopted++;
    }));
  } catch (error) {
    log.debug('closed shadow probe failed', error);
  } finally {
    await cdp.send('Runtime.releaseObjectGroup', { objectGroup: group }).catch(() => undefined);
    await cdp.detach().catch(() => undefined);
  }
  return adopted;
}
