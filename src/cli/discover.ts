// `parley discover URL`: the live agents a registry knows, filtered by name, role and tags, as
// a table a person reads (or the cards as JSON with --json). Nothing found is not an error.
import type { AgentCard } from '../../generated/types/index.js';
import type { DiscoverQuery } from '../../generated/types/index.js';
import { parseCommandArgs, type OptionSpecs } from './args.js';
import { CLIENT_SECURITY_OPTIONS, CLIENT_SECURITY_USAGE, clientSecurity } from './client-security.js';
import { reportRemoteFailure } from './output.js';
import { registryClient, TRANSPORT_HELP } from './registry-target.js';
import { UsageError } from './usage-error.js';

const OPTIONS: OptionSpecs = {
  name: { type: 'string' },
  role: { type: 'string' },
  tag: { type: 'string', multiple: true },
  json: { type: 'boolean' },
  transport: { type: 'string' },
  ...CLIENT_SECURITY_OPTIONS,
};

export const DISCOVER_USAGE = `Usage: parley discover REGISTRY_URL [--name NAME] [--role ROLE] [--tag TAG]... [--json]
                      [--transport NAME] [credential and TLS options]

Lists the live agents registered at REGISTRY_URL that match every filter given: a table of
name, role, tags and URL, or with --json the cards themselves as a JSON array, both sorted
by name (then URL). Exits 0 when the registry answered (even with no match), 1 when it
could not be reached or refused.

Options:
  --name NAME       exactly this agent name
  --role ROLE       exactly this role
  --tag TAG         carries this tag; repeat it, or give a comma list (--tag a,b), and
                    every tag must be on the card
  --json            print the matching cards as JSON
${TRANSPORT_HELP}
  -h, --help        show this help

${CLIENT_SECURITY_USAGE}`;

export async function runDiscover(args: string[]): Promise<number> {
  if (args.some((arg) => arg === '--help' || arg === '-h')) {
    process.stdout.write(DISCOVER_USAGE);
    return 0;
  }
  const parsed = parseCommandArgs('discover', args, OPTIONS);
  const { options, lists, positionals } = parsed;
  if (positionals.length > 1) throw new UsageError(`discover: unexpected argument ${JSON.stringify(positionals[1])}`);
  const flags = options as { name?: string; role?: string; json?: boolean; transport?: string };
  const security = await clientSecurity('discover', parsed, positionals[0], 'registry');
  const client = registryClient('discover', positionals[0], flags.transport, security);
  const query: DiscoverQuery = {};
  if (flags.name !== undefined) query.name = flags.name;
  if (flags.role !== undefined) query.role = flags.role;
  if (lists.tag!.length > 0) query.tags = [...lists.tag!];
  let cards: AgentCard[];
  try {
    cards = await client.discover(query);
  } catch (error) {
    return reportRemoteFailure('discover', client.url, error, flags.json === true);
  } finally {
    await client.close();
  }
  // By name, then URL, in both forms: the registry's own order is its storage's.
  cards.sort((a, b) => a.name.localeCompare(b.name) || a.url.localeCompare(b.url));
  if (flags.json) {
    process.stdout.write(`${JSON.stringify(cards, null, 2)}\n`);
    return 0;
  }
  if (cards.length === 0) {
    console.log(Object.keys(query).length > 0 ? 'no live agent matches' : 'no agent is registered');
    return 0;
  }
  process.stdout.write(table(cards));
  return 0;
}

/** Aligned columns, in the order given; a long description is left to --json. */
function table(sorted: readonly AgentCard[]): string {
  const rows = [
    ['NAME', 'ROLE', 'TAGS', 'URL'],
    ...sorted.map((card) => [card.name, card.role || '-', (card.tags ?? []).join(',') || '-', card.url]),
  ];
  const widths = rows[0]!.map((_, column) => Math.max(...rows.map((row) => row[column]!.length)));
  const lines = rows.map((row) =>
    row.map((cell, column) => (column === row.length - 1 ? cell : cell.padEnd(widths[column]!))).join('  '),
  );
  return `${lines.join('\n')}\n${sorted.length} agent${sorted.length === 1 ? '' : 's'}\n`;
}
