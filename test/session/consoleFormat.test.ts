import { test } from 'node:test';
import assert from 'node:assert/strict';
import { formatConsoleText } from '../../src/session/consoleFormat.js';

test('specifiers take the next argument; the rest is appended; %% is a percent sign', () => {
  assert.equal(formatConsoleText(['%s is %o', 'a', '{x: 1}', 'more', '2']), 'a is {x: 1} more 2');
  assert.equal(formatConsoleText(['%d%% of %i', '5', '7']), '5% of 7');
  assert.equal(formatConsoleText(['%f and %O', '1.5', '{z: q}']), '1.5 and {z: q}');
});

test('%c takes its CSS argument and shows nothing', () => {
  assert.equal(formatConsoleText(['%cbold%c plain', 'font-weight: bold', '', 'tail']), 'bold plain tail');
});

test('no specifier, no argument after it, or more specifiers than arguments', () => {
  assert.equal(formatConsoleText(['plain', '{a: 1}', '[1, 2]']), 'plain {a: 1} [1, 2]');
  assert.equal(formatConsoleText(['%s alone']), '%s alone');
  assert.equal(formatConsoleText(['100%']), '100%');
  assert.equal(formatConsoleText(['%s and %s', 'one']), 'one and %s');
  assert.equal(formatConsoleText(['%x is not one', 'a']), '%x is not one a');
  assert.equal(formatConsoleText([]), '');
});
