// Where a server's structured logs go. A server takes either a ready logger (pino, or anything
// with pino's level methods) or options, from which a pino logger is made on start: JSON lines
// to stdout (or a given stream), or pino-pretty's human-readable lines when that stream is a
// terminal. pino is optional and loaded only then, so a server that does not log costs nothing.
import type pino from 'pino';
import { importOptional } from '../core/errors.js';
import { lazyLoader } from '../core/lazy-import.js';
import type { Logger } from '../transport/hooks.js';

/** pino's levels, most severe first, and `silent` (nothing is logged). */
export const LOG_LEVELS = ['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'] as const;

export type LogLevel = (typeof LOG_LEVELS)[number];

// The Logger type is the pipeline's (transport/hooks.ts): a transport logs through it without
// importing this module. It is re-exported here, beside the options that make one.
export type { Logger } from '../transport/hooks.js';

/** Where a line goes: a stream, or anything with a `write` that takes one line of text. */
export interface LogDestination {
  write(line: string): unknown;
  /** True for a terminal, where lines are made human-readable unless `pretty` says otherwise. */
  readonly isTTY?: boolean;
}

export interface LogOptions {
  /** The least severe level written. Default `info`. */
  readonly level?: LogLevel;
  /** Where lines go. Default stdout, written synchronously (so lines keep their order with other output). */
  readonly destination?: LogDestination;
  /** Human-readable lines (pino-pretty) instead of JSON. Default: when the destination is a terminal. */
  readonly pretty?: boolean;
}

/** A server's `logger` option: a ready logger, or how to make one. */
export type LoggerOption = Logger | LogOptions;

export function isLogLevel(value: string): value is LogLevel {
  return (LOG_LEVELS as readonly string[]).includes(value);
}

/** Whether lines to `destination` should be human-readable: yes on a terminal, JSON anywhere else. */
export function prettyOutput(destination: { readonly isTTY?: boolean }, pretty?: boolean): boolean {
  return pretty ?? destination.isTTY === true;
}

type PinoModule = typeof pino;
type PrettyOptions = Readonly<Record<string, unknown>>;
interface PrettyModule {
  prettyFactory(options: PrettyOptions): (line: string) => string;
}

const loadPino = lazyLoader(() => importOptional<PinoModule>('pino', 'structured logs'));
const loadPretty = lazyLoader(() => importOptional<PrettyModule>('pino-pretty', 'human-readable logs'));

/**
 * The logger a server logs through, or null when it logs nothing (no option, or `silent`), so
 * that serving asks nothing more of a request than a null check.
 */
export async function resolveLogger(option: LoggerOption | undefined): Promise<Logger | null> {
  if (option === undefined) return null;
  if (isLogger(option)) return option.isLevelEnabled('fatal') ? option : null;
  const level = option.level ?? 'info';
  if (level === 'silent') return null;
  const module = await loadPino();
  // The CommonJS build arrives as a default export under some loaders.
  const create = (module as unknown as { default?: PinoModule }).default ?? module;
  const destination = option.destination ?? process.stdout;
  const stream = prettyOutput(destination, option.pretty)
    ? await prettyDestination(destination)
    : (option.destination ?? create.destination({ dest: 1, sync: true }));
  const logger: Logger = create({ level }, stream as pino.DestinationStream);
  return logger;
}

/**
 * Each JSON line made readable before it is written, in this thread and in order: one line per
 * entry, its fields on the same line, colour only on a terminal. pino-pretty's own stream
 * would need a real stream to pipe into; this needs only `write`.
 */
async function prettyDestination(destination: LogDestination): Promise<LogDestination> {
  const module = await loadPretty();
  const pretty = (module as unknown as { default?: PrettyModule }).default ?? module;
  const prettify = pretty.prettyFactory({
    colorize: destination.isTTY === true,
    singleLine: true,
    ignore: 'pid,hostname',
    translateTime: 'SYS:HH:MM:ss.l',
  });
  return { write: (line: string) => destination.write(prettify(line)) };
}

function isLogger(option: LoggerOption): option is Logger {
  return (
    typeof (option as Partial<Logger>).info === 'function' && typeof (option as Partial<Logger>).isLevelEnabled === 'function'
  );
}
