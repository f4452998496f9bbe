// The process-local directory of started runtime transports, keyed by URL.
import type { Dispatcher } from '../dispatcher.js';

const targets = new Map<string, Dispatcher>();

/** `runtime://name?x=1` and `runtime://name/` both mean `runtime://name`. */
export function runtimeKey(url: string): string {
  const parsed = new URL(url);
  return `runtime://${parsed.host}${parsed.pathname.replace(/\/+$/, '')}`;
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
