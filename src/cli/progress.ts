/**
 * What a long call shows on stderr: progress lines and a consent
 * wait with a countdown, redrawn in place, only when stderr is a terminal.
 * When stdin is a terminal too, the consent question is asked there and the
 * answer sent to the daemon.
 */
import { createInterface } from 'node:readline';

const tty = () => Boolean(process.stderr.isTTY);

let line = false;

/** Redraws the status line (TTY only). */
function status(text: string): void {
  if (!tty()) return;
  process.stderr.write(`\r\x1b[2K${text}`);
  line = true;
}

/** Ends the status line so later output starts on a fresh line. */
export function clearStatus(): void {
  if (line) process.stderr.write('\r\x1b[2K');
  line = false;
}

let waitNoted = false;

/**
 * Shows a progress event: `[done/total] message`, redrawn in place on a terminal. Without one (an agent reading
 * stderr), the first consent wait is written once as a line ("tabwright: Waiting for the user to allow buy (300 s
 * left); answer in the tabwright dashboard: http://…"), so whoever reads it knows why the call waits and where the
 * user answers; other progress is not written there.
 */
export function showProgress(p: { done: number; total?: number; message?: string }): void {
  if (!tty()) {
    if (!waitNoted && p.message?.startsWith('Waiting for the user to allow ')) {
      waitNoted = true;
      process.stderr.write(`tabwright: ${p.message}\n`);
    }
    return;
  }
  status(`tabwright: ${p.total ? `[${p.done}/${p.total}]` : `[${p.done}]`}${p.message ? ` ${p.message}` : ''}`);
}

/** True when a human can answer a consent question here: stdin and stderr are terminals. */
export function canAskHere(): boolean {
  return tty() && Boolean(process.stdin.isTTY);
}

/** The answers the daemon takes (docs/daemon.md, "Consent"; `code` and `everywhere` when the question offers them). */
export type ConsentAnswer = 'once' | 'code' | 'always' | 'everywhere' | 'deny' | 'never';

const KEYS: Record<string, ConsentAnswer> = {
  o: 'once', y: 'once', once: 'once', c: 'code', code: 'code', a: 'always', always: 'always', e: 'everywhere', everywhere: 'everywhere',
  d: 'deny', n: 'deny', deny: 'deny', never: 'never', v: 'never',
};

/**
 * Shows a consent question: always one line on stderr (so an agent reading
 * stderr knows why the call waits), a countdown to `expiresAt` on a TTY,
 * and, when stdin and stderr are terminals, asks and resolves with the
 * human's answer. Resolves undefined when nobody can answer here (the
 * call then ends as the daemon decides: consent_expired at the deadline).
 * `stop()` ends the countdown and the question.
 */
export function askConsent(question: { text?: string; expiresAt?: string | number; offers?: unknown }): { answer: Promise<ConsentAnswer | undefined>; stop(): void } {
  // A code question (execute, add_element) offers two more grants: this exact code, and every site.
  const code = Array.isArray(question.offers) && question.offers.includes('code');
  const expires = question.expiresAt ? new Date(question.expiresAt).getTime() : NaN;
  const left = () => Number.isFinite(expires) ? `${Math.max(0, Math.ceil((expires - Date.now()) / 1000))} s left` : 'waiting';
  clearStatus();
  process.stderr.write(`tabwright: consent needed: ${question.text ?? '(no text)'}\n`);
  const interactive = canAskHere();
  if (!interactive) {
    const timer = setInterval(() => status(`tabwright: waiting for consent (${left()})`), 1000);
    status(`tabwright: waiting for consent (${left()})`);
    return { answer: Promise.resolve(undefined), stop: () => { clearInterval(timer); clearStatus(); } };
  }
  const rl = createInterface({ input: process.stdin, output: process.stderr });
  const prompt = () => code
    ? `Allow? [o]nce, this [c]ode always, [a]ny code here always, [e]verywhere, [d]eny, ne[v]er (${left()}): `
    : `Allow? [o]nce, [a]lways, [d]eny, ne[v]er (${left()}): `;
  const timer = setInterval(() => {
    // Redraw the prompt with the new countdown, keeping what was typed.
    rl.setPrompt(prompt());
    rl.prompt(true);
  }, 1000);
  const stop = () => {
    clearInterval(timer);
    rl.close();
  };
  const answer = new Promise<ConsentAnswer | undefined>(resolve => {
    rl.on('line', text => {
      const key = KEYS[text.trim().toLowerCase()];
      if (key && (code || (key !== 'code' && key !== 'everywhere'))) {
        resolve(key); // before stop(): closing the interface resolves with undefined
        stop();
      } else {
        rl.prompt();
      }
    });
    rl.on('close', () => resolve(undefined));
  });
  rl.setPrompt(prompt());
  rl.prompt();
  return { answer, stop };
}
