// The logger `parley serve agent|registry` hands its server. pino (and pino-pretty on a
// terminal) are optional peers, so a project with only the core install would otherwise fail
// to serve until it installed them or gave `--log-level silent`; instead the command falls back
// to parley's plain line logger (observability/line-logger.ts, the same line format) and says
// once on stderr which `npm install` brings the faster logger back.
import { importOptional, MissingDependencyError } from '../core/errors.js';
import { createLineLogger } from '../observability/line-logger.js';
import type { LogDestination, LoggerOption, LogOptions } from '../observability/logger.js';

/**
 * The server's `logger` option for a level that logs: pino's options (writing to `destination`
 * when given, else stdout) when pino can load, else a line logger writing there.
 */
export async function serverLogger(
  command: string,
  options: LogOptions,
  destination: LogDestination | undefined,
): Promise<LoggerOption> {
  const chosen = options.level ?? 'info';
  if (chosen === 'silent') return options;
  const terminal = process.stdout.isTTY === true;
  const missing = [
    ...((await installed('pino')) ? [] : ['pino']),
    ...(terminal && !(await installed('pino-pretty')) ? ['pino-pretty'] : []),
  ];
  if (missing.length === 0) return destination ? { ...options, destination } : options;
  process.stderr.write(
    `parley: ${missing.join(' and ')} not installed: ${command} writes plain log lines itself; npm install ${missing.join(' ')} for the faster logger\n`,
  );
  return createLineLogger(chosen, destination ?? process.stdout, terminal);
}

/** Whether an optional package loads; a failure other than its absence is thrown as it is. */
async function installed(name: string): Promise<boolean> {
  try {
    await importOptional(name, 'logging');
    return true;
  } catch (error) {
    if (error instanceof MissingDependencyError && error.packageName === name) return false;
    throw error;
  }
}
