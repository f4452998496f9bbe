// What a client is told when the registry's store fails: a stable code, a fixed message and the
// store's error code as `details.reason`, never the store's own text (SQLite's messages, the
// database file's path, the Redis address). The failure itself, with all of that, goes to the
// operator's log (or stderr without one). Errors a handler raises on purpose (EndpointError)
// pass through unchanged.
import type { Logger } from '../observability/logger.js';
import { StoreUnavailableError } from '../core/store-unavailable-error.js';
import { EndpointError } from '../transport/endpoint-error.js';

/** The answer for an error that escaped a registry handler; the original is reported once. */
export function storeFailure(error: unknown, operation: string, logger: Logger | null): EndpointError {
  if (error instanceof EndpointError) return error;
  if (logger) logger.error({ err: error, operation }, 'registry store failed');
  else console.error(`parley: the registry store failed during ${operation}:`, error);
  return answerFor(error);
}

function answerFor(error: unknown): EndpointError {
  if (error instanceof StoreUnavailableError) {
    switch (error.code) {
      case 'store_busy':
        return new EndpointError('unavailable', 'the registry store is busy; try again', { reason: error.code });
      case 'store_write_failed':
        return new EndpointError('internal', 'the registry could not write to its store', { reason: error.code });
    }
    // A shared store comes back by itself: a 503 the client retries. A file that cannot be read does not.
    if (error.retryable) {
      return new EndpointError('unavailable', 'the registry store is unavailable; try again', { reason: error.code });
    }
    return new EndpointError('internal', 'the registry could not read its store', { reason: error.code });
  }
  return new EndpointError('internal', 'the registry failed to answer', { reason: 'internal' });
}
