// Unit tests of the AgentScript step of the consent order:
// override > rules > the script's @webmcp declaration (an agent-written
// script's `allow` resolves to `prompt`) > defaults.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { saveOverride } from '../../src/consent/overrides.js';
import { permissionFor, rulesPath, type ConsentSubject } from '../../src/consent/rules.js';

const tool: ConsentSubject = { origin: 'http://127.0.0.1:8080', name: 'addNote', annotations: { readOnlyHint: true }, source: 'agentscript', scriptId: 's1' };

test('an agent-written allow prompts; a human-written allow allows; prompt and deny stay', () => {
  const dir = mkdtempSync(join(tmpdir(), 'tabwright-consent-'));
  try {
    assert.deepEqual(permissionFor({ configDir: dir }, { ...tool, declared: 'allow', author: 'agent' }), { permission: 'prompt', source: 'script' });
    assert.deepEqual(permissionFor({ configDir: dir }, { ...tool, declared: 'allow' }), { permission: 'prompt', source: 'script' });
    assert.deepEqual(permissionFor({ configDir: dir }, { ...tool, declared: 'allow', author: 'human' }), { permission: 'allow', source: 'script' });
    assert.deepEqual(permissionFor({ configDir: dir }, { ...tool, declared: 'deny', author: 'human' }), { permission: 'deny', source: 'script' });
    assert.deepEqual(permissionFor({ configDir: dir }, { ...tool, declared: 'prompt', author: 'agent' }), { permission: 'prompt', source: 'script' });
    // No declaration: the defaults (readOnlyHint allows).
    assert.deepEqual(permissionFor({ configDir: dir }, tool), { permission: 'allow', source: 'default' });
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

test('rules and then overrides win over the declaration; "always allow" makes an agent script allow', () => {
  const dir = mkdtempSync(join(tmpdir(), 'tabwright-consent-'));
  try {
    const agentAllow: ConsentSubject = { ...tool, declared: 'allow', author: 'agent' };
    writeFileSync(rulesPath(dir), JSON.stringify({ rules: [{ source: 'agentscript', tool: 'addNote', permission: 'deny' }] }));
    assert.deepEqual(permissionFor({ configDir: dir }, agentAllow), { permission: 'deny', source: 'rules', rule: 0 });
    saveOverride(dir, { origin: tool.origin, tool: 'addNote', scriptId: 's1', permission: 'allow' });
    assert.deepEqual(permissionFor({ configDir: dir }, agentAllow), { permission: 'allow', source: 'override' });
    // The override is per script: another script's tool of the same name still prompts (rule removed).
    writeFileSync(rulesPath(dir), JSON.stringify({ rules: [] }));
    assert.deepEqual(permissionFor({ configDir: dir }, { ...agentAllow, scriptId: 's2' }), { permission: 'prompt', source: 'script' });
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});
