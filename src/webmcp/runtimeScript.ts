/**
 * The init script that injects the in-page runtime with the `--webmcp` mode
 *: the bundle, wrapped in a scope that defines
 * `__TABWRIGHT_WEBMCP__` (read by src/page/runtime.ts). The constant lives in
 * the wrapper's scope, not on the page's global object.
 */
import { readFileSync } from 'node:fs';
import type { WebMcpMode } from '../config.js';

/** The init script source for `mode`, from the bundle at `runtimePath`. */
export function runtimeInitScript(runtimePath: string, mode: WebMcpMode): string {
  return `(() => {\nconst __TABWRIGHT_WEBMCP__ = ${JSON.stringify(mode)};\n${readFileSync(runtimePath, 'utf8')}\n})();\n//# sourceURL=tabwright-runtime.js`;
}
