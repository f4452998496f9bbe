// `--log-level LEVEL` of `parley serve agent` and `parley serve registry`: the server's
// structured logs (docs/operations.md, Logs), one JSON line per request on stdout, beside the
// `ready <url>` and `stopped` lines; human-readable lines instead when stdout is a terminal.
import { isLogLevel, LOG_LEVELS, type LogOptions } from '../observability/logger.js';
import type { OptionSpecs } from './args.js';
import { UsageError } from './usage-error.js';

export const LOG_OPTIONS: OptionSpecs = {
  'log-level': { type: 'string' },
};

export const LOG_USAGE = `  --log-level LEVEL  ${LOG_LEVELS.join(', ')} (default: info):
                    a JSON line on stdout for each request and when the server listens
                    and stops (readable lines on a terminal); silent logs nothing
`;

/** The server's `logger` option for the flag's value (default info), or a usage error naming the levels. */
export function logOptions(command: string, level: string | undefined): LogOptions {
  const chosen = level ?? 'info';
  if (!isLogLevel(chosen)) {
    throw new UsageError(`${command}: --log-level must be one of ${LOG_LEVELS.join(', ')} (got ${JSON.stringify(chosen)})`);
  }
  return { level: chosen };
}
