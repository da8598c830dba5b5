/** The checks every loopback listener of tabwright makes of a request: its Host, and a secret it presents. */
import { timingSafeEqual } from 'node:crypto';

/**
 * Whether a Host header names this listener's loopback address: `127.0.0.1:<port>` or `localhost:<port>` (any
 * other name is DNS rebinding). `host`: the header as sent, any case.
 */
export function isLoopbackHost(host: string, port: number): boolean {
  const h = host.toLowerCase();
  return h === `127.0.0.1:${port}` || h === `localhost:${port}`;
}

/** Whether `given` equals `secret`, in time that does not depend on where they differ; false for undefined. */
export function sameSecret(given: string | undefined, secret: string): boolean {
  if (given === undefined) return false;
  const a = Buffer.from(given);
  const b = Buffer.from(secret);
  return a.length === b.length && timingSafeEqual(a, b);
}
