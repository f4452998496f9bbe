// Transport configuration: the camelCase options users write, resolved against the spec's
// defaults and checked once, when the transport is built. Durations are seconds, as in the
// spec and the serialized form (schemas/config/transport-config.ts).
import { ConfigError } from '../core/errors.js';
import type { TransportConfig } from '../../generated/types/index.js';

export interface LimitsOptions {
  maxRequestBytes?: number;
  maxResponseBytes?: number;
  maxEventBytes?: number;
  maxConcurrentRequests?: number;
  maxConcurrentStreams?: number;
}

export interface RetryOptions {
  maxAttempts?: number;
  initialBackoff?: number;
  maxBackoff?: number;
  jitter?: number;
  retryableMethods?: readonly string[];
}

export interface TlsOptions {
  certfile?: string | null;
  keyfile?: string | null;
  cafile?: string | null;
  requireClientCert?: boolean;
  checkHostname?: boolean;
}

export interface GrpcOptions {
  maximumConcurrentRpcs?: number;
  gracefulShutdownTimeout?: number;
  enableHealth?: boolean;
  enableReflection?: boolean;
  /** Client message codec: `json` (default) or binary `proto`. */
  codec?: 'json' | 'proto';
  /** Raw channel/server options that replace the ones derived from the limits. */
  channelOptions?: Readonly<Record<string, number | string>>;
}

export interface TransportConfigOptions {
  limits?: LimitsOptions;
  retry?: RetryOptions;
  keepaliveInterval?: number | null;
  keepaliveTimeout?: number;
  shutdownTimeout?: number;
  idempotencyTtl?: number;
  idempotencyCacheSize?: number;
  idempotencyCacheBytes?: number;
  headerTimeout?: number;
  bodyTimeout?: number;
  maxConnections?: number;
  collectMetrics?: boolean;
  /** Outbound request deadline; the receive deadline on WebSocket. */
  timeout?: number;
  tls?: TlsOptions | null;
  grpc?: GrpcOptions;
}

export interface Limits {
  readonly maxRequestBytes: number;
  readonly maxResponseBytes: number;
  readonly maxEventBytes: number;
  readonly maxConcurrentRequests: number;
  readonly maxConcurrentStreams: number;
}

export interface Retry {
  readonly maxAttempts: number;
  readonly initialBackoff: number;
  readonly maxBackoff: number;
  readonly jitter: number;
  readonly retryableMethods: readonly string[];
}

export interface Tls {
  readonly certfile: string | null;
  readonly keyfile: string | null;
  readonly cafile: string | null;
  readonly requireClientCert: boolean;
  readonly checkHostname: boolean;
}

export interface Grpc {
  readonly maximumConcurrentRpcs: number;
  readonly gracefulShutdownTimeout: number;
  readonly enableHealth: boolean;
  readonly enableReflection: boolean;
  readonly codec: 'json' | 'proto';
  readonly channelOptions: Readonly<Record<string, number | string>>;
}

export const DEFAULT_LIMITS: Limits = Object.freeze({
  maxRequestBytes: 16_777_216,
  maxResponseBytes: 16_777_216,
  maxEventBytes: 4_194_304,
  maxConcurrentRequests: 100,
  maxConcurrentStreams: 100,
});

export const DEFAULT_RETRY: Retry = Object.freeze({
  maxAttempts: 1,
  initialBackoff: 0.1,
  maxBackoff: 2.0,
  jitter: 0.1,
  retryableMethods: Object.freeze(['DELETE', 'GET', 'POST', 'PUT']),
});

/** A validated, frozen transport configuration. */
export class ResolvedConfig {
  readonly limits: Limits;
  readonly retry: Retry;
  readonly keepaliveInterval: number | null;
  readonly keepaliveTimeout: number;
  readonly shutdownTimeout: number;
  readonly idempotencyTtl: number;
  readonly idempotencyCacheSize: number;
  readonly idempotencyCacheBytes: number;
  readonly headerTimeout: number;
  readonly bodyTimeout: number;
  readonly maxConnections: number;
  readonly collectMetrics: boolean;
  /** Mutable on a live transport, as the spec allows. */
  timeout: number;
  readonly tls: Tls | null;
  readonly grpc: Grpc;

  constructor(options: TransportConfigOptions = {}) {
    this.limits = resolveLimits(options.limits ?? {});
    this.retry = resolveRetry(options.retry ?? {});
    this.keepaliveInterval =
      options.keepaliveInterval === null ? null : positive('keepaliveInterval', options.keepaliveInterval ?? 20);
    this.keepaliveTimeout = positive('keepaliveTimeout', options.keepaliveTimeout === undefined ? 20 : options.keepaliveTimeout);
    this.shutdownTimeout = positive('shutdownTimeout', options.shutdownTimeout ?? 5);
    this.idempotencyTtl = positive('idempotencyTtl', options.idempotencyTtl ?? 300);
    this.idempotencyCacheSize = positiveInteger('idempotencyCacheSize', options.idempotencyCacheSize ?? 1024);
    this.idempotencyCacheBytes = positiveInteger('idempotencyCacheBytes', options.idempotencyCacheBytes ?? 67_108_864);
    this.headerTimeout = positive('headerTimeout', options.headerTimeout ?? 20);
    this.bodyTimeout = positive('bodyTimeout', options.bodyTimeout ?? 60);
    this.maxConnections = positiveInteger('maxConnections', options.maxConnections ?? 512);
    this.collectMetrics = bool('collectMetrics', options.collectMetrics ?? true);
    this.timeout = positive('timeout', options.timeout ?? 360);
    this.tls = options.tls ? resolveTls(options.tls) : null;
    this.grpc = resolveGrpc(options.grpc ?? {}, this.limits);
    Object.freeze(this.limits);
  }

  /** Sets the outbound deadline of a live transport. */
  setTimeout(seconds: number): void {
    this.timeout = positive('timeout', seconds);
  }

  /** The serialized form: paths and flags only, never certificate or key bytes. */
  toJSON(): TransportConfig {
    return {
      limits: {
        max_request_bytes: this.limits.maxRequestBytes,
        max_response_bytes: this.limits.maxResponseBytes,
        max_event_bytes: this.limits.maxEventBytes,
        max_concurrent_requests: this.limits.maxConcurrentRequests,
        max_concurrent_streams: this.limits.maxConcurrentStreams,
      },
      retry: {
        max_attempts: this.retry.maxAttempts,
        initial_backoff: this.retry.initialBackoff,
        max_backoff: this.retry.maxBackoff,
        jitter: this.retry.jitter,
        retryable_methods: [...this.retry.retryableMethods],
      },
      keepalive_interval: this.keepaliveInterval,
      keepalive_timeout: this.keepaliveTimeout,
      shutdown_timeout: this.shutdownTimeout,
      idempotency_ttl: this.idempotencyTtl,
      idempotency_cache_size: this.idempotencyCacheSize,
      idempotency_cache_bytes: this.idempotencyCacheBytes,
      header_timeout: this.headerTimeout,
      body_timeout: this.bodyTimeout,
      max_connections: this.maxConnections,
      collect_metrics: this.collectMetrics,
      timeout: this.timeout,
      tls: this.tls && {
        certfile: this.tls.certfile,
        keyfile: this.tls.keyfile,
        cafile: this.tls.cafile,
        require_client_cert: this.tls.requireClientCert,
        check_hostname: this.tls.checkHostname,
      },
      grpc: {
        maximum_concurrent_rpcs: this.grpc.maximumConcurrentRpcs,
        graceful_shutdown_timeout: this.grpc.gracefulShutdownTimeout,
        enable_health: this.grpc.enableHealth,
        enable_reflection: this.grpc.enableReflection,
        codec: this.grpc.codec,
      },
    };
  }

  /** Reads the serialized form back (the inverse of toJSON). */
  static fromJSON(config: TransportConfig): ResolvedConfig {
    const limits = config.limits ?? {};
    const retry = config.retry ?? {};
    const tls = config.tls;
    const grpc = config.grpc ?? {};
    return new ResolvedConfig({
      limits: {
        maxRequestBytes: limits.max_request_bytes,
        maxResponseBytes: limits.max_response_bytes,
        maxEventBytes: limits.max_event_bytes,
        maxConcurrentRequests: limits.max_concurrent_requests,
        maxConcurrentStreams: limits.max_concurrent_streams,
      },
      retry: {
        maxAttempts: retry.max_attempts,
        initialBackoff: retry.initial_backoff,
        maxBackoff: retry.max_backoff,
        jitter: retry.jitter,
        retryableMethods: retry.retryable_methods,
      },
      keepaliveInterval: config.keepalive_interval,
      keepaliveTimeout: config.keepalive_timeout,
      shutdownTimeout: config.shutdown_timeout,
      idempotencyTtl: config.idempotency_ttl,
      idempotencyCacheSize: config.idempotency_cache_size,
      idempotencyCacheBytes: config.idempotency_cache_bytes,
      headerTimeout: config.header_timeout,
      bodyTimeout: config.body_timeout,
      maxConnections: config.max_connections,
      collectMetrics: config.collect_metrics,
      timeout: config.timeout,
      tls: tls && {
        certfile: tls.certfile,
        keyfile: tls.keyfile,
        cafile: tls.cafile,
        requireClientCert: tls.require_client_cert,
        checkHostname: tls.check_hostname,
      },
      grpc: {
        maximumConcurrentRpcs: grpc.maximum_concurrent_rpcs,
        gracefulShutdownTimeout: grpc.graceful_shutdown_timeout,
        enableHealth: grpc.enable_health,
        enableReflection: grpc.enable_reflection,
        codec: grpc.codec,
      },
    });
  }
}

function resolveLimits(options: LimitsOptions): Limits {
  return {
    maxRequestBytes: positiveInteger('limits.maxRequestBytes', options.maxRequestBytes ?? DEFAULT_LIMITS.maxRequestBytes),
    maxResponseBytes: positiveInteger('limits.maxResponseBytes', options.maxResponseBytes ?? DEFAULT_LIMITS.maxResponseBytes),
    maxEventBytes: positiveInteger('limits.maxEventBytes', options.maxEventBytes ?? DEFAULT_LIMITS.maxEventBytes),
    maxConcurrentRequests: positiveInteger(
      'limits.maxConcurrentRequests',
      options.maxConcurrentRequests ?? DEFAULT_LIMITS.maxConcurrentRequests,
    ),
    maxConcurrentStreams: positiveInteger(
      'limits.maxConcurrentStreams',
      options.maxConcurrentStreams ?? DEFAULT_LIMITS.maxConcurrentStreams,
    ),
  };
}

function resolveRetry(options: RetryOptions): Retry {
  const maxAttempts = positiveInteger('retry.maxAttempts', options.maxAttempts ?? DEFAULT_RETRY.maxAttempts);
  const initialBackoff = nonNegative('retry.initialBackoff', options.initialBackoff ?? DEFAULT_RETRY.initialBackoff);
  const maxBackoff = nonNegative('retry.maxBackoff', options.maxBackoff ?? DEFAULT_RETRY.maxBackoff);
  if (maxBackoff < initialBackoff) {
    throw new ConfigError('retry.maxBackoff', maxBackoff, `must not be below retry.initialBackoff (${initialBackoff})`);
  }
  const jitter = nonNegative('retry.jitter', options.jitter ?? DEFAULT_RETRY.jitter);
  const methods = options.retryableMethods ?? DEFAULT_RETRY.retryableMethods;
  if (!Array.isArray(methods) || methods.some((method) => typeof method !== 'string' || method.trim() === '')) {
    throw new ConfigError('retry.retryableMethods', methods, 'must be a list of HTTP method names');
  }
  return {
    maxAttempts,
    initialBackoff,
    maxBackoff,
    jitter,
    retryableMethods: Object.freeze(methods.map((method) => method.trim().toUpperCase())),
  };
}

function resolveTls(options: TlsOptions): Tls {
  const tls: Tls = {
    certfile: optionalPath('tls.certfile', options.certfile),
    keyfile: optionalPath('tls.keyfile', options.keyfile),
    cafile: optionalPath('tls.cafile', options.cafile),
    requireClientCert: bool('tls.requireClientCert', options.requireClientCert ?? false),
    checkHostname: bool('tls.checkHostname', options.checkHostname ?? true),
  };
  if ((tls.certfile === null) !== (tls.keyfile === null)) {
    throw new ConfigError('tls.keyfile', tls.keyfile, 'certfile and keyfile must be given together');
  }
  if (tls.requireClientCert && tls.cafile === null) {
    throw new ConfigError('tls.cafile', null, 'requireClientCert needs a cafile to trust client certificates');
  }
  return Object.freeze(tls);
}

function resolveGrpc(options: GrpcOptions, limits: Limits): Grpc {
  const rpcs = options.maximumConcurrentRpcs ?? 0;
  if (!Number.isInteger(rpcs) || rpcs < 0) {
    throw new ConfigError('grpc.maximumConcurrentRpcs', rpcs, 'must be a non-negative integer (0 means limits.maxConcurrentRequests)');
  }
  return Object.freeze({
    maximumConcurrentRpcs: rpcs === 0 ? limits.maxConcurrentRequests : rpcs,
    gracefulShutdownTimeout: positive('grpc.gracefulShutdownTimeout', options.gracefulShutdownTimeout ?? 3),
    enableHealth: bool('grpc.enableHealth', options.enableHealth ?? true),
    enableReflection: bool('grpc.enableReflection', options.enableReflection ?? true),
    codec: oneOf('grpc.codec', options.codec ?? 'json', ['json', 'proto'] as const),
    channelOptions: Object.freeze({ ...(options.channelOptions ?? {}) }),
  });
}

function positive(field: string, value: unknown): number {
  if (typeof value !== 'number' || !Number.isFinite(value) || value <= 0) {
    throw new ConfigError(field, value, 'must be a positive number');
  }
  return value;
}

function nonNegative(field: string, value: unknown): number {
  if (typeof value !== 'number' || !Number.isFinite(value) || value < 0) {
    throw new ConfigError(field, value, 'must be a number that is not negative');
  }
  return value;
}

function positiveInteger(field: string, value: unknown): number {
  if (typeof value !== 'number' || !Number.isSafeInteger(value) || value <= 0) {
    throw new ConfigError(field, value, 'must be a positive integer');
  }
  return value;
}

function oneOf<T extends string>(field: string, value: unknown, allowed: readonly T[]): T {
  if (!allowed.includes(value as T)) throw new ConfigError(field, value, `must be one of ${allowed.join(', ')}`);
  return value as T;
}

function bool(field: string, value: unknown): boolean {
  if (typeof value !== 'boolean') throw new ConfigError(field, value, 'must be true or false');
  return value;
}

function optionalPath(field: string, value: unknown): string | null {
  if (value === undefined || value === null) return null;
  if (typeof value !== 'string' || value === '') throw new ConfigError(field, value, 'must be a file path or null');
  return value;
}
