// Who listens on a port (`tabwright doctor`), from procfs: a server of this very process is found by its pid.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { createServer, type AddressInfo } from 'node:net';
import { portHolder } from '../../dist/cli/portHolder.js';

test('a port this process listens on names this process and its command; a free port names nobody', async () => {
  const server = createServer();
  await new Promise<void>(resolve => server.listen(0, '127.0.0.1', () => resolve()));
  const port = (server.address() as AddressInfo).port;
  try {
    const found = portHolder(port);
    assert.equal(found?.pid, process.pid);
    assert.match(found!.command, /node/);
  } finally {
    await new Promise(resolve => server.close(resolve));
  }
  assert.equal(portHolder(port), undefined);
});
