// `parley register REGISTRY_URL`: registers a card, read from a file (or standard input) or
// fetched from a running agent, and prints the registry's answer. Exits 1 when the registry
// refused the card (the reason names the field) or could not be reached.
import type { AgentCard } from '../../generated/types/index.js';
import { REGISTRY_STATUS } from '../../generated/operations/registry.js';
import { agentClient } from './agent-target.js';
import { parseCommandArgs, type OptionSpecs } from './args.js';
import { CLIENT_SECURITY_OPTIONS, CLIENT_SECURITY_USAGE, clientSecurity, type ClientSecurity } from './client-security.js';
import { EXIT, printJson, remoteFailure, reportRemoteFailure } from './output.js';
import { readInput } from './read-input.js';
import { registryClient, TRANSPORT_HELP } from './registry-target.js';
import { UsageError } from './usage-error.js';
import { isSecureUrl } from '../transport/url.js';

const OPTIONS: OptionSpecs = {
  card: { type: 'string' },
  agent: { type: 'string' },
  transport: { type: 'string' },
  json: { type: 'boolean' },
  ...CLIENT_SECURITY_OPTIONS,
};

export const REGISTER_USAGE = `Usage: parley register REGISTRY_URL (--card FILE | --agent AGENT_URL) [--json] [--transport NAME]
                      [credential and TLS options]

Registers an agent card with the registry at REGISTRY_URL (replacing any card with the same
url) and prints the registry's answer. Exits 0 once registered, 1 when the registry refused
the card or could not be reached.

Options:
  --card FILE       the card as JSON; - reads standard input
  --agent URL       fetch the card from the running agent at URL (its /.well-known/agent.json);
                    the TLS options below apply to it too, the credentials only to the registry
  --json            print the registry's answer as JSON: {"status", "registered", "url"};
                    a failure as {"error": {"code", "message", "url", "agent_url", ...}}
${TRANSPORT_HELP}
  -h, --help        show this help

Running agents can register themselves: parley serve agent --registry URL.

${CLIENT_SECURITY_USAGE}`;

export async function runRegister(args: string[]): Promise<number> {
  if (args.some((arg) => arg === '--help' || arg === '-h')) {
    process.stdout.write(REGISTER_USAGE);
    return 0;
  }
  const parsed = parseCommandArgs('register', args, OPTIONS);
  const { options, positionals } = parsed;
  if (positionals.length > 1) throw new UsageError(`register: unexpected argument ${JSON.stringify(positionals[1])}`);
  const flags = options as { card?: string; agent?: string; transport?: string; json?: boolean };
  if ((flags.card === undefined) === (flags.agent === undefined)) {
    throw new UsageError('register: give exactly one of --card FILE and --agent AGENT_URL');
  }
  const json = flags.json === true;
  // The TLS flags may be meant for a secure agent that --agent names, not the registry.
  const registryUrl = positionals[0];
  const secureUrl =
    registryUrl !== undefined && !isSecureUrl(registryUrl) && flags.agent !== undefined ? flags.agent : registryUrl;
  const security = await clientSecurity('register', parsed, secureUrl, 'registry');
  const client = registryClient('register', positionals[0], flags.transport, security);
  try {
    let card: AgentCard;
    if (flags.card !== undefined) card = await cardFromFile(flags.card);
    else {
      // The agent gets the TLS settings, never the registry's credentials.
      const agent = await cardFromAgent(flags.agent!, isSecureUrl(flags.agent!) ? security.tls : undefined);
      if (!agent.ok) return reportRemoteFailure('register: fetching the card', flags.agent!, agent.error, json);
      card = agent.card;
    }
    // The client answers failures too (unreachable, refused) as a status with the error beside it.
    const outcome = await client.register(card);
    const registered = !outcome.error && outcome.status === REGISTRY_STATUS.registered;
    if (json) {
      // A failure is the `{"error": ...}` document every command prints in JSON mode.
      if (outcome.error) printJson(remoteFailure('register', client.url, outcome.error, { agent_url: card.url ?? null }));
      else printJson({ status: outcome.status, registered, url: card.url ?? null });
    } else if (registered) console.log(`${outcome.status}: ${card.name} at ${card.url}`);
    else console.error(`parley: the registry at ${client.url} did not register ${card.url ?? 'the card'}: ${outcome.status}`);
    return registered ? EXIT.ok : EXIT.failed;
  } finally {
    await client.close();
  }
}

async function cardFromFile(path: string): Promise<AgentCard> {
  const text = await readInput(path);
  try {
    return JSON.parse(text) as AgentCard;
  } catch (error) {
    throw new UsageError(`register: ${path === '-' ? 'standard input' : path} is not JSON: ${(error as Error).message}`);
  }
}

async function cardFromAgent(
  url: string,
  tls: ClientSecurity['tls'],
): Promise<{ ok: true; card: AgentCard } | { ok: false; error: unknown }> {
  const agent = agentClient('register', url, { protocol: 'parley', ...(tls && { tls }) });
  try {
    return { ok: true, card: await agent.getCard() };
  } catch (error) {
    return { ok: false, error };
  } finally {
    await agent.close();
  }
}
