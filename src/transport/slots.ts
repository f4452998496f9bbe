// A counting semaphore: excess work waits in FIFO order for a slot instead of being refused.

export class Slots {
  private active = 0;
  private readonly waiters: Array<() => void> = [];

  constructor(readonly capacity: number) {}

  get inUse(): number {
    return this.active;
  }

  get waiting(): number {
    return this.waiters.length;
  }

  /**
   * Resolves with a release function once a slot is free. An aborted wait gives up its place.
   * The signal may be given as a function, called only if the caller has to wait.
   */
  acquire(abort?: AbortSignal | (() => AbortSignal)): Promise<() => void> {
    const free = this.tryAcquire();
    if (free) return Promise.resolve(free);
    const signal = typeof abort === 'function' ? abort() : abort;
    return new Promise((resolve, reject) => {
      if (signal?.aborted) return reject(signal.reason);
      const grant = () => {
        signal?.removeEventListener('abort', onAbort);
        this.active++;
        resolve(this.releaser());
      };
      const onAbort = () => {
        const index = this.waiters.indexOf(grant);
        if (index >= 0) this.waiters.splice(index, 1);
        reject(signal!.reason);
      };
      signal?.addEventListener('abort', onAbort, { once: true });
      this.waiters.push(grant);
    });
  }

  /** A slot at once if one is free and nobody waits for it, else null (no promise made). */
  tryAcquire(): (() => void) | null {
    if (this.active >= this.capacity || this.waiters.length > 0) return null;
    this.active++;
    return this.releaser();
  }

  /** Runs `work` inside a slot. */
  run<T>(work: () => Promise<T>, signal?: AbortSignal | (() => AbortSignal)): Promise<T> {
    // The common case, a free slot, without the extra turns of waiting for acquire().
    const free = this.tryAcquire();
    if (free) return settleThen(work, free);
    return this.acquire(signal).then((release) => settleThen(work, release));
  }

  private releaser(): () => void {
    let released = false;
    return () => {
      if (released) return;
      released = true;
      this.active--;
      this.waiters.shift()?.();
    };
  }
}

/** Runs `work` and calls `release` once it has settled, however it ends. */
function settleThen<T>(work: () => Promise<T>, release: () => void): Promise<T> {
  let running: Promise<T>;
  try {
    running = work();
  } catch (error) {
    release();
    return Promise.reject(error);
  }
  running.then(release, release);
  return running;
}
