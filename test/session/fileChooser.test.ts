// How a tab attributes file choosers to actions (src/session/fileChooser.ts) when
// Playwright's `filechooser` event comes after the tab's CDP session saw the
// chooser open: Playwright resolves the input element first, so on a loaded
// machine the event can arrive after the next action began. No browser: the
// chooser object is a stand-in for Playwright's FileChooser (only isMultiple
// is read).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import type { FileChooser } from 'playwright-core';
import { FileChoosers } from '../../src/session/fileChooser.js';

const chooser = { isMultiple: () => true } as unknown as FileChooser;

test('a chooser seen under one action and delivered under the next belongs to the first, as late', async () => {
  const choosers = new FileChoosers();
  const first = choosers.acting('e5', true, 'doc1');
  choosers.signalled();
  const second = choosers.acting('e9', true, 'doc1');
  // The second action waits for the delivery the CDP session announced.
  const waited = choosers.delivered(1_000);
  setTimeout(() => choosers.opened(chooser, 'doc1'), 50);
  const started = Date.now();
  await waited;
  assert.ok(Date.now() - started < 900, 'woken by the delivery, not by the bound');
  const open = choosers.takeUnreported('doc1');
  assert.equal(open?.openedBy, 'e5');
  assert.equal(open?.action, first);
  assert.ok(open!.action < second, 'late for the second action');
  assert.equal(choosers.takeUnreported('doc1'), undefined, 'told once');
});

test('a chooser with no CDP signal (an out-of-process frame) belongs to the action running when it is delivered', () => {
  const choosers = new FileChoosers();
  choosers.acting('e1', true, 'doc1');
  const second = choosers.acting('e2', true, 'doc1');
  choosers.opened(chooser, 'doc1');
  const open = choosers.pending('doc1');
  assert.equal(open?.openedBy, 'e2');
  assert.equal(open?.action, second);
});

test('delivered returns at once when nothing is owed, and gives up a signal Playwright never delivers', async () => {
  const choosers = new FileChoosers();
  let started = Date.now();
  await choosers.delivered(1_000);
  assert.ok(Date.now() - started < 100);
  choosers.signalled();
  started = Date.now();
  await choosers.delivered(300);
  const waited = Date.now() - started;
  assert.ok(waited >= 290, `bounded by ms, waited ${waited}`);
  // The lost signal is dropped once it is older than the delivery bound (2 s), so later actions do not wait on it;
  // the next delivered chooser is then attributed to the action running, not to the lost signal's.
  await new Promise(resolve => setTimeout(resolve, 1_800));
  started = Date.now();
  await choosers.delivered(1_000);
  assert.ok(Date.now() - started < 100, 'the lost signal is given up');
  const now = choosers.acting('e7', true, 'doc1');
  choosers.opened(chooser, 'doc1');
  assert.equal(choosers.pending('doc1')?.action, now);
});
