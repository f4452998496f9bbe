// SecurityScheme, SecurityContext and the AgentCard fields that carry them.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { errorsFor, isValid } from '../support/schema-helpers.js';

const nonHttpTypes = ['apiKey', 'oauth2', 'mutualTLS', 'openIdConnect'];
const httpSchemes = ['bearer', 'basic', 'digest', 'hmac', 'negotiate', 'ntlm', 'aws4auth', 'hawk', 'edgegrid'];

for (const type of nonHttpTypes) {
  test(`security scheme type ${type} with a null scheme is accepted`, () => {
    assert.deepEqual(errorsFor('security-scheme', { type, scheme: null, description: `${type} auth`, metadata: {} }), []);
  });
  test(`security scheme type ${type} may leave scheme out`, () => {
    assert.ok(isValid('security-scheme', { type, description: '', metadata: {} }));
  });
  test(`security scheme type ${type} with scheme bearer is rejected`, () => {
    assert.equal(isValid('security-scheme', { type, scheme: 'bearer', description: '', metadata: {} }), false);
  });
}

for (const scheme of httpSchemes) {
  test(`security scheme http/${scheme} is accepted`, () => {
    assert.deepEqual(errorsFor('security-scheme', { type: 'http', scheme, description: '', metadata: {} }), []);
  });
}

const rejectedSchemes: Array<[string, unknown]> = [
  ['http with scheme foo', { type: 'http', scheme: 'foo', description: '', metadata: {} }],
  ['http with scheme in upper case', { type: 'http', scheme: 'Bearer', description: '', metadata: {} }],
  ['http with a null scheme', { type: 'http', scheme: null, description: '', metadata: {} }],
  ['http without a scheme', { type: 'http', description: '', metadata: {} }],
  ['unknown type', { type: 'kerberos', scheme: null, description: '', metadata: {} }],
  ['missing type', { scheme: null, description: '', metadata: {} }],
  ['non-string description', { type: 'apiKey', scheme: null, description: 1, metadata: {} }],
  ['metadata not an object', { type: 'apiKey', scheme: null, description: '', metadata: 'none' }],
];
for (const [label, value] of rejectedSchemes) {
  test(`security scheme rejected: ${label}`, () => {
    assert.equal(isValid('security-scheme', value), false);
  });
}

const context = {
  principal_id: 'alice',
  token: 'secret-token',
  expires_at: '2030-01-01T00:00:00Z',
  issued_at: '2025-01-01T00:00:00+00:00',
  metadata: { claims: { scope: 'read' } },
};

test('security context with all fields is accepted', () => {
  assert.deepEqual(errorsFor('security-context', context), []);
});

test('security context with only principal_id and token is accepted', () => {
  assert.ok(isValid('security-context', { principal_id: 'p', token: 't' }));
});

test('security context with a null expiry is accepted', () => {
  assert.ok(isValid('security-context', { ...context, expires_at: null }));
});

const rejectedContexts: Array<[string, Record<string, unknown>]> = [
  ['missing principal_id', { principal_id: undefined }],
  ['missing token', { token: undefined }],
  ['expires_at not a timestamp', { expires_at: 'tomorrow' }],
  ['expires_at without a time zone', { expires_at: '2030-01-01T00:00:00' }],
  ['issued_at null', { issued_at: null }],
  ['metadata null', { metadata: null }],
];
for (const [label, patch] of rejectedContexts) {
  test(`security context rejected: ${label}`, () => {
    const value: Record<string, unknown> = { ...context, ...patch };
    for (const key of Object.keys(value)) if (value[key] === undefined) delete value[key];
    assert.equal(isValid('security-context', value), false);
  });
}

test('agent card carries security schemes keyed by name', () => {
  const card = {
    name: 'a',
    description: 'd',
    url: 'http://127.0.0.1:1',
    role: 'worker',
    tags: ['x'],
    capabilities: { has_llm: false },
    securitySchemes: { apiKey: { type: 'apiKey', scheme: null, description: 'key', metadata: {} } },
  };
  assert.deepEqual(errorsFor('agent-card', card), []);
  const broken = { ...card, securitySchemes: { http: { type: 'http', scheme: 'foo', description: '', metadata: {} } } };
  assert.equal(isValid('agent-card', broken), false);
});
