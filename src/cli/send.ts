// `parley send URL "text"`: sends the text as a one-message task to an agent, a parley one or
// an A2A 1.0 one (`--protocol auto`, the default, tells them apart), and prints the agent's
// answer, the task's state and its artifacts; `--json` prints the whole task instead.
import type { Part, Task } from '../../generated/types/index.js';
import { AgentClient } from '../client/agent-client.js';
import { parseCommandArgs, type OptionSpecs } from './args.js';
import { UsageError } from './usage-error.js';

const SEND_OPTIONS: OptionSpecs = {
  protocol: { type: 'string', choices: ['auto', 'parley', 'native', 'a2a'] },
  json: { type: 'boolean' },
};

export const SEND_USAGE = `Usage: parley send URL TEXT [--protocol auto|parley|a2a] [--json]

Sends TEXT to the agent at URL as a one-message task and prints the agent's answer, the
task's state and its artifacts. Exits 0 when the task completed or waits for input, 1 when
it failed or was canceled.

Options:
  --protocol NAME   auto (default): ask the agent for its native card, and use A2A 1.0
                    only when it has none (404 or 405); parley (or native): always the
                    native routes; a2a: always A2A 1.0 JSON-RPC
  --json            print the whole task as JSON
  -h, --help        show this help
`;

export async function runSend(args: string[]): Promise<number> {
  if (args.some((arg) => arg === '--help' || arg === '-h')) {
    process.stdout.write(SEND_USAGE);
    return 0;
  }
  const { options, positionals } = parseCommandArgs('send', args, SEND_OPTIONS);
  const [url, text, ...extra] = positionals;
  if (url === undefined || text === undefined) throw new UsageError('send: needs a URL and a text (see parley send --help)');
  if (extra.length > 0) throw new UsageError(`send: unexpected argument ${JSON.stringify(extra[0])} (see parley send --help)`);
  const flags = options as { protocol?: 'auto' | 'parley' | 'native' | 'a2a'; json?: boolean };
  let client: AgentClient;
  try {
    client = new AgentClient(url, { protocol: flags.protocol ?? 'auto' });
  } catch (error) {
    throw new UsageError(`send: ${(error as Error).message}`);
  }
  let task: Task;
  try {
    task = await client.sendTask(text);
  } finally {
    await client.close();
  }
  if (flags.json) process.stdout.write(`${JSON.stringify(task, null, 2)}\n`);
  else process.stdout.write(describeTask(task));
  return task.state === 'failed' || task.state === 'canceled' ? 1 : 0;
}

/** The answer, the state and the artifacts, for a person to read. */
function describeTask(task: Task): string {
  const lines: string[] = [];
  const reply = [...(task.messages ?? [])].reverse().find((message) => message.role !== 'user');
  if (reply) lines.push(partsText(reply.parts));
  lines.push(`state: ${task.state ?? 'unknown'}`);
  const remote = task.metadata?.a2a_remote as { task_id?: string; state?: string } | undefined;
  if (remote?.task_id) lines.push(`a2a task: ${remote.task_id} (${remote.state})`);
  for (const artifact of task.artifacts ?? []) {
    lines.push(`artifact ${artifact.name ?? artifact.kind ?? ''} ${artifact.id}:`.replace(/\s+/g, ' ').trim());
    lines.push(indent(partsText(artifact.parts)));
  }
  return `${lines.join('\n')}\n`;
}

function partsText(parts: readonly Part[]): string {
  return parts
    .map((part) =>
      part.type === 'text' && typeof part.content === 'string' ? part.content : `[${part.type}] ${JSON.stringify(part.content)}`,
    )
    .join('\n');
}

function indent(text: string): string {
  return text
    .split('\n')
    .map((line) => `  ${line}`)
    .join('\n');
}
