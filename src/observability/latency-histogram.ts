// The served-request latency histogram, counted in plain arrays and turned into samples only
// when the registry is scraped. prom-client's own Histogram checks and hashes the label object
// of every observation (about 5 µs a request on the bench machine, most of what switching
// metrics on cost: bench:observability). A server's requests fall into a few (operation,
// outcome) series, so a request here costs a map lookup and a search of the bucket bounds.
// prom-client's registry still writes the exposition, as for its own histograms: this class
// only answers its get() with the same samples a prom-client Histogram would.

/** One sample of the family, as prom-client's registry reads them. */
interface Sample {
  readonly metricName: string;
  readonly labels: Readonly<Record<string, string | number>>;
  readonly value: number;
}

/** One label set's counts: per bucket (not cumulative; the last one is above every bound), sum and count. */
interface Series {
  readonly labels: Readonly<Record<string, string>>;
  readonly buckets: number[];
  sum: number;
  count: number;
}

export class LatencyHistogram {
  readonly type = 'histogram';
  /** How prom-client's cluster registry merges the family across workers. */
  readonly aggregator = 'sum';
  /** Series by operation: [success, error]. */
  private readonly series = new Map<string, [Series | undefined, Series | undefined]>();

  /** `bounds`: the buckets' upper bounds in seconds, ascending. */
  constructor(
    readonly name: string,
    readonly help: string,
    private readonly bounds: readonly number[],
    private readonly transport: string,
  ) {}

  observe(operation: string, ok: boolean, seconds: number): void {
    let pair = this.series.get(operation);
    if (!pair) {
      pair = [undefined, undefined];
      this.series.set(operation, pair);
    }
    const index = ok ? 0 : 1;
    const series = (pair[index] ??= this.newSeries(operation, ok));
    let bucket = 0;
    while (bucket < this.bounds.length && seconds > this.bounds[bucket]!) bucket++;
    series.buckets[bucket]!++;
    series.sum += seconds;
    series.count++;
  }

  /** The family as prom-client's registry reads a metric: cumulative `_bucket` samples, `_sum`, `_count`. */
  get(): { name: string; help: string; type: string; aggregator: string; values: Sample[] } {
    const values: Sample[] = [];
    for (const pair of this.series.values()) {
      for (const series of pair) {
        if (series) this.samples(series, values);
      }
    }
    return { name: this.name, help: this.help, type: this.type, aggregator: this.aggregator, values };
  }

  /** Forgets every observation (the registry's resetMetrics). */
  reset(): void {
    this.series.clear();
  }

  private newSeries(operation: string, ok: boolean): Series {
    const labels = { transport: this.transport, operation, outcome: ok ? 'success' : 'error' };
    return { labels, buckets: new Array<number>(this.bounds.length + 1).fill(0), sum: 0, count: 0 };
  }

  private samples(series: Series, into: Sample[]): void {
    const bucketName = `${this.name}_bucket`;
    let below = 0;
    for (let i = 0; i < this.bounds.length; i++) {
      below += series.buckets[i]!;
      into.push({ metricName: bucketName, labels: { ...series.labels, le: this.bounds[i]! }, value: below });
    }
    into.push({ metricName: bucketName, labels: { ...series.labels, le: '+Inf' }, value: series.count });
    into.push({ metricName: `${this.name}_sum`, labels: series.labels, value: series.sum });
    into.push({ metricName: `${this.name}_count`, labels: series.labels, value: series.count });
  }
}
