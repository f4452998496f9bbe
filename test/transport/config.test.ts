// Spec "Limits": the transport configuration table, the limits table, the retry policy table,
// the gRPC constants and the outbound deadline. Every default, every rule, the serialized form.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { validate } from '../../generated/validators/index.js';
import { ConfigError } from '../../src/core/errors.js';
import { ResolvedConfig, type TransportConfigOptions } from '../../src/transport/config.js';
import { TransportTimeoutError } from '../../src/transport/errors.js';
import { createTransport } from '../../src/transport/factory.js';
import { wireOptions } from '../../src/transport/grpc/options.js';
import { AgentOperationsClient } from '../../generated/clients/agent.js';
import { client, rawServer, rejection } from '../support/transport-fixtures.js';

// ---- defaults, one row per spec table row -------------------------------------------------

const defaults: Array<[string, (c: ResolvedConfig) => unknown, unknown]> = [
  ['limits.max_request_bytes', (c) => c.limits.maxRequestBytes, 16_777_216],
  ['limits.max_response_bytes', (c) => c.limits.maxResponseBytes, 16_777_216],
  ['limits.max_event_bytes', (c) => c.limits.maxEventBytes, 4_194_304],
  ['limits.max_concurrent_requests', (c) => c.limits.maxConcurrentRequests, 100],
  ['limits.max_concurrent_streams', (c) => c.limits.maxConcurrentStreams, 100],
  ['limits.max_concurrent_model_requests (parley: 0, half the slots)', (c) => c.limits.maxConcurrentModelRequests, 50],
  ['retry.max_attempts', (c) => c.retry.maxAttempts, 1],
  ['retry.initial_backoff', (c) => c.retry.initialBackoff, 0.1],
  ['retry.max_backoff', (c) => c.retry.maxBackoff, 2.0],
  ['retry.jitter', (c) => c.retry.jitter, 0.1],
  ['retry.retryable_methods', (c) => [...c.retry.retryableMethods], ['DELETE', 'GET', 'POST', 'PUT']],
  ['keepalive_interval', (c) => c.keepaliveInterval, 20.0],
  ['keepalive_timeout', (c) => c.keepaliveTimeout, 20.0],
  ['shutdown_timeout', (c) => c.shutdownTimeout, 5.0],
  ['idempotency_ttl', (c) => c.idempotencyTtl, 300.0],
  ['idempotency_cache_size', (c) => c.idempotencyCacheSize, 1024],
  ['idempotency_cache_bytes (parley: 64 MiB)', (c) => c.idempotencyCacheBytes, 67_108_864],
  ['header_timeout (parley)', (c) => c.headerTimeout, 20],
  ['body_timeout (parley)', (c) => c.bodyTimeout, 60],
  ['max_connections (parley: 0, derived from the open-file limit)', (c) => c.maxConnections, 0],
  ['allowed_origins (parley: none besides the server’s own)', (c) => [...c.allowedOrigins], []],
  ['collect_metrics', (c) => c.collectMetrics, true],
  ['timeout', (c) => c.timeout, 360.0],
  ['tls', (c) => c.tls, null],
  ['grpc.graceful_shutdown_timeout', (c) => c.grpc.gracefulShutdownTimeout, 3.0],
  ['grpc.maximum_concurrent_rpcs (0 means max_concurrent_requests)', (c) => c.grpc.maximumConcurrentRpcs, 100],
  ['grpc.enable_health', (c) => c.grpc.enableHealth, true],
  ['grpc.enable_reflection', (c) => c.grpc.enableReflection, true],
];

for (const [field, read, expected] of defaults) {
  test(`default ${field} is ${JSON.stringify(expected)}`, () => {
    assert.deepEqual(read(new ResolvedConfig()), expected);
  });
}

test('the serialized defaults are the spec table, in snake_case', () => {
  assert.deepEqual(new ResolvedConfig().toJSON(), {
    limits: {
      max_request_bytes: 16_777_216,
      max_response_bytes: 16_777_216,
      max_event_bytes: 4_194_304,
      max_concurrent_requests: 100,
      max_concurrent_streams: 100,
      max_concurrent_model_requests: 50,
    },
    retry: {
      max_attempts: 1,
      initial_backoff: 0.1,
      max_backoff: 2,
      jitter: 0.1,
      retryable_methods: ['DELETE', 'GET', 'POST', 'PUT'],
    },
    keepalive_interval: 20,
    keepalive_timeout: 20,
    shutdown_timeout: 5,
    idempotency_ttl: 300,
    idempotency_cache_size: 1024,
    idempotency_cache_bytes: 67_108_864,
    header_timeout: 20,
    body_timeout: 60,
    max_connections: 0,
    allowed_origins: [],
    stream_flush_interval: 0.01,
    collect_metrics: true,
    timeout: 360,
    tls: null,
    grpc: {
      maximum_concurrent_rpcs: 100,
      graceful_shutdown_timeout: 3,
      enable_health: true,
      enable_reflection: true,
      codec: 'json',
    },
  });
});

test('a transport built without options carries the defaults', async (t) => {
  const transport = await client(t, 'http', 'http://127.0.0.1:1');
  assert.deepEqual(transport.config.toJSON(), new ResolvedConfig().toJSON());
});

const rpcs: Array<[string, TransportConfigOptions, number]> = [
  ['unset follows max_concurrent_requests', { limits: { maxConcurrentRequests: 7 } }, 7],
  ['0 also means max_concurrent_requests', { limits: { maxConcurrentRequests: 7 }, grpc: { maximumConcurrentRpcs: 0 } }, 7],
  ['an explicit value wins', { limits: { maxConcurrentRequests: 7 }, grpc: { maximumConcurrentRpcs: 3 } }, 3],
];
for (const [label, options, expected] of rpcs) {
  test(`grpc maximum_concurrent_rpcs: ${label}`, () => {
    assert.equal(new ResolvedConfig(options).grpc.maximumConcurrentRpcs, expected);
  });
}

// ---- every rule: invalid values raise ConfigError (the spec's ValueError) -----------------

type Invalid = [label: string, options: TransportConfigOptions, field: string, value: unknown];

const limitFields = [
  'maxRequestBytes',
  'maxResponseBytes',
  'maxEventBytes',
  'maxConcurrentRequests',
  'maxConcurrentStreams',
] as const;
const invalid: Invalid[] = [];
for (const field of limitFields) {
  for (const value of [0, -1, 1.5, Number.NaN, Number.POSITIVE_INFINITY, '10']) {
    invalid.push([`limits.${field} = ${String(value)}`, { limits: { [field]: value } as never }, `limits.${field}`, value]);
  }
}
invalid.push(
  ['retry.maxAttempts = 0', { retry: { maxAttempts: 0 } }, 'retry.maxAttempts', 0],
  ['retry.maxAttempts = -1', { retry: { maxAttempts: -1 } }, 'retry.maxAttempts', -1],
  ['retry.maxAttempts = 2.5', { retry: { maxAttempts: 2.5 } }, 'retry.maxAttempts', 2.5],
  ['retry.initialBackoff negative', { retry: { initialBackoff: -0.1 } }, 'retry.initialBackoff', -0.1],
  ['retry.maxBackoff negative', { retry: { maxBackoff: -1 } }, 'retry.maxBackoff', -1],
  ['retry.jitter negative', { retry: { jitter: -0.01 } }, 'retry.jitter', -0.01],
  ['retry.maxBackoff below initialBackoff', { retry: { initialBackoff: 1, maxBackoff: 0.5 } }, 'retry.maxBackoff', 0.5],
  ['retry.maxBackoff below the default initialBackoff', { retry: { maxBackoff: 0.05 } }, 'retry.maxBackoff', 0.05],
  [
    'retry.retryableMethods with an empty name',
    { retry: { retryableMethods: ['GET', ''] } },
    'retry.retryableMethods',
    ['GET', ''],
  ],
  ['retry.retryableMethods not a list', { retry: { retryableMethods: 'GET' as never } }, 'retry.retryableMethods', 'GET'],
  ['keepaliveInterval = 0', { keepaliveInterval: 0 }, 'keepaliveInterval', 0],
  ['keepaliveInterval negative', { keepaliveInterval: -1 }, 'keepaliveInterval', -1],
  ['keepaliveTimeout = 0', { keepaliveTimeout: 0 }, 'keepaliveTimeout', 0],
  ['keepaliveTimeout negative', { keepaliveTimeout: -20 }, 'keepaliveTimeout', -20],
  // keepalive_interval is "Null or positive"; keepalive_timeout only "Positive".
  ['keepaliveTimeout = null', { keepaliveTimeout: null as never }, 'keepaliveTimeout', null],
  ['shutdownTimeout = 0', { shutdownTimeout: 0 }, 'shutdownTimeout', 0],
  ['idempotencyTtl = 0', { idempotencyTtl: 0 }, 'idempotencyTtl', 0],
  ['idempotencyCacheBytes = 0', { idempotencyCacheBytes: 0 }, 'idempotencyCacheBytes', 0],
  ['headerTimeout = 0', { headerTimeout: 0 }, 'headerTimeout', 0],
  ['bodyTimeout negative', { bodyTimeout: -1 }, 'bodyTimeout', -1],
  ['maxConnections = 2.5', { maxConnections: 2.5 }, 'maxConnections', 2.5],
  ['maxConnections negative', { maxConnections: -1 }, 'maxConnections', -1],
  ['idempotencyTtl negative', { idempotencyTtl: -300 }, 'idempotencyTtl', -300],
  ['idempotencyCacheSize = 0', { idempotencyCacheSize: 0 }, 'idempotencyCacheSize', 0],
  ['idempotencyCacheSize = 1.5', { idempotencyCacheSize: 1.5 }, 'idempotencyCacheSize', 1.5],
  ['collectMetrics not a boolean', { collectMetrics: 'yes' as never }, 'collectMetrics', 'yes'],
  ['timeout = 0', { timeout: 0 }, 'timeout', 0],
  ['timeout negative', { timeout: -1 }, 'timeout', -1],
  ['tls keyfile without certfile', { tls: { keyfile: 'key.pem' } }, 'tls.keyfile', 'key.pem'],
  ['tls certfile without keyfile', { tls: { certfile: 'cert.pem' } }, 'tls.keyfile', null],
  [
    'tls requireClientCert without cafile',
    { tls: { certfile: 'c.pem', keyfile: 'k.pem', requireClientCert: true } },
    'tls.cafile',
    null,
  ],
  ['tls certfile empty string', { tls: { certfile: '', keyfile: 'k.pem' } }, 'tls.certfile', ''],
  ['grpc.maximumConcurrentRpcs negative', { grpc: { maximumConcurrentRpcs: -1 } }, 'grpc.maximumConcurrentRpcs', -1],
  ['grpc.maximumConcurrentRpcs = 1.5', { grpc: { maximumConcurrentRpcs: 1.5 } }, 'grpc.maximumConcurrentRpcs', 1.5],
  ['grpc.gracefulShutdownTimeout = 0', { grpc: { gracefulShutdownTimeout: 0 } }, 'grpc.gracefulShutdownTimeout', 0],
  // null is a value of its own, allowed only where the schema says so; absent means the default.
  ['shutdownTimeout = null', { shutdownTimeout: null as never }, 'shutdownTimeout', null],
  ['limits not an object', { limits: 5 as never }, 'limits', 5],
  ['grpc = null', { grpc: null as never }, 'grpc', null],
  ['tls a string', { tls: 'cert.pem' as never }, 'tls', 'cert.pem'],
  [
    'retry.retryableMethods with a blank name',
    { retry: { retryableMethods: ['GET', '  '] } },
    'retry.retryableMethods',
    ['GET', '  '],
  ],
  ['grpc.channelOptions not an object', { grpc: { channelOptions: 'x' as never } }, 'grpc.channelOptions', 'x'],
  [
    'grpc.channelOptions with a value that is neither number nor string',
    { grpc: { channelOptions: { 'grpc.keepalive_time_ms': true as never } } },
    'grpc.channelOptions',
    { 'grpc.keepalive_time_ms': true },
  ],
);

for (const [label, options, field, value] of invalid) {
  test(`rejected: ${label}`, () => {
    assert.throws(
      () => new ResolvedConfig(options),
      (error: unknown) => {
        assert.ok(error instanceof ConfigError, `expected ConfigError, got ${String(error)}`);
        assert.ok(error instanceof RangeError, 'ConfigError is the spec ValueError (a RangeError)');
        assert.equal(error.code, 'invalid_config');
        assert.equal(error.field, field);
        assert.deepEqual(error.value, value);
        assert.ok(error.rule.length > 0, 'names the rule');
        assert.ok(error.message.includes(field), `message names the field: ${error.message}`);
        assert.ok(error.message.includes(error.rule), `message states the rule: ${error.message}`);
        return true;
      },
    );
  });
}

test('building a transport with an invalid option rejects with ConfigError', async () => {
  const error = await rejection(createTransport('http', 'http://127.0.0.1:0', { limits: { maxRequestBytes: 0 } }));
  assert.ok(error instanceof ConfigError);
  assert.equal(error.field, 'limits.maxRequestBytes');
});

const valid: Array<[string, TransportConfigOptions, (c: ResolvedConfig) => void]> = [
  ['keepalive_interval null is allowed', { keepaliveInterval: null }, (c) => assert.equal(c.keepaliveInterval, null)],
  ['max_attempts 1 (retry off)', { retry: { maxAttempts: 1 } }, (c) => assert.equal(c.retry.maxAttempts, 1)],
  [
    'zero backoff and jitter',
    { retry: { initialBackoff: 0, maxBackoff: 0, jitter: 0 } },
    (c) => assert.equal(c.retry.maxBackoff, 0),
  ],
  [
    'max_backoff equal to initial_backoff',
    { retry: { initialBackoff: 1, maxBackoff: 1 } },
    (c) => assert.equal(c.retry.maxBackoff, 1),
  ],
  ['limits of 1', { limits: { maxRequestBytes: 1, maxConcurrentRequests: 1 } }, (c) => assert.equal(c.limits.maxRequestBytes, 1)],
  [
    'mutual TLS with a cafile',
    { tls: { certfile: 'c.pem', keyfile: 'k.pem', cafile: 'ca.pem', requireClientCert: true } },
    (c) => assert.equal(c.tls?.requireClientCert, true),
  ],
  ['client TLS with only a cafile', { tls: { cafile: 'ca.pem' } }, (c) => assert.equal(c.tls?.certfile, null)],
];
for (const [label, options, check] of valid) {
  test(`accepted: ${label}`, () => check(new ResolvedConfig(options)));
}

test('retryable_methods are upper-cased (and trimmed) before matching', () => {
  const config = new ResolvedConfig({ retry: { retryableMethods: ['get', 'Post', ' delete '] } });
  assert.deepEqual([...config.retry.retryableMethods], ['GET', 'POST', 'DELETE']);
});

// ---- the serialized form ------------------------------------------------------------------

const serialized: Array<[string, TransportConfigOptions]> = [
  ['defaults', {}],
  [
    'every field set',
    {
      limits: {
        maxRequestBytes: 1000,
        maxResponseBytes: 2000,
        maxEventBytes: 300,
        maxConcurrentRequests: 4,
        maxConcurrentStreams: 2,
      },
      retry: { maxAttempts: 3, initialBackoff: 0.5, maxBackoff: 4, jitter: 0, retryableMethods: ['get'] },
      keepaliveInterval: null,
      keepaliveTimeout: 7.5,
      shutdownTimeout: 1,
      idempotencyTtl: 60,
      idempotencyCacheSize: 10,
      collectMetrics: false,
      timeout: 30,
      tls: {
        certfile: '/etc/c.pem',
        keyfile: '/etc/k.pem',
        cafile: '/etc/ca.pem',
        requireClientCert: true,
        checkHostname: false,
      },
      grpc: { maximumConcurrentRpcs: 8, gracefulShutdownTimeout: 0.5, enableHealth: false, enableReflection: false },
    },
  ],
];
for (const [label, options] of serialized) {
  test(`toJSON validates against transport-config and round-trips: ${label}`, () => {
    const config = new ResolvedConfig(options);
    const json = config.toJSON();
    const checked = validate('transport-config', json);
    assert.ok(checked.valid, JSON.stringify(checked.valid ? null : checked.errors));
    const again = ResolvedConfig.fromJSON(json);
    assert.deepEqual(again.toJSON(), json);
    assert.deepEqual(again.limits, config.limits);
    assert.deepEqual(again.retry, config.retry);
    assert.deepEqual(again.tls, config.tls);
    // Through text as well: the JSON form is the one that leaves the process.
    assert.deepEqual(ResolvedConfig.fromJSON(JSON.parse(JSON.stringify(json))).toJSON(), json);
  });
}

test('grpc channel_options survive the serialized form and still replace the derived settings', () => {
  const channelOptions = { 'grpc.max_receive_message_length': 1024, 'grpc.primary_user_agent': 'parley-test' };
  const json = new ResolvedConfig({ grpc: { channelOptions } }).toJSON();
  assert.deepEqual(json.grpc?.channel_options, channelOptions);
  assert.ok(validate('transport-config', json).valid);
  const again = ResolvedConfig.fromJSON(JSON.parse(JSON.stringify(json)));
  assert.deepEqual(again.grpc.channelOptions, channelOptions);
  assert.equal(wireOptions(again).receiveMaxBytes, 1024);
});

test('fromJSON refuses a key the schema does not have, naming it as written', () => {
  for (const [json, field] of [
    [{ limits: { max_request_byte: 5 } }, 'limits.max_request_byte'],
    [{ maxConnections: 5 }, 'maxConnections'],
  ] as const) {
    assert.throws(
      () => ResolvedConfig.fromJSON(json as never),
      (error: unknown) => error instanceof ConfigError && error.field === field && error.value === 5,
    );
  }
});

test('fromJSON of an empty object gives the defaults', () => {
  assert.deepEqual(ResolvedConfig.fromJSON({}).toJSON(), new ResolvedConfig().toJSON());
});

test('fromJSON applies the same rules (ValueError on invalid values)', () => {
  assert.throws(() => ResolvedConfig.fromJSON({ retry: { max_attempts: 0 } }), ConfigError);
  assert.throws(() => ResolvedConfig.fromJSON({ limits: { max_event_bytes: -5 } }), ConfigError);
});

test('TLS serializes as paths and flags only, never file contents', () => {
  const dir = mkdtempSync(join(tmpdir(), 'parley-tls-'));
  const secret = '-----BEGIN PRIVATE KEY-----\nSECRET-KEY-BYTES\n-----END PRIVATE KEY-----\n';
  const paths = { certfile: join(dir, 'cert.pem'), keyfile: join(dir, 'key.pem'), cafile: join(dir, 'ca.pem') };
  for (const path of Object.values(paths)) writeFileSync(path, secret);
  const json = new ResolvedConfig({ tls: { ...paths, requireClientCert: true } }).toJSON();
  assert.deepEqual(json.tls, {
    certfile: paths.certfile,
    keyfile: paths.keyfile,
    cafile: paths.cafile,
    require_client_cert: true,
    check_hostname: true,
  });
  assert.ok(!JSON.stringify(json).includes('SECRET-KEY-BYTES'));
  assert.ok(validate('transport-config', json).valid);
});

// ---- the outbound deadline can change on a live transport ----------------------------------

test('setTimeout on a live transport changes the deadline of the next call', async (t) => {
  const silent = await rawServer(t, () => undefined); // never answers
  const transport = await client(t, 'http', silent.url);
  assert.equal(transport.config.timeout, 360);
  transport.config.setTimeout(0.05);
  assert.equal(transport.config.timeout, 0.05);
  assert.equal(transport.config.toJSON().timeout, 0.05);
  const error = await rejection(new AgentOperationsClient(transport).sendTask({ id: 'late' }));
  assert.ok(error instanceof TransportTimeoutError, String(error));
  assert.equal(error.retryable, true);
});

test('setTimeout validates like the constructor and keeps the old value on failure', () => {
  const config = new ResolvedConfig({ timeout: 12 });
  for (const bad of [0, -1, Number.NaN]) {
    assert.throws(
      () => config.setTimeout(bad),
      (error: unknown) => error instanceof ConfigError && error.field === 'timeout',
    );
  }
  assert.equal(config.timeout, 12);
});

test('the resolved limits and retry policy cannot be changed', () => {
  const config = new ResolvedConfig();
  assert.throws(() => {
    (config.limits as { maxRequestBytes: number }).maxRequestBytes = 1;
  }, TypeError);
  assert.throws(() => {
    (config.retry.retryableMethods as string[]).push('PATCH');
  }, TypeError);
});

test('limits.max_concurrent_model_requests 0 is half the smaller slot count, at least 1; any other value is kept', () => {
  const model = (limits: Record<string, number>) => new ResolvedConfig({ limits }).limits.maxConcurrentModelRequests;
  assert.equal(model({ maxConcurrentRequests: 10, maxConcurrentStreams: 40 }), 5);
  assert.equal(model({ maxConcurrentRequests: 40, maxConcurrentStreams: 7 }), 3);
  assert.equal(model({ maxConcurrentRequests: 1 }), 1);
  assert.equal(model({ maxConcurrentModelRequests: 80 }), 80);
  assert.throws(() => model({ maxConcurrentModelRequests: -1 }), ConfigError);
});
