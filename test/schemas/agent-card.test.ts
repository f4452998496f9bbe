// AgentCard, AgentInterface, RegistryEntry and the registry request/response bodies.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { clone, isValid } from '../support/schema-helpers.js';

const card = {
  name: 'echo',
  description: 'Echoes its input',
  url: 'http://127.0.0.1:9000',
  role: 'worker',
  tags: ['echo', 'test'],
  capabilities: { has_llm: true, streaming: false, custom_flag: 'yes' },
  interfaces: [{ url: 'ws://127.0.0.1:9001', transport: 'websocket', protocol_version: '1' }],
  version: '0.1.0',
};

test('the spec-shaped card is valid, and name plus url suffice', () => {
  assert.ok(isValid('agent-card', card));
  assert.ok(isValid('agent-card', { name: 'n', url: 'runtime://n' }));
});

const rejectedCards: Array<[string, (c: any) => void]> = [
  ['missing url', (c) => delete c.url],
  ['missing name', (c) => delete c.name],
  ['tags as a string', (c) => (c.tags = 'echo')],
  ['tags with a number', (c) => (c.tags = ['echo', 1])],
  ['has_llm not a boolean', (c) => (c.capabilities.has_llm = 'yes')],
  ['capabilities not an object', (c) => (c.capabilities = true)],
  ['interface with an alias transport', (c) => (c.interfaces[0].transport = 'json-rpc')],
  ['interface without url', (c) => delete c.interfaces[0].url],
  ['version not a string', (c) => (c.version = 1)],
];
for (const [label, mutate] of rejectedCards) {
  test(`agent card rejected: ${label}`, () => {
    const value = clone(card) as any;
    mutate(value);
    assert.equal(isValid('agent-card', value), false);
  });
}

for (const transport of ['http', 'runtime', 'websocket', 'sse', 'grpc']) {
  test(`transport name ${transport} is canonical`, () => {
    assert.ok(isValid('transport-name', transport));
    assert.ok(isValid('agent-interface', { url: 'x://y', transport, protocol_version: '1' }));
  });
}
for (const name of ['json-rpc', 'sse-json-rpc', 'HTTP', 'tcp']) {
  test(`transport name ${name} is not canonical`, () => {
    assert.equal(isValid('transport-name', name), false);
  });
}

test('registry entry', () => {
  assert.ok(isValid('registry-entry', { card, last_seen: 1735787045.5, metadata: {} }));
  assert.equal(isValid('registry-entry', { card, last_seen: '1735787045' }), false);
  assert.equal(isValid('registry-entry', { last_seen: 1 }), false);
});

test('agent-url request: string, null and missing key are all accepted', () => {
  assert.ok(isValid('agent-url-request', { agent_url: 'http://127.0.0.1:9000' }));
  assert.ok(isValid('agent-url-request', { agent_url: null }));
  assert.ok(isValid('agent-url-request', {}));
  assert.equal(isValid('agent-url-request', { agent_url: 5 }), false);
});

for (const status of ['agent registered successfully', 'agent heartbeat recorded', 'agent not found']) {
  test(`registry status "${status}"`, () => {
    assert.ok(isValid('registry-status', { status }));
  });
}
test('registry status needs a string status', () => {
  assert.equal(isValid('registry-status', {}), false);
  assert.equal(isValid('registry-status', { status: 200 }), false);
});

const queries: Array<[string, unknown, boolean]> = [
  ['no filter', {}, true],
  ['name', { name: 'echo' }, true],
  ['role', { role: 'worker' }, true],
  ['single tag', { tags: 'echo' }, true],
  ['several tags', { tags: ['echo', 'test'] }, true],
  ['filter_by as a query-string value', { filter_by: '{"name":"echo"}' }, true],
  ['filter_by as an object', { filter_by: { name: 'echo' } }, true],
  ['other string key', { version: '0.1.0' }, true],
  ['numeric name', { name: 1 }, false],
  ['tags with a number', { tags: ['a', 2] }, false],
];
for (const [label, query, ok] of queries) {
  test(`discover query: ${label}`, () => {
    assert.equal(isValid('discover-query', query), ok);
  });
}

test('agent card list', () => {
  assert.ok(isValid('agent-card-list', []));
  assert.ok(isValid('agent-card-list', [card, card]));
  assert.equal(isValid('agent-card-list', [{ name: 'no-url' }]), false);
  assert.equal(isValid('agent-card-list', card), false);
});
