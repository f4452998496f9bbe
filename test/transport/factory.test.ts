// Spec "What the service does": transport names, matched case-insensitively; `sse` has the
// aliases `json-rpc` and `sse-json-rpc`; an unknown name is a ValueError; a missing optional
// dependency is an ImportError naming the package.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { importOptional, InvalidArgumentError, MissingDependencyError } from '../../src/core/errors.js';
import {
  createTransport,
  loadBinding,
  resolveTransportName,
  SCHEME_TRANSPORTS,
  TRANSPORT_NAMES,
  transportForScheme,
} from '../../src/transport/factory.js';
import { rejection } from '../support/transport-fixtures.js';

test('the transport names are http, runtime, websocket, sse and grpc', () => {
  assert.deepEqual([...TRANSPORT_NAMES].sort(), ['grpc', 'http', 'runtime', 'sse', 'websocket']);
});

const names: Array<[string, string]> = [
  ['http', 'http'],
  ['HTTP', 'http'],
  ['Http', 'http'],
  ['runtime', 'runtime'],
  ['Runtime', 'runtime'],
  ['RUNTIME', 'runtime'],
  ['websocket', 'websocket'],
  ['WebSocket', 'websocket'],
  ['sse', 'sse'],
  ['SSE', 'sse'],
  ['json-rpc', 'sse'],
  ['JSON-RPC', 'sse'],
  ['sse-json-rpc', 'sse'],
  ['SSE-JSON-RPC', 'sse'],
  ['Sse-Json-Rpc', 'sse'],
  ['grpc', 'grpc'],
  ['gRPC', 'grpc'],
  ['GRPC', 'grpc'],
];
for (const [name, canonical] of names) {
  test(`transport name ${JSON.stringify(name)} resolves to ${canonical}`, () => {
    assert.equal(resolveTransportName(name), canonical);
  });
}

const built: Array<[string, string, string]> = [
  ['HTTP', 'http://127.0.0.1:0', 'http'],
  ['Runtime', 'runtime://factory-case', 'runtime'],
];
for (const [name, url, canonical] of built) {
  test(`createTransport(${JSON.stringify(name)}) builds the ${canonical} transport`, async () => {
    const transport = await createTransport(name, url);
    assert.equal(transport.name, canonical);
    assert.equal(transport.health().transport, canonical);
    await transport.stop();
  });
}

const unknown = ['htttp', '', 'ws', 'rest', 'json_rpc', 'sse json rpc', 'in-process', 'http2'];
for (const name of unknown) {
  test(`unknown transport name ${JSON.stringify(name)} is an InvalidArgumentError (ValueError)`, async () => {
    assert.throws(
      () => resolveTransportName(name),
      (error: unknown) => {
        assert.ok(error instanceof InvalidArgumentError);
        assert.ok(error instanceof RangeError);
        assert.equal(error.code, 'unknown_transport');
        assert.ok(error.message.includes(JSON.stringify(name)), error.message);
        return true;
      },
    );
    const error = await rejection(createTransport(name, 'http://127.0.0.1:0'));
    assert.ok(error instanceof InvalidArgumentError);
    assert.equal(error.code, 'unknown_transport');
  });
}

test('a non-string name is an unknown transport, not a crash', () => {
  assert.throws(() => resolveTransportName(42 as never), InvalidArgumentError);
});

test('a missing optional package is a MissingDependencyError that names the package', async () => {
  const error = await rejection(importOptional('definitely-not-installed-pkg-xyz', 'x'));
  assert.ok(error instanceof MissingDependencyError, String(error));
  assert.equal(error.code, 'missing_dependency');
  assert.equal(error.packageName, 'definitely-not-installed-pkg-xyz');
  assert.equal(error.feature, 'x');
  assert.ok(error.message.includes('definitely-not-installed-pkg-xyz'));
  assert.ok(error.cause, 'keeps the original import failure');
});

test('importOptional loads a package that is installed', async () => {
  const path = await importOptional<typeof import('node:path')>('node:path', 'paths');
  assert.equal(typeof path.join, 'function');
});

const badUrls: Array<[string, string]> = [
  ['http', 'ws://127.0.0.1:1'],
  ['http', 'not a url'],
  ['runtime', 'http://127.0.0.1:1'],
];
for (const [name, url] of badUrls) {
  test(`${name} transport refuses the URL ${JSON.stringify(url)}`, async () => {
    const error = await rejection(createTransport(name, url));
    assert.ok(error instanceof InvalidArgumentError);
    assert.equal(error.code, 'invalid_url');
  });
}

test('the static scheme table is the schemes the bindings declare, the first transport in name order owning a shared one', async () => {
  const declared: Record<string, string> = {};
  for (const name of TRANSPORT_NAMES) {
    for (const scheme of (await loadBinding(name)).schemes) declared[scheme] ??= name;
  }
  assert.deepEqual({ ...SCHEME_TRANSPORTS }, declared);
});

test('the transport a URL scheme implies, in any case; none for a scheme no binding declares', () => {
  assert.equal(transportForScheme('HTTPS://example.test/x'), 'http');
  assert.equal(transportForScheme('wss://example.test'), 'websocket');
  assert.equal(transportForScheme('grpcs://example.test:443'), 'grpc');
  assert.equal(transportForScheme('runtime://echo'), 'runtime');
  for (const url of ['sse://example.test', 'example.test', '', 'constructor://x', '__proto__://x']) {
    assert.equal(transportForScheme(url), undefined, url);
  }
});

test("each binding declares the spec's five capabilities plus pages, served by http and sse only", async () => {
  for (const name of TRANSPORT_NAMES) {
    const { capabilities } = await loadBinding(name);
    assert.deepEqual(Object.keys(capabilities).sort(), [
      'bidirectional',
      'networked',
      'pages',
      'persistent_connections',
      'streaming',
      'tls',
    ]);
    assert.equal(capabilities.pages, name === 'http' || name === 'sse', name);
  }
});
