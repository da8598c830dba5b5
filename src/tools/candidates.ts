/**
 * Candidates on targeting errors (docs/errors.md, "Candidates"): a `stale_ref`
 * error (the element of a ref left the page, or its document was replaced)
 * names at most CANDIDATES_MAX elements of the tab's current document with
 * the role and name the ref was shown with (the same button re-rendered,
 * say), else with its role, each as `role "name" [ref]` in the message and in
 * `details.candidates`. Only role, name and ref: never a field's value, typed
 * text or evaluated source.
 */
import { ToolError } from '../errors.js';
import { findElements, type Found } from '../session/find.js';
import type { Session } from '../session/session.js';
import { raceTimeout } from '../util/wait.js';

/** Candidates an error names at most. */
export const CANDIDATES_MAX = 8;
/** How long the candidates' search may take before the error goes out without them, in ms. */
const CANDIDATES_WAIT_MS = 3000;

/** One candidate: what a model needs to pick it. */
export interface Candidate {
  role: string;
  name?: string;
  ref: string;
}

/** `- role "name" [ref=e4]`, as a snapshot line. */
export function candidateLine(c: Candidate): string {
  return `- ${c.role}${c.name ? ` ${JSON.stringify(c.name)}` : ''} [ref=${c.ref}]`;
}

/** The ref a failed call targeted: the error's `details.ref`, else the call's `ref` argument. */
function targetRef(error: ToolError, args: unknown): string | undefined {
  const fromError = error.details?.ref;
  if (typeof fromError === 'string') return fromError;
  const fromArgs = (args as { ref?: unknown } | null | undefined)?.ref;
  return typeof fromArgs === 'string' ? fromArgs : undefined;
}

/**
 * `error` with candidates added when it is a `stale_ref` for a ref tabwright
 * described and its tab is still open; `error` as it is otherwise (also when
 * the search fails or takes longer than CANDIDATES_WAIT_MS).
 */
export async function withCandidates(error: ToolError, args: unknown, session: Session): Promise<ToolError> {
  if (error.type !== 'stale_ref' || error.details?.candidates) return error;
  const ref = targetRef(error, args);
  const described = ref ? session.refs.description(ref) : undefined;
  const tab = described && session.openTabs().find(t => t.id === described.tabId);
  if (!described || !tab) return error;
  const search = async (): Promise<Found[]> => {
    const same = await findElements(session, tab, { role: described.role, name: described.name, exact: true, limit: CANDIDATES_MAX });
    if (same.matches.length || !described.name) return same.matches.length ? same.matches : same.near;
    // None with that name: those with the role (find's near matches of a role and name query).
    return same.near;
  };
  const found = await raceTimeout(search().catch(() => []), { ms: CANDIDATES_WAIT_MS, onTimeout: 'undefined' });
  const candidates: Candidate[] = (found ?? []).filter(f => f.ref !== ref).slice(0, CANDIDATES_MAX)
    .map(f => (f.name ? { role: f.role, name: f.name, ref: f.ref } : { role: f.role, ref: f.ref }));
  if (!candidates.length) return error;
  const what = `${described.role}${described.name ? ` ${JSON.stringify(described.name)}` : ''}`;
  const same = candidates.some(c => c.role === described.role && c.name === described.name);
  const message = `${error.message}\nIt was ${what}; ${same ? 'the same role and name' : 'the same role'} on the page now (refs usable as they are):\n${candidates.map(candidateLine).join('\n')}`;
  return new ToolError(error.type, message, error.hint, { ...error.details, ref, was: { role: described.role, ...(described.name ? { name: described.name } : {}) }, candidates });
}
