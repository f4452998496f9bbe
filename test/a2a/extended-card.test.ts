// The authenticated extended card (A2A 1.0 GetExtendedAgentCard, issue 32): an agent configured
// with one says so on its public card and shows it to authenticated callers only; without one
// the method is UnsupportedOperation, as the spec requires when the capability is off. A
// mistake in the settings is refused when the agent is built, naming the field.
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { AgentServer } from '../../src/agent/agent-server.js';
import { ApiKeyAuthenticator } from '../../src/auth/api-key.js';
import { ConfigError, InvalidArgumentError } from '../../src/core/errors.js';
import { call, postRpc, sdkClientVia, startA2aAgent } from './support.js';

const KEY = 'extended-key-0001';
const authenticator = () => new ApiKeyAuthenticator({ validKeys: { [KEY]: [] } });
const withKey: typeof fetch = (input, init) => {
  const headers = new Headers(init?.headers);
  headers.set('x-api-key', KEY);
  return fetch(input, { ...init, headers });
};

const EXTENDED = {
  description: 'Echoes, and for members also translates.',
  skills: [
    { id: 'translate', name: 'Translate', description: 'Translates text to French.', tags: ['i18n'], examples: ['bonjour'] },
  ],
};

describe('A2A: the authenticated extended card', () => {
  test('configured: the public card declares it and keeps the extra skills to itself', async (t) => {
    const { url } = await startA2aAgent(t, { authenticator: authenticator(), a2aExtendedCard: EXTENDED });
    const card: any = await (await fetch(`${url}/.well-known/agent-card.json`)).json();
    assert.equal(card.capabilities.extendedAgentCard, true);
    assert.equal(card.description, 'echoes');
    assert.deepEqual(
      card.skills.map((skill: any) => skill.id),
      ['echo'],
    );
  });

  test('an authenticated caller gets the full card: the public one, its description replaced, the skills added', async (t) => {
    const { url } = await startA2aAgent(t, { authenticator: authenticator(), a2aExtendedCard: EXTENDED });
    const answer = await call(url, 'GetExtendedAgentCard', {}, 7, { 'x-api-key': KEY });
    const card = answer.result;
    assert.equal(answer.id, 7);
    assert.equal(card.name, 'echo');
    assert.equal(card.description, EXTENDED.description);
    assert.deepEqual(
      card.skills.map((skill: any) => skill.id),
      ['echo', 'translate'],
    );
    assert.deepEqual(card.skills[1], EXTENDED.skills[0]);
    assert.equal(card.capabilities.extendedAgentCard, true);
    assert.deepEqual(card.supportedInterfaces, [
      { url: `${url}/`, protocolBinding: 'JSONRPC', protocolVersion: '1.0' },
      { url: `${url}/a2a/rest`, protocolBinding: 'HTTP+JSON', protocolVersion: '1.0' },
    ]);
  });

  test("the official SDK client's getAgentCard swaps in the extended card for an authenticated caller", async (t) => {
    const { url } = await startA2aAgent(t, { authenticator: authenticator(), a2aExtendedCard: EXTENDED });
    const client = await sdkClientVia(url, withKey);
    const card = await client.getAgentCard();
    assert.equal(card.description, EXTENDED.description);
    assert.deepEqual(
      card.skills.map((skill) => skill.id),
      ['echo', 'translate'],
    );
  });

  test('a caller without valid credentials is refused by HTTP authentication (401), and learns nothing of the card', async (t) => {
    const { url } = await startA2aAgent(t, { authenticator: authenticator(), a2aExtendedCard: EXTENDED });
    const refusedHeaders: Record<string, string>[] = [{}, { 'x-api-key': 'not-a-key-00000' }];
    for (const headers of refusedHeaders) {
      const answer = await postRpc(url, { jsonrpc: '2.0', id: 1, method: 'GetExtendedAgentCard', params: {} }, headers);
      assert.equal(answer.status, 401);
      assert.doesNotMatch(answer.text, /translate|members/i);
    }
  });

  test('not configured: UnsupportedOperation (-32004), the capability off, even for an authenticated caller', async (t) => {
    const { url } = await startA2aAgent(t, { authenticator: authenticator() });
    const card: any = await (await fetch(`${url}/.well-known/agent-card.json`)).json();
    assert.equal(card.capabilities.extendedAgentCard, false);
    const answer = await call(url, 'GetExtendedAgentCard', {}, 1, { 'x-api-key': KEY });
    assert.equal(answer.error.code, -32004);
    assert.equal(answer.error.data[0].reason, 'UNSUPPORTED_OPERATION');
  });

  test('bad params are -32602 before the card is looked at', async (t) => {
    const { url } = await startA2aAgent(t, { authenticator: authenticator(), a2aExtendedCard: EXTENDED });
    const answer = await call(url, 'GetExtendedAgentCard', { tenant: 5 }, 1, { 'x-api-key': KEY });
    assert.equal(answer.error.code, -32602);
  });
});

describe('A2A: extended card settings are checked when the agent is built', () => {
  const build = (options: Record<string, unknown>) => () =>
    new AgentServer({ name: 'echo', a2a: true, authenticator: authenticator(), ...options });

  test('without an authenticator, or without a2a, the agent is not built', () => {
    assert.throws(
      () => new AgentServer({ name: 'echo', a2a: true, a2aExtendedCard: EXTENDED }),
      (error: unknown) => error instanceof InvalidArgumentError && /needs an authenticator/.test(error.message),
    );
    assert.throws(
      () => new AgentServer({ name: 'echo', authenticator: authenticator(), a2aExtendedCard: EXTENDED }),
      (error: unknown) => error instanceof InvalidArgumentError && /needs a2a: true/.test(error.message),
    );
  });

  const rows: [string, unknown, RegExp][] = [
    ['not an object', 'skills', /^a2aExtendedCard: must be an object/],
    ['an unknown setting', { name: 'x' }, /^a2aExtendedCard\.name: is not a setting/],
    ['nothing to reveal', { skills: [] }, /must reveal something/],
    ['an empty description', { description: '' }, /^a2aExtendedCard\.description: must be a non-empty string/],
    ['skills not a list', { skills: { id: 'x' } }, /^a2aExtendedCard\.skills: must be an array/],
    [
      'a skill without a name',
      { skills: [{ id: 'x', description: 'd', tags: [] }] },
      /^a2aExtendedCard\.skills\[0\]\.name: is required/,
    ],
    [
      'a skill with a field A2A does not have',
      { skills: [{ id: 'x', name: 'n', description: 'd', colour: 'red' }] },
      /^a2aExtendedCard\.skills\[0\]: must be an A2A AgentSkill/,
    ],
    [
      'a skill whose tags are not strings',
      { skills: [{ id: 'x', name: 'n', description: 'd', tags: [1] }] },
      /^a2aExtendedCard\.skills\[0\]: must be an A2A AgentSkill/,
    ],
  ];
  for (const [name, value, message] of rows) {
    test(`${name}: a ConfigError naming the field`, () => {
      assert.throws(
        build({ a2aExtendedCard: value }),
        (error: unknown) => error instanceof ConfigError && message.test(error.message),
      );
    });
  }
});
