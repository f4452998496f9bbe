// `parley schemas [--format text|json]`: the names `parley validate --schema` accepts, the
// native schemas first, then the A2A 1.0 ones (`a2a:<Message>`).
import { schemaNames } from '../../generated/validators/index.js';
import { parseCommandArgs } from './args.js';
import { UsageError } from './usage-error.js';

export const SCHEMAS_USAGE = `Usage: parley schemas [--json | --format text|json]

Lists the schema names parley validate accepts: parley's own schemas first, then the
A2A 1.0 messages as a2a:<Message>. text prints one name per line; json an array.

Options:
  --json               the same as --format json
  --format text|json   text (default) or json
  -h, --help           show this help
`;

export async function runSchemas(args: string[]): Promise<number> {
  const { options, positionals } = parseCommandArgs('schemas', args, {
    format: { type: 'string', choices: ['text', 'json'] },
    json: { type: 'boolean' },
    help: { type: 'boolean', short: 'h' },
  });
  if (options.help) {
    process.stdout.write(SCHEMAS_USAGE);
    return 0;
  }
  if (positionals.length > 0) {
    throw new UsageError(`schemas: unexpected argument "${positionals[0]}"`);
  }
  process.stdout.write(
    options.format === 'json' || options.json ? `${JSON.stringify(schemaNames, null, 2)}\n` : `${schemaNames.join('\n')}\n`,
  );
  return 0;
}
