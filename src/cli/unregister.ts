// `parley unregister REGISTRY_URL AGENT_URL`: removes an agent from a registry. An agent the
// registry does not know is removed all the same (the call is idempotent).
import { parseCommandArgs, type OptionSpecs } from './args.js';
import { CLIENT_SECURITY_OPTIONS, CLIENT_SECURITY_USAGE, clientSecurity } from './client-security.js';
import { EXIT, printJson, remoteFailure } from './output.js';
import { registryClient, TRANSPORT_HELP } from './registry-target.js';
import { UsageError } from './usage-error.js';

const OPTIONS: OptionSpecs = {
  transport: { type: 'string' },
  json: { type: 'boolean' },
  ...CLIENT_SECURITY_OPTIONS,
};

export const UNREGISTER_USAGE = `Usage: parley unregister REGISTRY_URL AGENT_URL [--json] [--transport NAME] [credential and TLS options]

Removes the agent whose card url is AGENT_URL from the registry at REGISTRY_URL and prints
the registry's answer, which is a success for an unknown agent too. Exits 1 when the
registry could not be reached.

Options:
  --json            print the registry's answer as JSON: {"status", "unregistered", "url"};
                    a failure as {"error": {"code", "message", "url", "agent_url", ...}}
${TRANSPORT_HELP}
  -h, --help        show this help

${CLIENT_SECURITY_USAGE}`;

export async function runUnregister(args: string[]): Promise<number> {
  if (args.some((arg) => arg === '--help' || arg === '-h')) {
    process.stdout.write(UNREGISTER_USAGE);
    return 0;
  }
  const parsed = parseCommandArgs('unregister', args, OPTIONS);
  const { options, positionals } = parsed;
  const [registryUrl, agentUrl, extra] = positionals;
  if (extra !== undefined) throw new UsageError(`unregister: unexpected argument ${JSON.stringify(extra)}`);
  const security = await clientSecurity('unregister', parsed, registryUrl, 'registry');
  const client = registryClient('unregister', registryUrl, (options as { transport?: string }).transport, security);
  if (agentUrl === undefined || agentUrl === '') throw new UsageError("unregister: give the agent's URL after the registry's");
  const json = (options as { json?: boolean }).json === true;
  try {
    // The client answers failures too (unreachable, refused) as a status with the error beside it.
    const outcome = await client.unregister(agentUrl);
    if (json) {
      // A failure is the `{"error": ...}` document every command prints in JSON mode.
      if (outcome.error) printJson(remoteFailure('unregister', client.url, outcome.error, { agent_url: agentUrl }));
      else printJson({ status: outcome.status, unregistered: true, url: agentUrl });
    } else if (outcome.error) console.error(`parley: could not unregister ${agentUrl} at ${client.url}: ${outcome.status}`);
    else console.log(`${outcome.status}: ${agentUrl}`);
    return outcome.error ? EXIT.failed : EXIT.ok;
  } finally {
    await client.close();
  }
}
