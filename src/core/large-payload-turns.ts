// Turns for the work on large payloads. Reading a 16 MiB body (JSON.parse), writing its answer
// (JSON text) and putting that text on the socket (UTF-8 bytes) each keep the event loop for
// tens of milliseconds, and each runs straight on from the one before it in promise callbacks:
// four such requests at once kept other clients' health checks waiting for up to a second.
// Each of those pieces waits for its turn here instead. Turns are given one per event-loop
// iteration, in the order asked for, from a setImmediate callback; an immediate queued from
// inside one runs in the next iteration, so the loop polls its sockets (and serves the small
// requests that came in) between any two pieces of large work. Below the threshold nothing
// waits: small requests take the same path as before.

/** Payloads of at least this many bytes (a body, an answer) have their heavy steps take turns. */
export const LARGE_PAYLOAD_BYTES = 1024 * 1024;

/** Whether a payload of `bytes` is large enough for its steps to take turns. */
export function isLargePayload(bytes: number): boolean {
  return bytes >= LARGE_PAYLOAD_BYTES;
}

const waiting: Array<() => void> = [];
let scheduled = false;

/**
 * Resolves at the start of a later event-loop iteration, when no other piece of large work has
 * had that iteration. The caller does one heavy step (no more) before its next await.
 */
export function largePayloadTurn(): Promise<void> {
  return new Promise((resolve) => {
    waiting.push(resolve);
    if (!scheduled) {
      scheduled = true;
      setImmediate(giveTurn);
    }
  });
}

function giveTurn(): void {
  // The piece runs in this callback's microtasks, before the next immediate is looked at.
  waiting.shift()!();
  if (waiting.length > 0) setImmediate(giveTurn);
  else scheduled = false;
}
