// Cancellation that costs nothing until someone needs an AbortSignal. On Node 20 making an
// AbortSignal takes microseconds, and adding and removing a listener on one as much again;
// a busy server or client pays that on every request, mostly for calls that are never
// cancelled. Code of our own listens with plain callbacks (onAbort); a real AbortSignal is
// made only for APIs that insist on one (node:http, a handler's `signal`).
import { setMaxListeners } from 'node:events';

export class LazyAbort {
  private controller: AbortController | null = null;
  private listeners: Array<(reason: unknown) => void> | null = null;
  private abortReason: unknown = undefined;
  private isAborted = false;

  get aborted(): boolean {
    return this.isAborted;
  }

  get reason(): unknown {
    return this.abortReason;
  }

  /**
   * A standard signal that follows this one; made on first use. One signal may serve many
   * requests (every request of a websocket connection), so node's listener-count warning
   * is off for it.
   */
  get signal(): AbortSignal {
    if (!this.controller) {
      this.controller = new AbortController();
      setMaxListeners(0, this.controller.signal);
      if (this.isAborted) this.controller.abort(this.abortReason);
    }
    return this.controller.signal;
  }

  abort(reason: unknown): void {
    if (this.isAborted) return;
    this.isAborted = true;
    this.abortReason = reason;
    this.controller?.abort(reason);
    const listeners = this.listeners;
    this.listeners = null;
    if (listeners) for (const listener of listeners) listener(reason);
  }

  throwIfAborted(): void {
    if (this.isAborted) throw this.abortReason;
  }

  /**
   * Calls `listener` once, on abort (at once if already aborted). Returns a function that
   * removes it.
   */
  onAbort(listener: (reason: unknown) => void): () => void {
    if (this.isAborted) {
      listener(this.abortReason);
      return noop;
    }
    (this.listeners ??= []).push(listener);
    return () => {
      const index = this.listeners?.indexOf(listener) ?? -1;
      if (index >= 0) this.listeners!.splice(index, 1);
    };
  }
}

function noop(): void {}
