// The operation manifests: format, references, uniqueness, and agreement with the spec's
// endpoint tables and idempotency list.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { OPERATIONS_DIR, loadNativeSchemas, newAjv, readJson } from '../support/schema-helpers.js';

interface Operation {
  name: string;
  specName: string;
  method: string;
  path: string;
  request: string | null;
  query: string | null;
  response: string | null;
  responseContentType: string;
  idempotent: boolean;
  streaming: boolean;
  public: boolean;
  controlPlane: boolean;
  availability: string;
  idempotencyKeyFrom: string[];
  fallback?: string;
}
interface Manifest {
  $schema: string;
  service: string;
  operations: Operation[];
}

const metaSchema = readJson<Record<string, unknown>>(`${OPERATIONS_DIR}operations.schema.json`);
const manifests: Record<string, Manifest> = {
  agent: readJson<Manifest>(`${OPERATIONS_DIR}agent.json`),
  registry: readJson<Manifest>(`${OPERATIONS_DIR}registry.json`),
};
const validateManifest = newAjv().compile(metaSchema);
const native = loadNativeSchemas();

// The spec's endpoint tables: method, path -> operation name, one row each.
/** Routes beyond the spec's table that every service serves for its operators (Prometheus). */
const operationalRoutes: Array<[string, string, string]> = [['GET', '/metrics', 'getMetrics']];

const specRoutes: Record<string, Array<[string, string, string]>> = {
  agent: [
    ['POST', '/tasks/', 'sendTask'],
    ['POST', '/tasks/cancel', 'cancelTask'],
    ['POST', '/tasks/stream', 'streamTask'],
    ['POST', '/llm/history/compact', 'compactHistory'],
    ['POST', '/state/describe', 'describeState'],
    ['POST', '/state/reset', 'resetState'],
    ['POST', '/state/compact', 'compactState'],
    ['GET', '/.well-known/agent.json', 'getCard'],
    ['GET', '/.well-known/agent-card.json', 'getA2ACard'],
    ['POST', '/', 'a2aJsonRpc'],
    // A2A 1.0 HTTP+JSON, the proto's paths under /a2a/rest (src/a2a/rest/).
    ['POST', '/a2a/rest/message:send', 'a2aRestSendMessage'],
    ['POST', '/a2a/rest/message:stream', 'a2aRestSendStreamingMessage'],
    ['GET', '/a2a/rest/tasks/{id}', 'a2aRestGetTask'],
    ['GET', '/a2a/rest/tasks', 'a2aRestListTasks'],
    ['POST', '/a2a/rest/tasks/{id}:cancel', 'a2aRestCancelTask'],
    ['POST', '/a2a/rest/tasks/{id}:subscribe', 'a2aRestSubscribeToTask'],
    ['GET', '/a2a/rest/tasks/{id}:subscribe', 'a2aRestSubscribeToTaskByGet'],
    ['POST', '/a2a/rest/tasks/{taskId}/pushNotificationConfigs', 'a2aRestCreateTaskPushNotificationConfig'],
    ['GET', '/a2a/rest/tasks/{taskId}/pushNotificationConfigs', 'a2aRestListTaskPushNotificationConfigs'],
    ['GET', '/a2a/rest/tasks/{taskId}/pushNotificationConfigs/{id}', 'a2aRestGetTaskPushNotificationConfig'],
    ['DELETE', '/a2a/rest/tasks/{taskId}/pushNotificationConfigs/{id}', 'a2aRestDeleteTaskPushNotificationConfig'],
    ['GET', '/a2a/rest/extendedAgentCard', 'a2aRestGetExtendedAgentCard'],
    ['GET', '/status', 'getStatusPage'],
    ['GET', '/healthz', 'healthz'],
    ['GET', '/readyz', 'readyz'],
    ['GET', '/openapi.json', 'getOpenApi'],
    ['GET', '/chat', 'getChatPage'],
    ['POST', '/chat', 'chat'],
  ],
  registry: [
    ['POST', '/agents/', 'register'],
    ['DELETE', '/agents/', 'unregister'],
    ['POST', '/agents/heartbeat', 'heartbeat'],
    ['GET', '/agents/', 'discover'],
    ['GET', '/status', 'getStatusPage'],
    ['GET', '/healthz', 'healthz'],
    ['GET', '/readyz', 'readyz'],
    ['GET', '/openapi.json', 'getOpenApi'],
  ],
};

// The spec's idempotent list, as operation names. Card retrieval covers both the native
// and the A2A card; history compaction is in neither list and is treated as not idempotent.
const specIdempotent: Record<string, string[]> = {
  agent: ['sendTask', 'getCard', 'getA2ACard', 'cancelTask', 'describeState'],
  registry: ['discover', 'heartbeat', 'unregister'],
};
const specControlPlane = ['cancelTask', 'compactHistory', 'describeState', 'resetState', 'compactState'];
// parley adds the probes (issue 28): a health check or a scrape never waits for a request slot.
const probes = ['healthz', 'readyz', 'getMetrics'];
// GET /openapi.json is not in the spec's tables: parley adds it, public so API tools need no key.
const publicRoutes = ['/.well-known/agent-card.json', '/healthz', '/readyz', '/openapi.json'];

test('the operations meta-schema compiles in strict mode and accepts its own example', () => {
  for (const example of metaSchema.examples as unknown[]) {
    assert.ok(validateManifest(example), JSON.stringify(validateManifest.errors));
  }
});

test('the meta-schema rejects inconsistent operations', () => {
  const good = structuredClone(manifests.registry!);
  const cases: Array<[string, (op: any) => void]> = [
    [
      'idempotent without key fields',
      (op) => {
        op.idempotent = true;
        op.idempotencyKeyFrom = [];
      },
    ],
    [
      'non-idempotent with key fields',
      (op) => {
        op.idempotent = false;
        op.idempotencyKeyFrom = ['id'];
      },
    ],
    [
      'idempotent stream',
      (op) => {
        op.streaming = true;
        op.idempotent = true;
        op.responseContentType = 'text/event-stream';
      },
    ],
    ['unknown method', (op) => (op.method = 'PATCH')],
    ['unknown key', (op) => (op.retries = 3)],
    [
      'HTML page with a response schema',
      (op) => {
        op.responseContentType = 'text/html';
        op.response = 'health';
      },
    ],
    ['fallback on a unary operation', (op) => (op.fallback = 'healthz')],
    [
      'stream without an event schema',
      (op) => {
        op.streaming = true;
        op.idempotent = false;
        op.idempotencyKeyFrom = [];
        op.responseContentType = 'text/event-stream';
        op.response = null;
      },
    ],
  ];
  for (const [label, mutate] of cases) {
    const manifest = structuredClone(good);
    mutate(manifest.operations[0]);
    assert.equal(validateManifest(manifest), false, label);
  }
});

for (const [service, manifest] of Object.entries(manifests)) {
  test(`${service} manifest validates against operations.schema.json`, () => {
    assert.equal(manifest.$schema, './operations.schema.json');
    assert.equal(manifest.service, service);
    assert.ok(validateManifest(manifest), JSON.stringify(validateManifest.errors, null, 2));
  });

  test(`${service} manifest names every existing schema`, () => {
    for (const op of manifest.operations) {
      for (const ref of [op.request, op.query, op.response]) {
        if (ref === null || ref.startsWith('a2a:')) continue;
        assert.ok(native.has(ref), `${op.name} refers to unknown schema ${ref}`);
      }
    }
  });

  test(`${service} manifest has unique names and unique (method, path) pairs`, () => {
    const names = manifest.operations.map((op) => op.name);
    const specNames = manifest.operations.map((op) => op.specName);
    const routes = manifest.operations.map((op) => `${op.method} ${op.path}`);
    assert.equal(new Set(names).size, names.length);
    assert.equal(new Set(specNames).size, specNames.length);
    assert.equal(new Set(routes).size, routes.length);
  });

  test(`${service} manifest covers the spec's endpoint table exactly, plus the operational routes`, () => {
    const actual = manifest.operations.map((op) => `${op.method} ${op.path} ${op.name}`).sort();
    const expected = [...specRoutes[service]!, ...operationalRoutes].map((row) => row.join(' ')).sort();
    assert.deepEqual(actual, expected);
  });

  test(`${service} manifest's idempotent set equals the spec's list`, () => {
    const actual = manifest.operations
      .filter((op) => op.idempotent)
      .map((op) => op.name)
      .sort();
    assert.deepEqual(actual, [...specIdempotent[service]!].sort());
    for (const op of manifest.operations) {
      assert.deepEqual(op.idempotencyKeyFrom, op.idempotent ? ['id', 'task_id', 'agent_url'] : [], op.name);
    }
  });

  test(`${service} manifest marks only the spec's public routes as public`, () => {
    for (const op of manifest.operations) {
      assert.equal(op.public, publicRoutes.includes(op.path), `${op.name} public flag`);
    }
  });

  test(`${service} manifest marks the control plane`, () => {
    const actual = manifest.operations
      .filter((op) => op.controlPlane)
      .map((op) => op.name)
      .sort();
    const expected = (service === 'agent' ? [...specControlPlane, ...probes] : probes).slice().sort();
    assert.deepEqual(actual, expected);
  });
}

test('availability follows the spec', () => {
  const byName = new Map(manifests.agent!.operations.map((op) => [op.name, op]));
  const rows: Array<[string, string]> = [
    ['sendTask', 'always'],
    ['streamTask', 'streaming-transport'],
    ['getA2ACard', 'a2a'],
    ['a2aJsonRpc', 'a2a'],
    ['a2aRestSendMessage', 'a2a'],
    ['a2aRestGetTask', 'a2a'],
    ['getStatusPage', 'html-transport'],
    ['chat', 'llm'],
    ['healthz', 'always'],
  ];
  for (const [name, availability] of rows) assert.equal(byName.get(name)?.availability, availability, name);
  const stream = byName.get('streamTask')!;
  assert.equal(stream.streaming, true);
  assert.equal(stream.response, 'stream-event');
  assert.equal(stream.responseContentType, 'text/event-stream');
  assert.deepEqual(stream.idempotencyKeyFrom, []);
});

test('the agent stream falls back to task submission, a unary JSON operation taking the same task', () => {
  const byName = new Map(manifests.agent!.operations.map((op) => [op.name, op]));
  const stream = byName.get('streamTask')!;
  assert.equal(stream.fallback, 'sendTask');
  const submit = byName.get(stream.fallback!)!;
  assert.equal(submit.streaming, false);
  assert.equal(submit.request, stream.request);
  assert.equal(submit.responseContentType, 'application/json');
  for (const manifest of Object.values(manifests)) {
    for (const op of manifest.operations) if (op.name !== 'streamTask') assert.equal(op.fallback, undefined, op.name);
  }
});

test('registry discovery reads its filters from the query string', () => {
  const discover = manifests.registry!.operations.find((op) => op.name === 'discover')!;
  assert.equal(discover.request, null);
  assert.equal(discover.query, 'discover-query');
  assert.equal(discover.response, 'agent-card-list');
});
