// A plain logger for when pino is not installed: `parley serve` falls back to it, so a project
// with only the core install can serve from the command line. It writes what pino would with its
// defaults (one JSON line per entry: level number, time, pid, hostname, the fields, msg; an
// Error field as its type, message and stack), or on a terminal one readable line shaped like
// pino-pretty's single-line form. No buffering and no serializers beyond that: pino stays the
// faster and richer choice, and the CLI says so when it falls back.
import { hostname } from 'node:os';
import type { LineLevel, Logger } from '../transport/hooks.js';
import type { LogDestination, LogLevel } from './logger.js';

/** pino's level numbers. */
const LEVEL_NUMBERS: Readonly<Record<LineLevel, number>> = { trace: 10, debug: 20, info: 30, warn: 40, error: 50, fatal: 60 };

/** A logger writing at `level` and above to `destination`, as JSON, or readable when `readable`. */
export function createLineLogger(level: Exclude<LogLevel, 'silent'>, destination: LogDestination, readable: boolean): Logger {
  const least = LEVEL_NUMBERS[level];
  const host = hostname();
  const line = (at: LineLevel, fields: object, message: string): string =>
    readable
      ? `[${clock(new Date())}] ${at.toUpperCase()}: ${message} ${JSON.stringify(fields, withErrors)}\n`
      : `${JSON.stringify({ level: LEVEL_NUMBERS[at], time: Date.now(), pid: process.pid, hostname: host, ...fields, msg: message }, withErrors)}\n`;
  const method =
    (at: LineLevel) =>
    (fields: object, message: string): void => {
      if (LEVEL_NUMBERS[at] >= least) destination.write(line(at, fields, message));
    };
  return {
    fatal: method('fatal'),
    error: method('error'),
    warn: method('warn'),
    info: method('info'),
    debug: method('debug'),
    trace: method('trace'),
    isLevelEnabled: (at) => LEVEL_NUMBERS[at] >= least,
  };
}

/** An Error becomes what pino's err serializer shows of it; everything else is left as it is. */
function withErrors(_key: string, value: unknown): unknown {
  return value instanceof Error ? { type: value.name, message: value.message, stack: value.stack } : value;
}

/** Local time as HH:MM:ss.l, the form the pretty lines use. */
function clock(time: Date): string {
  const two = (value: number) => String(value).padStart(2, '0');
  return `${two(time.getHours())}:${two(time.getMinutes())}:${two(time.getSeconds())}.${String(time.getMilliseconds()).padStart(3, '0')}`;
}
