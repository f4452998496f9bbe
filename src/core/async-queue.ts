// A single-consumer queue that a producer pushes into and a consumer reads with for-await.
// Reads advance an index instead of shifting the array: Array#shift turns linear on large
// arrays. A producer that can wait asks room() before pushing more: past the high-water mark
// it gets a promise that settles once the consumer has read the queue down to half of it.

export class AsyncQueue<T> implements AsyncIterable<T> {
  private items: (T | undefined)[] = [];
  private head = 0;
  private waiting: { resolve: (result: IteratorResult<T>) => void; reject: (error: unknown) => void } | null = null;
  private ended = false;
  private failure: { error: unknown } | null = null;
  private roomWaiter: { readonly promise: Promise<void>; readonly resolve: () => void } | null = null;

  /** @param highWater items buffered before room() asks the producer to wait */
  constructor(private readonly highWater = Number.POSITIVE_INFINITY) {}

  /** Items pushed and not read yet. */
  get size(): number {
    return this.items.length - this.head;
  }

  /** Null while there is room (or the queue has ended); else a promise for when there is. */
  room(): Promise<void> | null {
    if (this.ended || this.size < this.highWater) return null;
    if (!this.roomWaiter) {
      let resolve!: () => void;
      const promise = new Promise<void>((done) => (resolve = done));
      this.roomWaiter = { promise, resolve };
    }
    return this.roomWaiter.promise;
  }

  push(item: T): void {
    if (this.ended) return;
    if (this.waiting) {
      const { resolve } = this.waiting;
      this.waiting = null;
      resolve({ value: item, done: false });
    } else {
      this.items.push(item);
    }
  }

  end(): void {
    if (this.ended) return;
    this.ended = true;
    this.wakeProducer();
    if (this.waiting && this.head >= this.items.length) {
      const { resolve } = this.waiting;
      this.waiting = null;
      resolve({ value: undefined, done: true });
    }
  }

  fail(error: unknown): void {
    if (this.ended) return;
    this.failure = { error };
    this.ended = true;
    this.wakeProducer();
    if (this.waiting) {
      const { reject } = this.waiting;
      this.waiting = null;
      reject(error);
    }
  }

  [Symbol.asyncIterator](): AsyncIterator<T> {
    return {
      next: () => {
        if (this.head < this.items.length) return Promise.resolve({ value: this.take(), done: false });
        if (this.failure) return Promise.reject(this.failure.error);
        if (this.ended) return Promise.resolve({ value: undefined, done: true });
        return new Promise((resolve, reject) => (this.waiting = { resolve, reject }));
      },
      return: () => {
        this.ended = true;
        this.items = [];
        this.head = 0;
        this.wakeProducer();
        return Promise.resolve({ value: undefined, done: true });
      },
    };
  }

  private take(): T {
    const item = this.items[this.head] as T;
    this.items[this.head++] = undefined;
    if (this.head === this.items.length) {
      this.items = [];
      this.head = 0;
    }
    if (this.roomWaiter && this.size <= this.highWater / 2) this.wakeProducer();
    return item;
  }

  private wakeProducer(): void {
    const waiter = this.roomWaiter;
    this.roomWaiter = null;
    waiter?.resolve();
  }
}
