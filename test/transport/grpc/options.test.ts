// The wire settings the grpc transport derives from the limits, and the explicit channel
// options that replace them.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { ConfigError } from '../../../src/core/errors.js';
import { ResolvedConfig } from '../../../src/transport/config.js';
import { ENVELOPE_ROOM } from '../../../src/transport/envelope.js';
import { BINARY_EXPANSION, MAX_MESSAGE_BYTES, wireOptions } from '../../../src/transport/grpc/options.js';

describe('grpc wire options', () => {
  it('message sizes: the largest payload limit, as binary protobuf may grow it, plus envelope room', () => {
    const wire = wireOptions(
      new ResolvedConfig({ limits: { maxRequestBytes: 1000, maxResponseBytes: 3000, maxEventBytes: 2000 } }),
    );
    assert.equal(wire.receiveMaxBytes, 3000 * BINARY_EXPANSION + ENVELOPE_ROOM);
    assert.equal(wire.sendMaxBytes, wire.receiveMaxBytes);
  });

  it('a server receives requests only: max_request_bytes plus envelope room, however large the other limits', () => {
    const config = new ResolvedConfig({ limits: { maxRequestBytes: 1000, maxResponseBytes: 3000, maxEventBytes: 2000 } });
    const wire = wireOptions(config, 'server');
    assert.equal(wire.receiveMaxBytes, 1000 + ENVELOPE_ROOM);
    assert.equal(wire.sendMaxBytes, wireOptions(config, 'client').sendMaxBytes);
    const explicit = new ResolvedConfig({ grpc: { channelOptions: { 'grpc.max_receive_message_length': 5000 } } });
    assert.equal(wireOptions(explicit, 'server').receiveMaxBytes, 5000);
  });

  it('never past the 32-bit length of a gRPC frame', () => {
    const wire = wireOptions(new ResolvedConfig({ limits: { maxResponseBytes: 2 ** 31 } }));
    assert.equal(wire.receiveMaxBytes, MAX_MESSAGE_BYTES);
  });

  it('keepalive from keepalive_interval and keepalive_timeout; a null interval sends no pings', () => {
    const wire = wireOptions(new ResolvedConfig({ keepaliveInterval: 20, keepaliveTimeout: 5 }));
    assert.equal(wire.keepaliveTimeMs, 20_000);
    assert.equal(wire.keepaliveTimeoutMs, 5_000);
    assert.equal(wireOptions(new ResolvedConfig({ keepaliveInterval: null })).keepaliveTimeMs, 0);
  });

  it('the HTTP/2 stream limit leaves room for every RPC slot and stream slot', () => {
    const wire = wireOptions(new ResolvedConfig({ limits: { maxConcurrentRequests: 10, maxConcurrentStreams: 4 } }));
    // maximum_concurrent_rpcs 0 (the default) means max_concurrent_requests.
    assert.equal(wire.maxConcurrentStreams, 14);
    const explicit = wireOptions(new ResolvedConfig({ limits: { maxConcurrentStreams: 4 }, grpc: { maximumConcurrentRpcs: 3 } }));
    assert.equal(explicit.maxConcurrentStreams, 7);
  });

  it('explicit channel options replace the derived values', () => {
    const wire = wireOptions(
      new ResolvedConfig({
        grpc: {
          channelOptions: {
            'grpc.max_receive_message_length': 1024,
            'grpc.max_send_message_length': -1,
            'grpc.keepalive_time_ms': 0,
            'grpc.keepalive_timeout_ms': '250',
            'grpc.max_concurrent_streams': 9,
            'grpc.primary_user_agent': 'ignored',
          },
        },
      }),
    );
    assert.deepEqual(wire, {
      receiveMaxBytes: 1024,
      sendMaxBytes: MAX_MESSAGE_BYTES,
      keepaliveTimeMs: 0,
      keepaliveTimeoutMs: 250,
      maxConcurrentStreams: 9,
    });
  });

  it('rejects channel option values that make no sense, naming the option', () => {
    for (const [key, value] of [
      ['grpc.max_receive_message_length', 0],
      ['grpc.max_send_message_length', 'lots'],
      ['grpc.keepalive_time_ms', -5],
      ['grpc.max_concurrent_streams', 0],
    ] as const) {
      const config = new ResolvedConfig({ grpc: { channelOptions: { [key]: value } } });
      assert.throws(
        () => wireOptions(config),
        (error: unknown) => error instanceof ConfigError && error.field.includes(key),
      );
    }
  });
});
