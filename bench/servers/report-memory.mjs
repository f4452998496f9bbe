// Shared by the A2A benchmark servers: on SIGUSR2, a garbage collection when node allows one
// (--expose-gc), then a line `rss <bytes>` on stdout.
export function reportMemoryOnSignal() {
  process.on('SIGUSR2', () => {
    globalThis.gc?.();
    console.log(`rss ${process.memoryUsage().rss}`);
  });
}
