// Transport configuration: the camelCase options users write, resolved against the spec's
// defaults and checked once, when the transport is built. Durations are seconds, as in the
// spec and the serialized form. The fields, their defaults, their per-field rules and both
// names of each come from the schema (schemas/config/transport-config.ts, through codegen);
// this file adds what the schema cannot say: the rules that tie two fields together.
import { ConfigError } from '../core/errors.js';
import type { TransportConfig } from '../../generated/types/index.js';
import {
  TRANSPORT_CONFIG_FIELDS,
  type ConfigField,
  type Limits,
  type ResolvedConfigFields,
  type Retry,
  type TransportConfigOptions,
} from '../../generated/config/transport-config.js';
import { checkField, fromWire, isPlainObject, resolveEntries, toWire } from './config-fields.js';
import { resolveTls, type Tls } from '../tls/tls-settings.js';
import { resolveGrpc, type Grpc } from './grpc/options.js';
import { normalizeAllowedOrigin } from './browser-origin.js';

export type {
  Limits,
  LimitsOptions,
  Retry,
  RetryOptions,
  TransportConfigOptions,
} from '../../generated/config/transport-config.js';
export type { TlsOptions } from '../tls/tls-settings.js';
export type { GrpcOptions } from './grpc/options.js';

const TIMEOUT = TRANSPORT_CONFIG_FIELDS.find(
  (entry): entry is ConfigField => entry.kind === 'field' && entry.name === 'timeout',
)!;

/** A validated transport configuration; every section is frozen, only `timeout` can change. */
export interface ResolvedConfig extends Omit<ResolvedConfigFields, 'timeout'> {
  /** Outbound request deadline in seconds (the receive deadline on WebSocket); see setTimeout. */
  timeout: number;
}

// The fields are declared by the generated interface merged above and filled in by the
// constructor, so a new option needs no change here.
// biome-ignore lint/suspicious/noUnsafeDeclarationMerging: the merged interface is the generated field list, and the constructor assigns every field of it.
export class ResolvedConfig {
  constructor(options: TransportConfigOptions = {}) {
    const values = resolveEntries(TRANSPORT_CONFIG_FIELDS, options as Record<string, unknown>, '');
    values.retry = Object.freeze(resolveRetry(values.retry as Retry));
    values.tls = values.tls === null ? null : Object.freeze(resolveTls(values.tls as Tls));
    values.grpc = Object.freeze(resolveGrpc(values.grpc as Grpc, values.limits as Limits));
    values.limits = Object.freeze(resolveLimits(values.limits as Limits));
    // Each origin in the form browsers send it, so the per-request check is a set lookup.
    values.allowedOrigins = Object.freeze(
      (values.allowedOrigins as string[]).map((entry) => normalizeAllowedOrigin(entry, 'allowedOrigins')),
    );
    Object.assign(this, values);
  }

  /** Sets the outbound deadline of a live transport. */
  setTimeout(seconds: number): void {
    this.timeout = checkField(TIMEOUT, seconds, 'timeout') as number;
  }

  /** The serialized form: paths and flags only, never certificate or key bytes. */
  toJSON(): TransportConfig {
    return toWire(TRANSPORT_CONFIG_FIELDS, this as unknown as Record<string, unknown>) as TransportConfig;
  }

  /** Reads the serialized form back (the inverse of toJSON), by the same rules. */
  static fromJSON(config: TransportConfig): ResolvedConfig {
    if (!isPlainObject(config)) throw new ConfigError('transport config', config, 'must be an object');
    return new ResolvedConfig(fromWire(TRANSPORT_CONFIG_FIELDS, config, '') as TransportConfigOptions);
  }
}

/**
 * The limits' rule that ties fields together: 0 model-backed requests at once means half of
 * the smaller slot count, so model work alone never takes every slot.
 */
function resolveLimits(limits: Limits): Limits {
  if (limits.maxConcurrentModelRequests !== 0) return limits;
  const share = Math.floor(Math.min(limits.maxConcurrentRequests, limits.maxConcurrentStreams) / 2);
  return { ...limits, maxConcurrentModelRequests: Math.max(1, share) };
}

/** The retry section's rules beyond single fields: backoff order, and method names normalized. */
function resolveRetry(retry: Retry): Retry {
  if (retry.maxBackoff < retry.initialBackoff) {
    const rule = `must not be below retry.initialBackoff (${retry.initialBackoff})`;
    throw new ConfigError('retry.maxBackoff', retry.maxBackoff, rule);
  }
  const methods = retry.retryableMethods.map((method) => method.trim().toUpperCase());
  if (methods.includes('')) {
    throw new ConfigError('retry.retryableMethods', retry.retryableMethods, 'must be a list of HTTP method names');
  }
  return { ...retry, retryableMethods: Object.freeze(methods) };
}

const DEFAULTS = new ResolvedConfig();
export const DEFAULT_LIMITS: Limits = DEFAULTS.limits;
export const DEFAULT_RETRY: Retry = DEFAULTS.retry;
