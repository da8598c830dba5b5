/**
 * Role sets shared by the in-page runtime (./describe.ts) and the server's
 * reading of snapshot text (src/session/snapshotLines.ts), so the two ways
 * of naming an element's container agree. No imports, no DOM.
 */

/**
 * Roles that place an element for a reader ("in row …", "in dialog …"):
 * landmarks and groupings (WAI-ARIA 1.2, §5.3.2 and §5.3.4), rows, list
 * and tree items, and frames.
 */
export const CONTAINER_ROLES: ReadonlySet<string> = new Set([
  'row', 'listitem', 'treeitem', 'dialog', 'alertdialog', 'form', 'group', 'region', 'search', 'navigation', 'banner', 'contentinfo',
  'complementary', 'main', 'tabpanel', 'menu', 'menubar', 'toolbar', 'radiogroup', 'listbox', 'table', 'grid', 'treegrid', 'tree', 'list',
  'tablist', 'iframe',
]);

/** Containers that say where an element is by their role alone when they have no name. */
export const PLACED_BY_ROLE: ReadonlySet<string> = new Set(['dialog', 'alertdialog', 'navigation', 'banner', 'contentinfo', 'complementary', 'search', 'menu', 'menubar', 'toolbar', 'tabpanel']);

/** Longest container label (a row's cells, a list item's first text), in characters. */
export const LABEL_MAX = 80;
