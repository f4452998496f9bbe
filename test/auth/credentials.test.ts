// Spec "Authentication > Server-side flow", rules 2 and 3: where a server finds the credential.
// (a) Authorization, with a Bearer, Basic, ApiKey or apikey prefix matched in any case and
// removed, any other scheme kept as the stripped header text; (b) X-API-Key; (c) the query
// parameters api_key, then apikey, then token. Surrounding whitespace is stripped; a prefix or
// whitespace alone gives an empty string; nothing found gives null. One row per case, then the
// order checked end to end over a real http server.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { extractCredentials } from '../../src/auth/credentials.js';
import { keyAuthenticator } from '../support/key-authenticator.js';
import { echoTask, rawRequest, serve, table } from '../support/transport-fixtures.js';

type Source = Record<string, string>;

const rows: Array<[label: string, headers: Source, query: Source, expected: string | null]> = [
  // (a) Authorization: each known prefix, in any case, is removed.
  ['Bearer prefix', { authorization: 'Bearer tok-1' }, {}, 'tok-1'],
  ['bearer in lower case', { authorization: 'bearer tok-1' }, {}, 'tok-1'],
  ['BEARER in upper case', { authorization: 'BEARER tok-1' }, {}, 'tok-1'],
  ['Basic prefix', { authorization: 'Basic dXNlcjpwYXNz' }, {}, 'dXNlcjpwYXNz'],
  ['bAsIc in mixed case', { authorization: 'bAsIc dXNlcjpwYXNz' }, {}, 'dXNlcjpwYXNz'],
  ['ApiKey prefix', { authorization: 'ApiKey key-1' }, {}, 'key-1'],
  ['apikey prefix', { authorization: 'apikey key-1' }, {}, 'key-1'],
  ['APIKEY in upper case', { authorization: 'APIKEY key-1' }, {}, 'key-1'],
  ['a tab after the prefix', { authorization: 'Bearer\ttok-1' }, {}, 'tok-1'],
  ['several spaces after the prefix', { authorization: 'Bearer    tok-1' }, {}, 'tok-1'],
  ['surrounding whitespace', { authorization: '  Bearer tok-1  ' }, {}, 'tok-1'],
  ['only the first prefix is removed', { authorization: 'Bearer Bearer tok-1' }, {}, 'Bearer tok-1'],
  // An unknown scheme, or a known word not followed by a space, is kept whole (stripped).
  ['unknown scheme', { authorization: 'Digest username="u"' }, {}, 'Digest username="u"'],
  ['unknown scheme, stripped', { authorization: '  Token abc  ' }, {}, 'Token abc'],
  ['a prefix glued to the value is no prefix', { authorization: 'Bearertok-1' }, {}, 'Bearertok-1'],
  ['a bare credential', { authorization: 'raw-key' }, {}, 'raw-key'],
  // Prefix only, whitespace only, empty: an empty string, and the later sources are not consulted.
  ['prefix only', { authorization: 'Bearer' }, {}, ''],
  ['prefix and spaces only', { authorization: 'ApiKey   ' }, {}, ''],
  ['whitespace only', { authorization: '   ' }, {}, ''],
  ['empty Authorization still wins over X-API-Key', { authorization: '', 'x-api-key': 'key-2' }, {}, ''],
  // (b) X-API-Key, taken as it is (no prefix removed), stripped.
  ['X-API-Key', { 'x-api-key': 'key-2' }, {}, 'key-2'],
  ['X-API-Key stripped', { 'x-api-key': '  key-2 ' }, {}, 'key-2'],
  ['X-API-Key keeps what looks like a prefix', { 'x-api-key': 'Bearer key-2' }, {}, 'Bearer key-2'],
  ['X-API-Key wins over the query', { 'x-api-key': 'key-2' }, { api_key: 'q-1' }, 'key-2'],
  // Authorization wins even when it is wrong and X-API-Key is right.
  ['Authorization wins over X-API-Key', { authorization: 'Bearer wrong', 'x-api-key': 'right' }, {}, 'wrong'],
  ['Authorization wins over the query', { authorization: 'Bearer tok-1' }, { api_key: 'q-1' }, 'tok-1'],
  // (c) The query: api_key, then apikey, then token.
  ['api_key', {}, { api_key: 'q-1' }, 'q-1'],
  ['apikey', {}, { apikey: 'q-2' }, 'q-2'],
  ['token', {}, { token: 'q-3' }, 'q-3'],
  ['api_key before apikey and token', {}, { token: 'q-3', apikey: 'q-2', api_key: 'q-1' }, 'q-1'],
  ['apikey before token', {}, { token: 'q-3', apikey: 'q-2' }, 'q-2'],
  ['query values stripped', {}, { token: ' q-3 ' }, 'q-3'],
  ['an empty query value is found (empty string)', {}, { api_key: '', token: 'q-3' }, ''],
  ['a query prefix is not removed', {}, { token: 'Bearer q-3' }, 'Bearer q-3'],
  // Nothing found.
  ['nothing at all', {}, {}, null],
  ['other headers and parameters only', { 'x-other': 'x', cookie: 'a=b' }, { key: 'k', access_token: 't' }, null],
];

for (const [label, headers, query, expected] of rows) {
  test(`credentials: ${label}`, () => {
    const found = extractCredentials(
      (name) => headers[name],
      (name) => query[name],
    );
    assert.equal(found, expected);
  });
}

test('credentials over http: a wrong Authorization with a right X-API-Key is refused; each source alone is accepted', async (t) => {
  const server = await serve(t, 'http', 'http://127.0.0.1:0', table(echoTask()), {
    authenticator: keyAuthenticator,
  });
  const send = (headers: Record<string, string>, query = '') =>
    rawRequest(server.url, {
      method: 'POST',
      path: `/tasks/${query}`,
      headers: { 'content-type': 'application/json', ...headers },
      body: '{"id":"c"}',
    });
  const refused = await send({ authorization: 'Bearer wrong', 'x-api-key': 'good' });
  assert.equal(refused.status, 401);
  assert.equal(refused.json.error.code, 'unauthenticated');
  assert.equal((await send({ authorization: 'bEaReR good' })).status, 200);
  assert.equal((await send({ 'x-api-key': 'good' })).status, 200);
  assert.equal((await send({ 'x-api-key': 'good' }, '?api_key=wrong')).status, 200, 'X-API-Key before the query');
  assert.equal((await send({}, '?api_key=good&token=wrong')).status, 200);
  assert.equal((await send({}, '?api_key=wrong&token=good')).status, 401, 'api_key before token');
  assert.equal((await send({}, '?apikey=good&token=wrong')).status, 200);
  assert.equal((await send({})).status, 401);
});
