// What bench/soak measures inside a server process: the largest event-loop delay
// (perf_hooks.monitorEventLoopDelay) and the highest RSS and heap seen (sampled every 50 ms)
// since the last measurement, and RSS and heap used right after a forced full GC (the process
// must run with --expose-gc). Used by the child servers and, for the runtime transport, by
// the bench process itself.
import { monitorEventLoopDelay } from 'node:perf_hooks';

const SAMPLE_MS = 50;

export class SoakMonitor {
  constructor() {
    if (typeof globalThis.gc !== 'function') throw new Error('the soak monitor needs node --expose-gc');
    this.delay = monitorEventLoopDelay({ resolution: 10 });
    this.delay.enable();
    this.peakRss = 0;
    this.peakHeap = 0;
    this.timer = setInterval(() => this.sample(), SAMPLE_MS);
    this.timer.unref();
  }

  sample() {
    const { rss, heapUsed } = process.memoryUsage();
    if (rss > this.peakRss) this.peakRss = rss;
    if (heapUsed > this.peakHeap) this.peakHeap = heapUsed;
  }

  /**
   * The figures since the last call, then everything reset. The delay is read before the GC,
   * which blocks the loop itself and must not count as a request's delay.
   */
  measure() {
    this.sample();
    const maxDelayMs = this.delay.max / 1e6;
    const { peakRss, peakHeap } = this;
    // Twice: the first pass can leave garbage that finalizers free for the second.
    globalThis.gc();
    globalThis.gc();
    const { rss, heapUsed } = process.memoryUsage();
    this.delay.reset();
    this.peakRss = rss;
    this.peakHeap = heapUsed;
    return { rss, heapUsed, peakRss, peakHeap, maxDelayMs };
  }

  /**
   * Resolves once the delay histogram has started afresh: after a forced GC its timer's next
   * firing counts the GC's pause as a delay, so it is let fire first (resolution 10 ms), then
   * the histogram is cleared.
   */
  settle() {
    return new Promise((resolve) =>
      setTimeout(() => {
        this.delay.reset();
        resolve();
      }, 5 * 10),
    );
  }

  stop() {
    clearInterval(this.timer);
    this.delay.disable();
  }
}
