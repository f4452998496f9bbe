// The one shape of a bounded close: wait for something to close, and when it has not within
// the deadline, cut it off. Servers (listeners and their connections) and websocket
// connections all stop this way.

/**
 * Resolves once `closed` has, waiting at most `timeoutMs`. Past the deadline `cut` runs (a
 * destroy or terminate, which must make `closed` settle) and the wait goes on until it has;
 * without a `cut`, the wait just ends. The timer does not keep the process alive.
 */
export function closeWithin(closed: Promise<unknown>, timeoutMs: number, cut?: () => void): Promise<void> {
  return new Promise((resolve) => {
    const timer = setTimeout(cut ?? resolve, timeoutMs);
    timer.unref();
    void closed.then(() => {
      clearTimeout(timer);
      resolve();
    });
  });
}
