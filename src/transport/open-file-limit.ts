// The default connection cap of a server: a share of the process's open-file limit, the bound
// that matters (every connection holds a file descriptor), rather than a fixed number. Node has
// no API for the limit; on Linux /proc/self/limits has it (node raises its soft limit to the
// hard one as it starts, so that is the limit the process really has). Elsewhere, or when the
// file cannot be read, a common soft limit is assumed.
import { readFileSync } from 'node:fs';

/** The share of the open-file limit a server's connections may hold by default. */
export const CONNECTION_SHARE = 0.75;

/** The limit assumed when it cannot be read: the usual soft limit on Linux. */
export const ASSUMED_OPEN_FILE_LIMIT = 1024;

/** The process's soft limit on open files, or null when it cannot be read. */
export function openFileLimit(limitsText: () => string = () => readFileSync('/proc/self/limits', 'utf8')): number | null {
  let text: string;
  try {
    text = limitsText();
  } catch {
    return null;
  }
  // `Max open files            20000                20000                files`
  const match = /^Max open files\s+(\S+)/m.exec(text);
  if (!match) return null;
  if (match[1] === 'unlimited') return Number.MAX_SAFE_INTEGER;
  const limit = Number(match[1]);
  return Number.isSafeInteger(limit) && limit > 0 ? limit : null;
}

let derived: number | null = null;

/**
 * The max_connections a server gets when the configuration leaves it at 0: CONNECTION_SHARE of
 * the open-file limit, leaving the rest for files, outbound connections and listeners.
 */
export function defaultMaxConnections(limit: number | null = openFileLimit()): number {
  return Math.max(1, Math.floor((limit ?? ASSUMED_OPEN_FILE_LIMIT) * CONNECTION_SHARE));
}

/** max_connections as configured, 0 resolved to the derived default (read once per process). */
export function effectiveMaxConnections(configured: number): number {
  if (configured > 0) return configured;
  derived ??= defaultMaxConnections();
  return derived;
}
