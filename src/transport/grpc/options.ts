// The gRPC wire settings derived from the transport configuration, and the explicit
// `grpc.channelOptions` that replace them. Channel option keys follow gRPC core's names, so
// settings written for grpcio or grpc-js mean the same here:
//
//   | key                              | replaces                                      |
//   |----------------------------------|-----------------------------------------------|
//   | grpc.max_receive_message_length  | the derived receive limit (-1: unlimited)     |
//   | grpc.max_send_message_length     | the derived send limit (-1: unlimited)        |
//   | grpc.keepalive_time_ms           | keepalive_interval (0: no keepalive pings)    |
//   | grpc.keepalive_timeout_ms        | keepalive_timeout                             |
//   | grpc.max_concurrent_streams      | the HTTP/2 per-connection stream limit        |
//
// Other keys go to grpc-js unchanged, on the server and on the client's channels.
//
// The two sides derive their receive limit differently. A server receives requests only, so it
// accepts a message of at most `max_request_bytes` plus the envelope room, measured after
// decompression: that bound is what keeps a hostile message from costing more memory than an
// honest one may. (A binary protobuf request is measured as sent; one whose binary form is
// larger than its JSON, a long list of small numbers, can need the explicit option.) A client
// receives what any server sends, in either codec, so its limits keep room for binary growth.
import { ConfigError } from '../../core/errors.js';
import type { ResolvedConfig } from '../config.js';
import type { Grpc, Limits } from '../../../generated/config/transport-config.js';
import { ENVELOPE_ROOM } from '../envelope.js';

/** The largest gRPC message length: the frame prefix holds a 32-bit length. */
export const MAX_MESSAGE_BYTES = 0xffff_ffff;

/**
 * How much larger than its JSON text a payload can get in binary protobuf. The worst case is
 * a list of one-digit numbers: `1,` is 2 bytes of JSON and 11 bytes as a ListValue element
 * (tag, length, and a Value holding a tag and an 8-byte double).
 */
export const BINARY_EXPANSION = 6;

export interface WireOptions {
  /** Largest message accepted, in bytes. */
  readonly receiveMaxBytes: number;
  /** Largest message sent, in bytes. */
  readonly sendMaxBytes: number;
  /** HTTP/2 PING interval in ms; 0 sends none. */
  readonly keepaliveTimeMs: number;
  /** How long a PING may go unanswered before the connection is dropped, in ms. */
  readonly keepaliveTimeoutMs: number;
  /** SETTINGS_MAX_CONCURRENT_STREAMS a server announces for each connection. */
  readonly maxConcurrentStreams: number;
}

/** Which end of a call the options are for: the receive limit differs (see above). */
export type WireRole = 'server' | 'client';

export function wireOptions(config: ResolvedConfig, role: WireRole = 'client'): WireOptions {
  const { limits, grpc } = config;
  const largest = Math.max(limits.maxRequestBytes, limits.maxResponseBytes, limits.maxEventBytes);
  const derived = Math.min(MAX_MESSAGE_BYTES, largest * BINARY_EXPANSION + ENVELOPE_ROOM);
  const receive = role === 'server' ? Math.min(MAX_MESSAGE_BYTES, limits.maxRequestBytes + ENVELOPE_ROOM) : derived;
  const options = grpc.channelOptions;
  return {
    receiveMaxBytes: messageLength(options, 'grpc.max_receive_message_length', receive),
    sendMaxBytes: messageLength(options, 'grpc.max_send_message_length', derived),
    keepaliveTimeMs: integerAtLeast(
      0,
      options,
      'grpc.keepalive_time_ms',
      config.keepaliveInterval === null ? 0 : millis(config.keepaliveInterval),
    ),
    keepaliveTimeoutMs: integerAtLeast(1, options, 'grpc.keepalive_timeout_ms', millis(config.keepaliveTimeout)),
    // Room for every RPC slot and every stream slot on one connection, so a parley client
    // with the same limits never waits on the HTTP/2 layer; the RPC slots do the limiting.
    maxConcurrentStreams: integerAtLeast(
      1,
      options,
      'grpc.max_concurrent_streams',
      grpc.maximumConcurrentRpcs + limits.maxConcurrentStreams,
    ),
  };
}

function messageLength(options: Readonly<Record<string, number | string>>, key: string, fallback: number): number {
  if (!(key in options)) return fallback;
  const value = Number(options[key]);
  if (value === -1) return MAX_MESSAGE_BYTES;
  if (!Number.isSafeInteger(value) || value <= 0) {
    throw new ConfigError(`grpc.channelOptions["${key}"]`, options[key], 'must be a positive integer or -1 (unlimited)');
  }
  return Math.min(value, MAX_MESSAGE_BYTES);
}

function integerAtLeast(
  minimum: number,
  options: Readonly<Record<string, number | string>>,
  key: string,
  fallback: number,
): number {
  if (!(key in options)) return fallback;
  const value = Number(options[key]);
  if (!Number.isSafeInteger(value) || value < minimum) {
    throw new ConfigError(`grpc.channelOptions["${key}"]`, options[key], `must be an integer of at least ${minimum}`);
  }
  return value;
}

function millis(seconds: number): number {
  return Math.max(1, Math.round(seconds * 1000));
}

// ---- the grpc section of the transport configuration --------------------------------------

export type { Grpc, GrpcOptions } from '../../../generated/config/transport-config.js';

/**
 * Applies the grpc section's rule that depends on another section: 0 RPCs at once means
 * limits.maxConcurrentRequests. Per-field rules and defaults are applied before this runs.
 */
export function resolveGrpc(grpc: Grpc, limits: Limits): Grpc {
  return grpc.maximumConcurrentRpcs === 0 ? { ...grpc, maximumConcurrentRpcs: limits.maxConcurrentRequests } : grpc;
}
