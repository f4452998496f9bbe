// A credential's expiry, for what outlives the authentication that let it in: a websocket
// connection (authenticated once, at its handshake) and a stream (authenticated once, when it
// opened). Each request of a connection is checked against the expiry; a stream ends with an
// `unauthenticated` error event when it passes; the websocket connection also closes then
// (its close is in websocket/server-connection.ts). A request authenticated on its own is the
// authenticator's to judge (a JWT leeway included), so it is not checked again here.
import type { SecurityContext } from '../../generated/types/index.js';
import { expiryTime } from '../auth/security-context.js';
import { EndpointError } from './endpoint-error.js';

/** The message of the refusal, on every wire. */
export const CREDENTIALS_EXPIRED = 'the credentials expired';

/** setTimeout fires at once for a delay beyond this (about 24.8 days): longer waits are chained. */
const MAX_TIMER_MS = 2 ** 31 - 1;

/** A context's `expires_at` as last parsed, and what it parsed to. */
interface ParsedExpiry {
  readonly text: unknown;
  readonly at: number | null;
}

/**
 * The expiry each context was last found to have. A websocket connection's context is checked
 * on every request of the connection; the timestamp is parsed again only when the text changed
 * (a revocation that moved it), not per request. Weak: a context forgotten is dropped.
 */
const parsed = new WeakMap<SecurityContext, ParsedExpiry>();

/** When the context's credential stops counting (ms since the epoch), or null when never. */
export function expiryOf(security: SecurityContext | null | undefined): number | null {
  if (!security) return null;
  const text = security.expires_at;
  const known = parsed.get(security);
  if (known && known.text === text) return known.at;
  const at = expiryTime(security);
  parsed.set(security, { text, at });
  return at;
}

/** Whether `at` (from expiryOf) has passed: expired only once the clock is later than it. */
export function hasExpired(at: number | null): boolean {
  return at !== null && Date.now() > at;
}

export function credentialsExpired(): EndpointError {
  return new EndpointError('unauthenticated', CREDENTIALS_EXPIRED);
}

/** Refuses a request whose (kept) security context has expired. */
export function assertNotExpired(security: SecurityContext | null | undefined): void {
  if (hasExpired(expiryOf(security))) throw credentialsExpired();
}

/**
 * Calls `expired` once the clock has passed `at`; returns a function that stops waiting. The
 * timer does not hold the process open, and one that fires early (timers and the wall clock
 * may disagree by a millisecond) waits again for the rest.
 */
export function whenExpired(at: number, expired: () => void): () => void {
  let timer: NodeJS.Timeout | null = null;
  const wait = () => {
    const left = at - Date.now();
    if (left < 0) {
      timer = null;
      expired();
      return;
    }
    timer = setTimeout(wait, Math.min(left + 1, MAX_TIMER_MS));
    timer.unref();
  };
  wait();
  return () => {
    if (timer) clearTimeout(timer);
    timer = null;
  };
}

/**
 * The items of `source` until the clock passes `at`; then the wait for the next item is given
 * up, the source is closed (which stops the work it was doing for this caller) and the
 * `unauthenticated` refusal is thrown, for the dispatcher to send as the stream's last event.
 */
export async function* untilExpired<T>(source: AsyncIterable<T>, at: number): AsyncGenerator<T, void, undefined> {
  const iterator = source[Symbol.asyncIterator]();
  // The pending step's rejection, while a step is awaited: expiry fails that step. (Not a race
  // against one long-lived promise, which would keep a reaction for every event of the stream.)
  let failStep: ((error: Error) => void) | null = null;
  let expired = false;
  const stop = whenExpired(at, () => {
    expired = true;
    failStep?.(credentialsExpired());
  });
  let done = false;
  try {
    for (;;) {
      if (expired) throw credentialsExpired();
      const step = await new Promise<IteratorResult<T>>((resolve, reject) => {
        failStep = reject;
        iterator.next().then(resolve, reject);
      });
      failStep = null;
      if (step.done) {
        done = true;
        return;
      }
      yield step.value;
    }
  } finally {
    stop();
    // Stopped early (the reader left, the credentials expired): close the source, without
    // waiting for it, since an async generator source answers only after its pending step.
    if (!done) iterator.return?.()?.catch(() => undefined);
  }
}
