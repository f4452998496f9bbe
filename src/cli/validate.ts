// `parley validate --schema <name> <file>... [--format text|json]`: checks JSON documents,
// JSON arrays of documents and JSON Lines files against one of parley's schemas, with the
// same generated validators the servers use. Exit status: 0 when every value is valid, 1 when
// any is not, 2 when the check could not run (bad arguments, unknown schema, unreadable file,
// malformed JSON). docs/cli.md describes the output.
import { isSchemaName, schemaNames, validate, type SchemaName, type ValidationIssue } from '../../generated/validators/index.js';
import { parseCommandArgs, peekOption } from './args.js';
import { JsonInputError, readJsonRecords } from './json-records.js';
import { wantsJson } from './output.js';
import { inputLabel, readInput, STDIN } from './read-input.js';
import { schemaTakesArray } from './schema-shape.js';
import { closestNames } from './suggest.js';
import { UsageError } from './usage-error.js';

export const VALIDATE_USAGE = `Usage: parley validate --schema <name> <file>... [--json | --format text|json]

Checks each file against a parley schema. A file may hold one JSON value, a JSON
array of values (each item is checked; for schemas whose value is itself an array,
such as agent-card-list, the array is one value), or JSON Lines (one value per line).
Use - to read standard input.

Options:
  --schema <name>      schema to check against (list them with: parley schemas)
  --format text|json   text (default): one line per problem and a summary;
                       json: one JSON document with every result
  --json               the same as --format json
  -h, --help           show this help

Exit status: 0 all values valid, 1 some value invalid, 2 the check could not run.
`;

export interface ValueResult {
  readonly file: string;
  /** Position of the value in its file's array or JSON Lines, or null for a single value. */
  readonly index: number | null;
  readonly valid: boolean;
  readonly errors: readonly ValidationIssue[];
}

export async function runValidate(args: string[]): Promise<number> {
  const json = peekOption(args, 'format') === 'json' || wantsJson(args);
  try {
    return await validateFiles(args);
  } catch (error) {
    if (!json) throw error;
    // In JSON mode even a failure is one parseable document on stdout.
    const failure =
      error instanceof UsageError
        ? error
        : new UsageError(error instanceof Error ? error.message : String(error), { code: 'internal' });
    process.stdout.write(`${JSON.stringify(failure.toJSON(), null, 2)}\n`);
    return failure.exitCode;
  }
}

async function validateFiles(args: string[]): Promise<number> {
  const { options, positionals } = parseCommandArgs('validate', args, {
    schema: { type: 'string' },
    format: { type: 'string', choices: ['text', 'json'] },
    json: { type: 'boolean' },
    help: { type: 'boolean', short: 'h' },
  });
  if (options.help) {
    process.stdout.write(VALIDATE_USAGE);
    return 0;
  }
  const schema = resolveSchema(options.schema);
  if (positionals.length === 0) {
    throw new UsageError('validate: name at least one file to check (or - for standard input)');
  }
  if (positionals.filter((path) => path === STDIN).length > 1) {
    throw new UsageError('validate: standard input (-) can be read only once');
  }

  const splitArrays = !schemaTakesArray(schema);
  const results: ValueResult[] = [];
  for (const path of positionals) {
    const file = inputLabel(path);
    const records = parseInput(file, await readInput(path), splitArrays);
    records.values.forEach((value, i) => {
      const outcome = validate(schema, value);
      results.push({
        file,
        index: records.layout === 'single' ? null : i,
        valid: outcome.valid,
        errors: outcome.valid ? [] : outcome.errors,
      });
    });
  }

  const valid = results.every((result) => result.valid);
  const output =
    options.format === 'json' || options.json
      ? renderJson(schema, valid, results)
      : renderText(schema, results, positionals.length);
  process.stdout.write(output);
  return valid ? 0 : 1;
}

function resolveSchema(name: string | boolean | undefined): SchemaName {
  if (typeof name !== 'string' || name === '') {
    throw new UsageError('validate: --schema <name> is required (list the names with: parley schemas)');
  }
  if (isSchemaName(name)) return name;
  const suggestions = closestNames(name, schemaNames);
  const hint = suggestions.length > 0 ? `did you mean: ${suggestions.join(', ')}?` : 'list the names with: parley schemas';
  throw new UsageError(`validate: unknown schema "${name}"; ${hint}`, { code: 'unknown_schema', schema: name, suggestions });
}

function parseInput(file: string, text: string, splitArrays: boolean): ReturnType<typeof readJsonRecords> {
  try {
    return readJsonRecords(text, { splitArrays });
  } catch (error) {
    if (!(error instanceof JsonInputError)) throw error;
    throw new UsageError(`${file}: invalid JSON at line ${error.line}, column ${error.column}: ${error.reason}`, {
      code: 'invalid_json',
      file,
      line: error.line,
      column: error.column,
      reason: error.reason,
    });
  }
}

/** `file[index]/pointer: message` for every problem, then one summary line. */
function renderText(schema: SchemaName, results: readonly ValueResult[], fileCount: number): string {
  const lines: string[] = [];
  for (const result of results) {
    const where = `${result.file}${result.index === null ? '' : `[${result.index}]`}`;
    for (const issue of result.errors) lines.push(`${where}${issue.pointer === '' ? '(root)' : issue.pointer}: ${issue.message}`);
  }
  const invalid = results.filter((result) => !result.valid).length;
  const checked = `${plural(results.length, 'value')} in ${plural(fileCount, 'file')}`;
  lines.push(
    invalid === 0
      ? `ok: ${checked} valid against schema "${schema}"`
      : `invalid: ${invalid} of ${checked} failed schema "${schema}"`,
  );
  return `${lines.join('\n')}\n`;
}

function renderJson(schema: SchemaName, valid: boolean, results: readonly ValueResult[]): string {
  const document = {
    valid,
    schema,
    results: results.map((result) => ({
      file: result.file,
      index: result.index,
      valid: result.valid,
      errors: result.errors.map(({ pointer, keyword, message }) => ({ pointer, keyword, message })),
    })),
  };
  return `${JSON.stringify(document, null, 2)}\n`;
}

function plural(count: number, noun: string): string {
  return `${count} ${noun}${count === 1 ? '' : 's'}`;
}
