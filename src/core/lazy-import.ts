// The one way parley loads an optional package: on first use, once, with a missing install
// reported as MissingDependencyError naming the package, and a failed load forgotten so the
// next call tries again (after `npm install`, a long-running process recovers).

/** A loader that runs `load` on first call and shares its promise until it fails. */
export function lazyLoader<T>(load: () => Promise<T>): () => Promise<T> {
  let loading: Promise<T> | null = null;
  return () => {
    loading ??= load().catch((error: unknown) => {
      loading = null;
      throw error;
    });
    return loading;
  };
}
