// `parley health URL`: asks an agent or a registry for its health (GET /healthz, or with
// --ready its readiness, GET /readyz) and prints it. Both routes are public, so credentials
// are not needed (the flags are taken all the same, and TLS ones matter). The exit status is what a probe or a script wants: 0 ready, 1 not ready or not
// reachable.
import type { Health } from '../../generated/types/index.js';
import { agentClient } from './agent-target.js';
import { parseCommandArgs, type OptionSpecs } from './args.js';
import { CLIENT_SECURITY_OPTIONS, CLIENT_SECURITY_USAGE, clientSecurity } from './client-security.js';
import { EXIT, printJson, reportRemoteFailure } from './output.js';
import { TRANSPORT_HELP } from './registry-target.js';
import { UsageError } from './usage-error.js';

const OPTIONS: OptionSpecs = {
  ready: { type: 'boolean' },
  json: { type: 'boolean' },
  transport: { type: 'string' },
  help: { type: 'boolean', short: 'h' },
  ...CLIENT_SECURITY_OPTIONS,
};

export const HEALTH_USAGE = `Usage: parley health URL [--ready] [--json] [--transport NAME] [credential and TLS options]

Asks the agent or registry at URL for its health and prints its status, transport, URL and
request counters; with --json the health document as sent. Exits 0 when it is ready, 1 when it
answered not ready or could not be reached.

Options:
  --ready           ask the readiness route (/readyz) instead of the health route (/healthz)
  --json            print the health document as JSON
${TRANSPORT_HELP}
  -h, --help        show this help

${CLIENT_SECURITY_USAGE}`;

export async function runHealth(args: string[]): Promise<number> {
  const parsed = parseCommandArgs('health', args, OPTIONS);
  const { options, positionals } = parsed;
  if (options.help) {
    process.stdout.write(HEALTH_USAGE);
    return EXIT.ok;
  }
  if (positionals.length > 1) throw new UsageError(`health: unexpected argument ${JSON.stringify(positionals[1])}`);
  const flags = options as { ready?: boolean; json?: boolean; transport?: string };
  // Health is the same operation on agents and registries; the agent client reaches both.
  const security = await clientSecurity('health', parsed, positionals[0]);
  const client = agentClient('health', positionals[0], { transport: flags.transport, protocol: 'parley', ...security });
  let health: Health;
  try {
    health = flags.ready ? await client.readiness() : await client.health();
  } catch (error) {
    return reportRemoteFailure('health', client.url, error, flags.json === true);
  } finally {
    await client.close();
  }
  if (flags.json) printJson(health);
  else process.stdout.write(describeHealth(health));
  return health.ready ? EXIT.ok : EXIT.failed;
}

function describeHealth(health: Health): string {
  const m = health.metrics;
  return [
    `${health.status} (${health.transport} ${health.url})`,
    `requests: ${m.requests_started} started, ${m.requests_succeeded} succeeded, ${m.requests_failed} failed, ${m.active_requests} active`,
    `streams: ${m.streams_started} started, ${m.streams_completed} completed, ${m.streams_failed} failed, ${m.active_streams} active`,
    '',
  ].join('\n');
}
