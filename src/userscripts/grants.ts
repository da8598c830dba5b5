/**
 * The GM API tabwright provides to scripts (docs/userscripts.md, "GM API"): exactly the
 * grants validate.ts accepts and the injection (src/userscripts/injection.ts)
 * implements. `@grant none` (or no @grant) runs the script in the page's
 * world with none of these; any other grant gives the script the granted
 * functions and `unsafeWindow` (the page's window) as parameters of its wrapper.
 */

/** The `GM_*` callback/sync forms, `unsafeWindow`, and the `GM.*` promise forms, in that order. */
export const PROVIDED_GRANTS: readonly string[] = [
  'GM_info', 'GM_getValue', 'GM_setValue', 'GM_deleteValue', 'GM_listValues', 'GM_addStyle', 'GM_addElement', 'GM_log',
  'GM_registerMenuCommand', 'GM_setClipboard', 'GM_xmlhttpRequest', 'GM_openInTab', 'GM_download', 'GM_notification',
  'GM_addValueChangeListener', 'GM_removeValueChangeListener', 'GM_getResourceText', 'GM_getResourceURL', 'unsafeWindow',
  'GM.info', 'GM.getValue', 'GM.setValue', 'GM.deleteValue', 'GM.listValues', 'GM.addStyle', 'GM.addElement', 'GM.log',
  'GM.registerMenuCommand', 'GM.setClipboard', 'GM.xmlHttpRequest', 'GM.openInTab', 'GM.download', 'GM.notification',
  'GM.addValueChangeListener', 'GM.removeValueChangeListener', 'GM.getResourceText', 'GM.getResourceUrl',
];

const PROVIDED = new Set(PROVIDED_GRANTS);

/** Whether `grant` is one tabwright provides (`none` is not a grant: it selects the page's world). */
export function isProvidedGrant(grant: string): boolean {
  return PROVIDED.has(grant);
}
