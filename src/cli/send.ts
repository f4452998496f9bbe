// `parley send URL "text"`: sends the text as a one-message task to an agent, a parley one or
// an A2A 1.0 one (`--protocol auto`, the default, tells them apart), and prints the agent's
// answer, the task's state and its artifacts; `--json` prints the whole task instead.
import type { Task } from '../../generated/types/index.js';
import { agentClient } from './agent-target.js';
import { parseCommandArgs, type OptionSpecs } from './args.js';
import { CLIENT_SECURITY_OPTIONS, CLIENT_SECURITY_USAGE, clientSecurity } from './client-security.js';
import { EXIT, printJson, reportRemoteFailure } from './output.js';
import { TRANSPORT_HELP } from './registry-target.js';
import { describeTask } from './task-text.js';
import { UsageError } from './usage-error.js';

const SEND_OPTIONS: OptionSpecs = {
  protocol: { type: 'string', choices: ['auto', 'parley', 'native', 'a2a'] },
  json: { type: 'boolean' },
  transport: { type: 'string' },
  ...CLIENT_SECURITY_OPTIONS,
};

export const SEND_USAGE = `Usage: parley send URL TEXT [--protocol auto|parley|a2a] [--json] [--transport NAME]
                  [credential and TLS options]

Sends TEXT to the agent at URL as a one-message task and prints the agent's answer, the
task's state and its artifacts. Exits 0 when the task completed or waits for input, 1 when
it failed or was canceled or the agent could not be reached.

Options:
  --protocol NAME   auto (default): ask the agent for its native card, and use A2A 1.0
                    only when it has none (404 or 405); parley (or native): always the
                    native routes; a2a: always A2A 1.0 JSON-RPC
  --json            print the whole task as JSON
${TRANSPORT_HELP}
  -h, --help        show this help

${CLIENT_SECURITY_USAGE}`;

export async function runSend(args: string[]): Promise<number> {
  if (args.some((arg) => arg === '--help' || arg === '-h')) {
    process.stdout.write(SEND_USAGE);
    return 0;
  }
  const parsed = parseCommandArgs('send', args, SEND_OPTIONS);
  const { options, positionals } = parsed;
  const [url, text, ...extra] = positionals;
  if (url === undefined || text === undefined) throw new UsageError('send: needs a URL and a text (see parley send --help)');
  if (extra.length > 0) throw new UsageError(`send: unexpected argument ${JSON.stringify(extra[0])} (see parley send --help)`);
  const flags = options as { protocol?: 'auto' | 'parley' | 'native' | 'a2a'; json?: boolean; transport?: string };
  const security = await clientSecurity('send', parsed, url);
  const client = agentClient('send', url, { transport: flags.transport, protocol: flags.protocol ?? 'auto', ...security });
  let task: Task;
  try {
    task = await client.sendTask(text);
  } catch (error) {
    return reportRemoteFailure('send', client.url, error, flags.json === true);
  } finally {
    await client.close();
  }
  if (flags.json) printJson(task);
  else process.stdout.write(describeTask(task));
  return task.state === 'failed' || task.state === 'canceled' ? EXIT.failed : EXIT.ok;
}
