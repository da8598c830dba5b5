/**
 * `tabwright extension path` and `tabwright pairing-key` (docs/own-browser.md, "Extension"): where the companion
 * extension's load-unpacked folder is, and the pairing code to paste into its pairing page.
 */
import { existsSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { pairingKey } from '../browser/extension/pairingKey.js';
import { EXTENSION_ID } from '../browser/extension/protocol.js';
import { relayPort } from '../relay/protocol.js';
import { configDir } from '../config.js';
import type { Command } from './commander.js';
import { respond } from './toolCommand.js';

/** dist/extension beside the built CLI (dist/cli/ → dist/extension). */
export function extensionFolder(): string {
  return join(dirname(dirname(fileURLToPath(import.meta.url))), 'extension');
}

/** Adds `extension path` and `pairing-key` to `program`. */
export function addExtensionCommands(program: Command): void {
  const extension = program.command('extension').description('the companion extension that lets tabwright drive the tabs you share in your own Chrome');
  extension.command('path').description('the folder to load unpacked at chrome://extensions (Developer mode → Load unpacked)')
    .action(() => respond(async () => {
      const path = extensionFolder();
      return { path, id: EXTENSION_ID, built: existsSync(join(path, 'manifest.json')) };
    }));
  program.command('pairing-key').description('the code to paste into the extension\'s pairing page (created on first use; delete the file to rotate it)')
    .action(() => respond(async () => {
      const key = pairingKey(configDir());
      return { code: key.code, source: key.source, port: relayPort() };
    }));
}
