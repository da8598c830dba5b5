/**
 * What the hostile-page targets of the reliability suite share (docs/reliability.md, "Hostile pages"): a tally of
 * attacks made, refused and got through, recorded as a `hostile` result, and the size of what a tool call hands the
 * model. Each test file names its target as a literal (`target: 'hostile-…'`), which test/reliability/doc.test.ts reads.
 */
import assert from 'node:assert/strict';
import { TEST_CONNECTION } from '../fixtures/mcp.js';
import { record } from './fuzz.js';

/** The hostile pages run on the launch connection only (the default lane): their servers launch their own browsers. */
export const LAUNCH_ONLY = TEST_CONNECTION === 'launch' ? {} : { skip: `${TEST_CONNECTION} connection: the hostile pages run on the launch connection only` };

/** Counts attacks for one target: each is refused (or bounded) with an outcome, or got through. */
export class Attacks {
  private readonly started = Date.now();
  private readonly outcomes = new Map<string, number>();
  readonly through: string[] = [];
  made = 0;

  constructor(private readonly target: { target: string; what: string }) {}

  /**
   * Counts one attack.
   * @param name  what was tried (`fetch POST daemon /v1/shutdown`)
   * @param refused  true when it was refused or stayed within its bound
   * @param outcome  what happened (`403 forbidden_host`, `close 4003`, `network error`): tallied in the notes when short
   */
  check(name: string, refused: boolean, outcome: string): void {
    this.made++;
    // A long outcome is a check's evidence (a status, a listing): tallied as `held`, shown only when it fails.
    const label = outcome.length <= 40 ? outcome : 'held';
    if (refused) this.outcomes.set(label, (this.outcomes.get(label) ?? 0) + 1);
    else this.through.push(`${name}: ${outcome}`);
  }

  /** Records the target's numbers (`extra` adds measurements) and fails the test naming each attack that got through. */
  finish(extra: Record<string, number | string> = {}): void {
    const refused = this.made - this.through.length;
    const answers = [...this.outcomes].sort((a, b) => b[1] - a[1]).map(([o, n]) => `${o} ×${n}`).join('; ');
    record({
      ...this.target,
      kind: 'hostile',
      inputs: this.made,
      failures: this.through.length,
      ms: Date.now() - this.started,
      ...(this.through.length ? { counterexample: this.through.join('\n').slice(0, 2000) } : {}),
      notes: { refused, ...extra, answers },
      at: new Date().toISOString(),
    });
    assert.ok(this.made > 0, 'no attack was made');
    assert.deepEqual(this.through, [], `${this.through.length} of ${this.made} attacks got through:\n${this.through.join('\n')}`);
  }
}

/** Characters of everything a call result hands the model (its text and image parts; structuredContent repeats the text). */
export function resultChars(result: { content: Array<{ text?: string; data?: string }> }): number {
  return result.content.reduce((n, c) => n + (c.text?.length ?? 0) + (c.data?.length ?? 0), 0);
}

/** VmRSS of `pid` in MB (/proc/<pid>/status). */
export { rssMb } from './fuzz.js';
