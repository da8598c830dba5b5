/**
 * list_downloads: every download of the session,
 * saved under `<workspace>/.tabwright/downloads/` (src/session/downloads.ts).
 * Never starts the browser.
 */
import * as z from 'zod';
import { defineTool } from './define.js';

export const listDownloads = defineTool({
  name: 'list_downloads',
  title: 'List downloads',
  description: 'Downloads of this session: saved name and path, size, state, url, tabId.',
  needs: [],
  effect: 'observe',
  launchesBrowser: false,
  input: z.object({}),
  async handle(_input, { session }, res) {
    const downloads = session.downloads.list();
    res.set('downloads', downloads);
    if (!downloads.length) res.text('No downloads yet.');
    for (const d of downloads) {
      res.text(`${d.id}. ${JSON.stringify(d.name)} ${d.state}${d.size !== null ? `, ${d.size} bytes` : ''}${d.path ? `, ${d.path}` : ''}${d.error ? ` (${d.error})` : ''} from tab ${d.tabId}, ${d.url}`);
    }
  },
});

export const downloadTools = [listDownloads];
