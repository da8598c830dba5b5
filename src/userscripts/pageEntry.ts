/**
 * Entry of the userscript engine bundle (dist/page/userscripts.js, built by
 * scripts/build.mjs): the engine (./gmPage.ts) with the URL matcher
 * (./match.ts) bundled in. `__TW_US__` is defined by the init script's
 * wrapper (./injectionScript.ts), not on the page's global object.
 */
import { startUserscripts, type PageConfig } from './gmPage.js';
import { scriptMatchesUrl } from './match.js';

declare const __TW_US__: PageConfig;
startUserscripts(__TW_US__, scriptMatchesUrl);
