// Turns whatever a handler method throws into the A2aError a binding answers with: its own
// refusals pass through, the task index's and the engine's are given their A2A kind, and
// anything else is an internal error. Bindings call it in the one place they catch.
import { StoreUnavailableError } from '../../core/store-unavailable-error.js';
import { EndpointError } from '../../transport/endpoint-error.js';
import { A2aError } from '../errors/a2a-error.js';
import { TaskIndexFullError, TaskQuotaError } from './task-index.js';

export function asA2aError(error: unknown): A2aError {
  if (error instanceof A2aError) return error;
  // A2A files a refusal for load (rate limits among its examples) under system errors: -32603.
  if (error instanceof TaskIndexFullError)
    return new A2aError('internalError', error.message, { capacity: String(error.capacity) });
  if (error instanceof TaskQuotaError) return new A2aError('internalError', error.message, { quota: String(error.quota) });
  if (error instanceof EndpointError && error.code === 'conflict') return new A2aError('unsupportedOperation', error.message);
  // A store that may come back (a shared store out of reach): nothing ran; the client may retry.
  // Its own message names the store (a Redis URL): the caller gets a fixed text and the code.
  if (error instanceof StoreUnavailableError && error.retryable)
    return new A2aError('internalError', 'the task store is unavailable; nothing ran, try again', {
      retryable: 'true',
      reason: error.code,
    });
  return new A2aError('internalError', error instanceof Error ? error.message : String(error));
}
