// `parley unregister REGISTRY_URL AGENT_URL`: removes an agent from a registry. An agent the
// registry does not know is removed all the same (the call is idempotent).
import { parseCommandArgs, type OptionSpecs } from './args.js';
import { registryClient, TRANSPORT_HELP } from './registry-target.js';
import { UsageError } from './usage-error.js';

const OPTIONS: OptionSpecs = {
  transport: { type: 'string' },
};

export const UNREGISTER_USAGE = `Usage: parley unregister REGISTRY_URL AGENT_URL

Removes the agent whose card url is AGENT_URL from the registry at REGISTRY_URL and prints
the registry's answer, which is a success for an unknown agent too. Exits 1 when the
registry could not be reached.

Options:
${TRANSPORT_HELP}
  -h, --help        show this help
`;

export async function runUnregister(args: string[]): Promise<number> {
  if (args.some((arg) => arg === '--help' || arg === '-h')) {
    process.stdout.write(UNREGISTER_USAGE);
    return 0;
  }
  const { options, positionals } = parseCommandArgs('unregister', args, OPTIONS);
  const [registryUrl, agentUrl, extra] = positionals;
  if (extra !== undefined) throw new UsageError(`unregister: unexpected argument ${JSON.stringify(extra)}`);
  const client = registryClient('unregister', registryUrl, (options as { transport?: string }).transport);
  if (agentUrl === undefined || agentUrl === '') throw new UsageError("unregister: give the agent's URL after the registry's");
  try {
    const outcome = await client.unregister(agentUrl);
    if (outcome.error) {
      console.error(`parley: could not unregister ${agentUrl} at ${client.url}: ${outcome.status}`);
      return 1;
    }
    console.log(`${outcome.status}: ${agentUrl}`);
    return 0;
  } finally {
    await client.close();
  }
}
