/**
 * What userscripts did in one tab's current document: which
 * scripts ran (in any frame) and the menu commands they registered
 * (`GM_registerMenuCommand`). Filled by src/userscripts/injection.ts,
 * cleared when the main frame's document is replaced, read by list_tabs.
 */
import type { Frame } from 'playwright-core';

/** One script that ran in the tab. */
export interface RanScript {
  id: string;
  name: string;
}

/** One menu command: `commandId` is what run_menu_command takes. */
export interface MenuCommand {
  commandId: string;
  caption: string;
  scriptId: string;
  scriptName: string;
}

export class TabScripts {
  private readonly ran = new Map<string, string>();
  private readonly menu = new Map<string, { command: MenuCommand; frame: Frame }>();

  /** Records that a script ran in one of the tab's frames. */
  recordRun(id: string, name: string): void {
    this.ran.set(id, name);
  }

  addMenuCommand(command: MenuCommand, frame: Frame): void {
    this.menu.set(command.commandId, { command, frame });
  }

  /** The scripts that ran in the current document, in the order they first ran. */
  scripts(): RanScript[] {
    return [...this.ran].map(([id, name]) => ({ id, name }));
  }

  menuCommands(): MenuCommand[] {
    return [...this.menu.values()].map(m => m.command);
  }

  /** The frame a command was registered in (run_menu_command calls it there). */
  frameOf(commandId: string): Frame | undefined {
    return this.menu.get(commandId)?.frame;
  }

  /** Forgets everything (a new main-frame document). */
  clear(): void {
    this.ran.clear();
    this.menu.clear();
  }
}
