// Command-line parsing shared by every `parley` command: a thin layer over node:util's
// parseArgs that accepts `--name value`, `--name=value`, `-` as a positional (stdin) and `--`,
// and turns its errors into short usage messages.
import { parseArgs } from 'node:util';
import { UsageError } from './usage-error.js';

interface OptionSpec {
  readonly type: 'string' | 'boolean';
  readonly short?: string;
  /** The option may be repeated; its value is then the list of every occurrence, in order. */
  readonly multiple?: boolean;
  /** Accepted values of a string option; anything else is a usage error naming them. */
  readonly choices?: readonly string[];
}

export type OptionSpecs = Readonly<Record<string, OptionSpec>>;

export interface ParsedArgs {
  readonly options: Readonly<Record<string, string | boolean | undefined>>;
  /** The values of each `multiple` option, in order; an empty list when it was not given. */
  readonly lists: Readonly<Record<string, readonly string[]>>;
  readonly positionals: readonly string[];
}

export function parseCommandArgs(command: string, args: readonly string[], specs: OptionSpecs): ParsedArgs {
  let parsed: ReturnType<typeof parseArgs>;
  try {
    parsed = parseArgs({
      args: [...args],
      options: Object.fromEntries(
        Object.entries(specs).map(([name, spec]) => [
          name,
          { type: spec.type, ...(spec.short && { short: spec.short }), ...(spec.multiple && { multiple: true }) },
        ]),
      ),
      allowPositionals: true,
      strict: true,
    });
  } catch (error) {
    throw new UsageError(`${command}: ${describeParseError(error, args)}`);
  }
  const values = parsed.values as Record<string, string | boolean | string[] | undefined>;
  const options: Record<string, string | boolean | undefined> = {};
  const lists: Record<string, readonly string[]> = {};
  for (const [name, spec] of Object.entries(specs)) {
    const value = values[name];
    for (const one of Array.isArray(value) ? value : [value]) {
      if (spec.choices && typeof one === 'string' && !spec.choices.includes(one)) {
        throw new UsageError(`${command}: --${name} must be one of ${spec.choices.join(', ')} (got "${one}")`);
      }
    }
    if (spec.multiple) lists[name] = (value as string[] | undefined) ?? [];
    else if (value !== undefined) options[name] = value as string | boolean;
  }
  return { options, lists, positionals: parsed.positionals };
}

/**
 * Reads an option's value from raw arguments without failing, for the cases where a command
 * must know it before (or although) full parsing fails, such as `--format json` for errors.
 */
export function peekOption(args: readonly string[], name: string): string | undefined {
  const flag = `--${name}`;
  let found: string | undefined;
  for (let i = 0; i < args.length; i++) {
    const arg = args[i]!;
    if (arg === '--') break;
    if (arg === flag && i + 1 < args.length) found = args[++i];
    else if (arg.startsWith(`${flag}=`)) found = arg.slice(flag.length + 1);
  }
  return found;
}

function describeParseError(error: unknown, args: readonly string[]): string {
  const code = (error as { code?: unknown }).code;
  const message = error instanceof Error ? error.message : String(error);
  switch (code) {
    case 'ERR_PARSE_ARGS_UNKNOWN_OPTION': {
      const option = /'([^']+)'/.exec(message)?.[1] ?? 'option';
      return `unknown option ${option}`;
    }
    case 'ERR_PARSE_ARGS_INVALID_OPTION_VALUE': {
      const option = /'(-[^' ]+)/.exec(message)?.[1];
      if (option && /argument missing/.test(message)) return `${option} needs a value`;
      if (option && /does not take an argument/.test(message)) return `${option} does not take a value`;
      return message.split('. ')[0]!;
    }
    case 'ERR_PARSE_ARGS_UNEXPECTED_POSITIONAL':
      return `unexpected argument in: ${args.join(' ')}`;
    default:
      return message;
  }
}
