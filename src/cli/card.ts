// `parley card URL`: fetches an agent's native card (GET /.well-known/agent.json, or the same
// operation on another transport) and prints what a person wants from it, or the card itself
// with --json. Exits 1 when the agent could not be reached or refused.
import type { AgentCard } from '../../generated/types/index.js';
import { agentClient } from './agent-target.js';
import { parseCommandArgs, type OptionSpecs } from './args.js';
import { CLIENT_SECURITY_OPTIONS, CLIENT_SECURITY_USAGE, clientSecurity } from './client-security.js';
import { EXIT, printJson, reportRemoteFailure } from './output.js';
import { TRANSPORT_HELP } from './registry-target.js';
import { UsageError } from './usage-error.js';

const OPTIONS: OptionSpecs = {
  json: { type: 'boolean' },
  transport: { type: 'string' },
  ...CLIENT_SECURITY_OPTIONS,
};

export const CARD_USAGE = `Usage: parley card AGENT_URL [--json] [--transport NAME] [credential and TLS options]

Prints the card of the agent at AGENT_URL: its name, description, URL, role, tags, version,
capabilities, interfaces and authentication schemes; with --json the card as the agent sent
it. Exits 0 with the card, 1 when the agent could not be reached or refused.

Options:
  --json            print the card as JSON
${TRANSPORT_HELP}
  -h, --help        show this help

${CLIENT_SECURITY_USAGE}`;

export async function runCard(args: string[]): Promise<number> {
  const parsed = parseCommandArgs('card', args, { ...OPTIONS, help: { type: 'boolean', short: 'h' } });
  const { options, positionals } = parsed;
  if (options.help) {
    process.stdout.write(CARD_USAGE);
    return EXIT.ok;
  }
  if (positionals.length > 1) throw new UsageError(`card: unexpected argument ${JSON.stringify(positionals[1])}`);
  const flags = options as { json?: boolean; transport?: string };
  const security = await clientSecurity('card', parsed, positionals[0]);
  const client = agentClient('card', positionals[0], { transport: flags.transport, protocol: 'parley', ...security });
  let card: AgentCard;
  try {
    card = await client.getCard();
  } catch (error) {
    return reportRemoteFailure('card', client.url, error, flags.json === true);
  } finally {
    await client.close();
  }
  if (flags.json) printJson(card);
  else process.stdout.write(describeCard(card));
  return EXIT.ok;
}

/** One `label: value` line per field the card has, in a fixed order. */
function describeCard(card: AgentCard): string {
  const rows: Array<[string, string | undefined]> = [
    ['name', card.name],
    ['description', card.description || undefined],
    ['url', card.url],
    ['role', card.role || undefined],
    ['tags', card.tags?.length ? card.tags.join(', ') : undefined],
    ['version', card.version || undefined],
    ['capabilities', capabilities(card)],
    ['auth', Object.keys(card.securitySchemes ?? {}).join(', ') || 'none'],
  ];
  const lines = rows.filter(([, value]) => value !== undefined).map(([label, value]) => `${`${label}:`.padEnd(14)}${value}`);
  for (const face of card.interfaces ?? []) lines.push(`${'interface:'.padEnd(14)}${face.transport} ${face.url}`);
  return `${lines.join('\n')}\n`;
}

/** The capability flags that are on, by name. */
function capabilities(card: AgentCard): string | undefined {
  const flags = Object.entries((card.capabilities ?? {}) as Record<string, unknown>)
    .filter(([, on]) => on === true)
    .map(([name]) => name);
  return flags.length > 0 ? flags.join(', ') : undefined;
}
