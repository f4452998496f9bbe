// GET /openapi.json on agents and registries: the generated OpenAPI document of the service's
// native HTTP API, served on the transports that serve pages (http and sse), without
// credentials even when the server authenticates every other route, and absent elsewhere.
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { Validator } from '@seriousme/openapi-schema-validator';
import { AgentOperationsClient } from '../../generated/clients/agent.js';
import { AgentServer } from '../../src/agent/agent-server.js';
import { ApiKeyAuthenticator } from '../../src/auth/api-key.js';
import { RegistryServer } from '../../src/registry/registry-server.js';
import { createTransport } from '../../src/transport/factory.js';
import { TransportRemoteError } from '../../src/transport/errors.js';

const KEY = 'openapi-test-key-0123456789';

/** A GET over a fresh real connection, whatever the answer. */
async function get(base: string, path: string) {
  const response = await fetch(new URL(path, base));
  const text = await response.text();
  return { status: response.status, contentType: response.headers.get('content-type') ?? '', text, json: () => JSON.parse(text) };
}

function generated(service: 'agent' | 'registry'): unknown {
  return JSON.parse(readFileSync(new URL(`../../generated/openapi/${service}.openapi.json`, import.meta.url), 'utf8'));
}

describe('GET /openapi.json', () => {
  for (const transport of ['http', 'sse'] as const) {
    test(`an agent on ${transport} serves the generated document without credentials`, async (t) => {
      const agent = new AgentServer({
        name: 'openapi',
        transport,
        url: 'http://127.0.0.1:0',
        authenticator: new ApiKeyAuthenticator({ validKeys: { [KEY]: [] } }),
      });
      await agent.start();
      t.after(() => agent.stop());
      const response = await get(agent.url, '/openapi.json');
      assert.equal(response.status, 200, response.text);
      assert.match(response.contentType, /^application\/json/);
      const document = response.json();
      assert.deepEqual(document, generated('agent'));
      const check = await new Validator().validate(document as never);
      assert.equal(check.valid, true, JSON.stringify(check.errors));
      // The routes beside it still ask for credentials.
      assert.equal((await get(agent.url, '/.well-known/agent.json')).status, 401);
    });

    test(`a registry on ${transport} serves its own document without credentials`, async (t) => {
      const registry = new RegistryServer({
        transport,
        url: 'http://127.0.0.1:0',
        authenticator: new ApiKeyAuthenticator({ validKeys: { [KEY]: [] } }),
      });
      await registry.start();
      t.after(() => registry.stop());
      const response = await get(registry.url, '/openapi.json');
      assert.equal(response.status, 200, response.text);
      assert.deepEqual(response.json(), generated('registry'));
      assert.equal((await get(registry.url, '/agents/')).status, 401);
    });
  }

  test('the generated client reads it, and an agent on websocket does not serve it (404)', async (t) => {
    const http = new AgentServer({ name: 'openapi-http', url: 'http://127.0.0.1:0' });
    const ws = new AgentServer({ name: 'openapi-ws', transport: 'websocket', url: 'ws://127.0.0.1:0' });
    await http.start();
    await ws.start();
    const httpClient = await createTransport('http', http.url);
    const wsClient = await createTransport('websocket', ws.url);
    t.after(async () => {
      await httpClient.stop();
      await wsClient.stop();
      await http.stop();
      await ws.stop();
    });
    const document = await new AgentOperationsClient(httpClient).getOpenApi();
    assert.equal(document.openapi, '3.1.0');
    await assert.rejects(new AgentOperationsClient(wsClient).getOpenApi(), (error: unknown) => {
      assert.ok(error instanceof TransportRemoteError, String(error));
      assert.equal(error.code, 'not_found');
      return true;
    });
  });
});
