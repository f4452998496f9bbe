// Types for soak-monitor.mjs, so bench/soak.ts can use it under strict TS.
export interface SoakFigures {
  /** Bytes, right after a forced full GC. */
  readonly rss: number;
  readonly heapUsed: number;
  /** The highest RSS and heap used sampled since the last measurement (no GC), bytes. */
  readonly peakRss: number;
  readonly peakHeap: number;
  /** The largest event-loop delay since the last measurement, ms. */
  readonly maxDelayMs: number;
}

export declare class SoakMonitor {
  constructor();
  measure(): SoakFigures;
  /** Clears the delay histogram once a forced GC's pause has been counted (see soak-monitor.mjs). */
  settle(): Promise<void>;
  stop(): void;
}
