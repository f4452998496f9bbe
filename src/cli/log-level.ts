// `--log-level LEVEL` of `parley serve agent` and `parley serve registry`: the server's
// structured logs (docs/operations.md, Logs), one JSON line per request on stdout, beside the
// `ready <url>` and `stopped` lines; human-readable lines instead when stdout is a terminal.
// On a pipe or a file the lines are written in batches (observability/buffered-log.ts); the
// command flushes them before each line of its own, so stdout keeps the order of events.
import { bufferedLog } from '../observability/buffered-log.js';
import { isLogLevel, LOG_LEVELS, type LoggerOption, type LogOptions } from '../observability/logger.js';
import type { OptionSpecs } from './args.js';
import { serverLogger } from './server-logger.js';
import { UsageError } from './usage-error.js';

export const LOG_OPTIONS: OptionSpecs = {
  'log-level': { type: 'string' },
};

export const LOG_USAGE = `  --log-level LEVEL  ${LOG_LEVELS.join(', ')} (default: info):
                    a JSON line on stdout for each request and when the server listens
                    and stops (readable lines on a terminal); silent logs nothing. On a
                    pipe or a file the lines are written in batches, at least every second
`;

/** The server's `logger` option for the flag's value (default info), or a usage error naming the levels. */
export function logOptions(command: string, level: string | undefined): LogOptions {
  const chosen = level ?? 'info';
  if (!isLogLevel(chosen)) {
    throw new UsageError(`${command}: --log-level must be one of ${LOG_LEVELS.join(', ')} (got ${JSON.stringify(chosen)})`);
  }
  return { level: chosen };
}

export interface ServerLog {
  /** The server's `logger` option: pino's options, or the plain line logger when pino is missing. */
  readonly logger: LoggerOption;
  /** Writes the held log lines; call it before the command prints a line of its own. */
  flush(): void;
}

/**
 * Where a served command's log lines go: a terminal gets each line as it comes (readable, and
 * few); a pipe or a file gets them in batches, flushed by `flush()` and at exit.
 */
export async function serverLog(command: string, options: LogOptions): Promise<ServerLog> {
  if (options.level === 'silent') return { logger: options, flush: () => undefined };
  const destination = process.stdout.isTTY ? undefined : bufferedLog();
  const logger = await serverLogger(command, options, destination);
  return { logger, flush: () => destination?.flush() };
}
