/**
 * Waiting with a bound: a promise raced against a timer and/or an
 * AbortSignal (`raceTimeout`), and a condition polled until it holds or
 * time runs out (`pollUntil`). Every duration is in milliseconds. No
 * imports: any layer may use it.
 */

/** The longest delay setTimeout honours (2^31 - 1 ms); a longer one would fire at once. */
const MAX_TIMER_MS = 2 ** 31 - 1;

/** Where `raceTimeout` stops waiting, besides its timer. */
interface RaceStops {
  /** Stops the wait when it aborts (at once when it already has). */
  signal?: AbortSignal;
  /** The error to reject with when `signal` aborts; default `signal.reason`. */
  onAbort?: () => unknown;
}

/** A timer that resolves `undefined` after `ms`. */
export interface RaceOrUndefined extends RaceStops {
  /** Longest wait, in ms (clamped at 0; not finite: no timer). */
  ms: number;
  onTimeout: 'undefined';
}

/** A timer that rejects with the error `onTimeout` returns after `ms` (omitted or not finite: no timer). */
export interface RaceOrReject extends RaceStops {
  /** Longest wait, in ms (clamped at 0). */
  ms?: number;
  onTimeout: () => unknown;
}

/** No timer: only `signal` stops the wait. */
export interface RaceOnSignal extends RaceStops {
  signal: AbortSignal;
  ms?: undefined;
  onTimeout?: undefined;
}

/**
 * Settles like `promise`, unless `ms` pass first or `signal` aborts first.
 * The outcome of a timeout is explicit at every call: `onTimeout:
 * 'undefined'` resolves `undefined`; `onTimeout: () => error` rejects with
 * that error. An abort rejects with `onAbort()` (default `signal.reason`).
 * The timer and the abort listener are removed once the race settles;
 * `promise` runs on (nothing stops it), and its late rejection is handled.
 * @throws what `promise` rejects with; `onTimeout()` after `ms`; `onAbort()` or `signal.reason` on abort.
 */
export function raceTimeout<T>(promise: Promise<T>, opts: RaceOrUndefined): Promise<T | undefined>;
export function raceTimeout<T>(promise: Promise<T>, opts: RaceOrReject | RaceOnSignal): Promise<T>;
export function raceTimeout<T>(promise: Promise<T>, opts: RaceOrUndefined | RaceOrReject | RaceOnSignal): Promise<T | undefined> {
  const { ms, signal, onAbort, onTimeout } = opts;
  return new Promise<T | undefined>((resolve, reject) => {
    let timer: NodeJS.Timeout | undefined;
    const stop = () => {
      clearTimeout(timer);
      signal?.removeEventListener('abort', aborted);
    };
    const aborted = () => {
      stop();
      reject(onAbort ? onAbort() : signal!.reason);
    };
    promise.then(value => {
      stop();
      resolve(value);
    }, error => {
      stop();
      reject(error);
    });
    if (signal?.aborted) return aborted();
    signal?.addEventListener('abort', aborted, { once: true });
    if (ms !== undefined && Number.isFinite(ms) && onTimeout) {
      timer = setTimeout(() => {
        stop();
        if (onTimeout === 'undefined') resolve(undefined);
        else reject(onTimeout());
      }, Math.min(Math.max(0, ms), MAX_TIMER_MS));
    }
  });
}

/**
 * Resolves after `ms` milliseconds.
 * @throws `signal.reason` when `signal` aborts first.
 */
export function sleep(ms: number, signal?: AbortSignal): Promise<void> {
  return raceTimeout(new Promise<void>(() => undefined), { ms, signal, onTimeout: 'undefined' }).then(() => undefined);
}

/** How `pollUntil` polls. */
export interface PollOptions {
  /** How long to keep polling, in ms: the probe runs at once, and again after each interval until this has passed. */
  ms: number;
  /** Pause between two probes, in ms. */
  intervalMs: number;
  /** Stops polling when it aborts. */
  signal?: AbortSignal;
}

/**
 * Runs `probe` at once and then every `intervalMs` until it returns a
 * truthy value, which it resolves to; resolves `undefined` when a probe
 * started after `ms` had passed still returned a falsy value (so the last
 * probe always starts at or after the deadline). A probe may be async; one
 * probe finishes before the next pause starts.
 * @throws what `probe` throws (polling stops); `signal.reason` on abort.
 */
export async function pollUntil<T>(probe: () => T | Promise<T>, { ms, intervalMs, signal }: PollOptions): Promise<T | undefined> {
  const deadline = Date.now() + ms;
  for (;;) {
    if (signal?.aborted) throw signal.reason;
    const last = Date.now() >= deadline;
    const value = await probe();
    if (value) return value;
    if (last) return undefined;
    await sleep(intervalMs, signal);
  }
}
