// The process-local directory of started runtime transports, keyed by URL: a client finds its
// target's dispatcher here instead of opening a connection. (Named directory, not registry, so
// it is not taken for src/registry/, the agent registry server.)
import type { Dispatcher } from '../dispatcher.js';

const targets = new Map<string, Dispatcher>();

/** Keys of the URLs seen so far: parsing a URL costs about a microsecond, on every call. */
const keys = new Map<string, string>();
const MAX_KEYS = 1024;

/** `runtime://name?x=1` and `runtime://name/` both mean `runtime://name`. */
export function runtimeKey(url: string): string {
  let key = keys.get(url);
  if (key === undefined) {
    const parsed = new URL(url);
    key = `runtime://${parsed.host}${parsed.pathname.replace(/\/+$/, '')}`;
    if (keys.size >= MAX_KEYS) keys.clear();
    keys.set(url, key);
  }
  return key;
}

export function registerTarget(url: string, dispatcher: Dispatcher): void {
  const key = runtimeKey(url);
  if (targets.has(key)) throw new Error(`a runtime transport is already started at ${key}`);
  targets.set(key, dispatcher);
}

export function unregisterTarget(url: string, dispatcher: Dispatcher): void {
  const key = runtimeKey(url);
  if (targets.get(key) === dispatcher) targets.delete(key);
}

export function findTarget(url: string): Dispatcher | undefined {
  return targets.get(runtimeKey(url));
}
