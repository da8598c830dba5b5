/**
 * Natives the runtime calls, taken when its bundle loads: at document start, before any page script (./runtime.ts
 * is an init script), so a page that replaces `JSON.stringify` or `JSON.parse` later cannot change what the runtime
 * writes into a snapshot or an `execute` result (docs/reliability.md, "Hostile pages"). A document the runtime
 * reaches after its scripts ran (a browser attached over CDP) has the page's versions, whatever they are.
 */
const json = JSON;

/** `JSON.stringify` as it was when the runtime loaded. */
export const stringify: typeof JSON.stringify = json.stringify.bind(json);

/** `JSON.parse` as it was when the runtime loaded. */
export const parse: typeof JSON.parse = json.parse.bind(json);

/** `Promise` as it was when the runtime loaded (a page may put a never-settling look-alike in its place). */
export const NativePromise: PromiseConstructor = Promise;

const nativeThen = Promise.prototype.then;
const apply = Reflect.apply;

/** `promise.then(onFulfilled, onRejected)` through the `then` the runtime loaded with, whatever the page put there since. */
export function thenOf<T>(promise: Promise<T>, onFulfilled: (value: T) => void, onRejected: (reason: unknown) => void): void {
  apply(nativeThen, promise, [onFulfilled, onRejected]);
}
