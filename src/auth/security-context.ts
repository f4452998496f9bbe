// SecurityContext helpers: making a context with the spec's defaults, and the local expiry
// check. The check never contacts an issuer; it compares `expires_at` with the current UTC time.
import type { SecurityContext } from '../../generated/types/index.js';
import { nowIso } from '../core/clock.js';
import { InvalidArgumentError } from '../core/errors.js';

export interface SecurityContextInit {
  readonly principalId: string;
  readonly token: string;
  readonly expiresAt?: string | null;
  readonly issuedAt?: string;
  readonly metadata?: Record<string, unknown>;
}

/** A context with the spec's defaults: no expiry, issued now, a fresh empty metadata object. */
export function createSecurityContext(init: SecurityContextInit): SecurityContext {
  return {
    principal_id: init.principalId,
    token: init.token,
    expires_at: init.expiresAt ?? null,
    issued_at: init.issuedAt ?? nowIso(),
    metadata: init.metadata ?? {},
  };
}

/** Spec `TypeError`: a timestamp without a time zone cannot be compared with UTC. */
export class NaiveTimestampError extends TypeError {
  readonly code = 'naive_timestamp';
  constructor(readonly value: string) {
    super(`timestamp ${JSON.stringify(value)} has no time zone; write it with Z or an offset such as +00:00`);
    this.name = 'NaiveTimestampError';
  }
}

// An ISO 8601 date-time: date, time, optional fraction, then the zone (absent means naive).
const ISO_DATE_TIME = /^(\d{4}-\d{2}-\d{2})[Tt ](\d{2}:\d{2}(?::\d{2}(?:\.\d+)?)?)(Z|z|[+-]\d{2}:?\d{2})?$/;

/** Milliseconds since the epoch of an ISO 8601 timestamp that carries a time zone. */
function parseZonedTimestamp(value: string): number {
  const match = ISO_DATE_TIME.exec(value);
  if (!match)
    throw new InvalidArgumentError(`timestamp ${JSON.stringify(value)} is not an ISO 8601 date-time`, 'invalid_timestamp');
  const [, date, time, zone] = match;
  if (zone === undefined) throw new NaiveTimestampError(value);
  const offset = zone.toUpperCase() === 'Z' ? 'Z' : `${zone.slice(0, 3)}:${zone.slice(-2)}`;
  // Date.parse refuses most out-of-range fields (month 13, hour 25) but rolls February 30 over.
  const [year, month, day] = date!.split('-').map(Number) as [number, number, number];
  const ms = Date.parse(`${date}T${time}${offset}`);
  if (Number.isNaN(ms) || day > new Date(Date.UTC(year, month, 0)).getUTCDate())
    throw new InvalidArgumentError(`timestamp ${JSON.stringify(value)} is not a valid date-time`, 'invalid_timestamp');
  return ms;
}

/**
 * True once the current UTC time is later than `expires_at` (exactly at it, not yet); false
 * when there is no expiry. An unparseable `expires_at` is an InvalidArgumentError, one without
 * a time zone a NaiveTimestampError.
 */
export function isExpired(context: Pick<SecurityContext, 'expires_at'>, now: Date = new Date()): boolean {
  const expiresAt = context.expires_at;
  if (expiresAt === null || expiresAt === undefined) return false;
  if (typeof expiresAt !== 'string') {
    throw new InvalidArgumentError(
      `expires_at must be an ISO 8601 timestamp or null (got ${JSON.stringify(expiresAt)})`,
      'invalid_timestamp',
    );
  }
  return now.getTime() > parseZonedTimestamp(expiresAt);
}

/**
 * Milliseconds since the epoch at which a context's credential stops counting, for servers
 * that keep a context beyond its authentication (a websocket connection, a stream): null when
 * there is no expiry, or when `expires_at` is no absolute zoned timestamp (OAuth delegation
 * copies `expires_in`, relative seconds, as it stands), so nothing can be enforced.
 */
export function expiryTime(context: Pick<SecurityContext, 'expires_at'>): number | null {
  const expiresAt = context.expires_at;
  if (typeof expiresAt !== 'string') return null;
  try {
    return parseZonedTimestamp(expiresAt);
  } catch {
    return null;
  }
}
