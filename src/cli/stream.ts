// `parley stream URL TEXT`: sends the text as a one-message task over a stream and prints each
// event as it arrives: one plain line per event when piped, the same lines under a spinner on
// a terminal, or one JSON event per line with --json. An http(s) URL is streamed over sse
// (the http transport has no streams); an agent that serves no stream there (a plain http
// agent) answers the task in one piece instead, printed as the stream's one final event, as
// the runtime transport does for such agents.
import type { StreamEvent } from '../../generated/types/index.js';
import type { AgentClient } from '../client/agent-client.js';
import { transportForScheme } from '../transport/factory.js';
import { agentClient } from './agent-target.js';
import { parseCommandArgs, type OptionSpecs } from './args.js';
import { CLIENT_SECURITY_OPTIONS, CLIENT_SECURITY_USAGE, clientSecurity } from './client-security.js';
import { EXIT, reportRemoteFailure } from './output.js';
import { ProgressLine } from './progress-line.js';
import { TRANSPORT_HELP } from './registry-target.js';
import { describeArtifact, describeTask, partsText, stateLine } from './task-text.js';
import { UsageError } from './usage-error.js';

const OPTIONS: OptionSpecs = {
  json: { type: 'boolean' },
  transport: { type: 'string' },
  help: { type: 'boolean', short: 'h' },
  ...CLIENT_SECURITY_OPTIONS,
};

export const STREAM_USAGE = `Usage: parley stream URL TEXT [--json] [--transport NAME] [credential and TLS options]

Sends TEXT to the parley agent at URL as a one-message task and prints its events as they
arrive: state changes, messages, artifacts, the model's tokens, tool calls and results, and
last the final state. On a terminal a spinner line shows progress meanwhile (on standard
error); piped, only the events are printed. An http or https URL is streamed over sse; an
agent without streams there answers the whole task as the one final event. Exits 0 when the
task completed or waits for input, 1 when it failed or was canceled or the agent could not
be reached.

Options:
  --json            print each event as one line of JSON (JSON Lines), nothing else
${TRANSPORT_HELP.replace('(http/https: http,', '(http/https: sse,')}
  -h, --help        show this help

${CLIENT_SECURITY_USAGE}`;

/** Failures before the first event that mean "no stream here", answered by a plain send. */
const NO_STREAM_CODES = new Set(['not_found', 'streaming_unsupported']);

export async function runStream(args: string[]): Promise<number> {
  const parsed = parseCommandArgs('stream', args, OPTIONS);
  const { options, positionals } = parsed;
  if (options.help) {
    process.stdout.write(STREAM_USAGE);
    return EXIT.ok;
  }
  const [url, text, ...extra] = positionals;
  if (url === undefined || text === undefined) throw new UsageError('stream: needs a URL and a text (see parley stream --help)');
  if (extra.length > 0)
    throw new UsageError(`stream: unexpected argument ${JSON.stringify(extra[0])} (see parley stream --help)`);
  const flags = options as { json?: boolean; transport?: string };
  const transport = flags.transport ?? (transportForScheme(url) === 'http' ? 'sse' : undefined);
  const security = await clientSecurity('stream', parsed, url);
  const client = agentClient('stream', url, { transport, protocol: 'parley', ...security });
  const printer = new EventPrinter(flags.json === true, process.stdout.isTTY === true && process.stderr.isTTY === true);
  try {
    const final = await streamOrSend(client, text, (event) => printer.print(event));
    return final === 'failed' || final === 'canceled' ? EXIT.failed : EXIT.ok;
  } catch (error) {
    printer.close();
    return reportRemoteFailure('stream', client.url, error, flags.json === true);
  } finally {
    printer.close();
    await client.close();
  }
}

/** Streams the task, or sends it when the agent has no stream; returns the final state. */
async function streamOrSend(client: AgentClient, text: string, onEvent: (event: StreamEvent) => void): Promise<string | null> {
  let final: string | null = null;
  let seen = false;
  try {
    for await (const event of client.streamTask(text)) {
      seen = true;
      if (event.type === 'task_completed') final = event.state;
      onEvent(event);
    }
    return final;
  } catch (error) {
    const code = (error as { code?: unknown }).code;
    if (seen || typeof code !== 'string' || !NO_STREAM_CODES.has(code)) throw error;
  }
  const task = await client.sendTask(text);
  onEvent({ type: 'task_completed', task_id: task.id ?? '', timestamp: new Date().toISOString(), state: task.state!, task });
  return task.state ?? null;
}

/** Prints events in the chosen form, keeping the spinner (when there is one) out of the way. */
class EventPrinter {
  private readonly progress: ProgressLine | null;
  /** A model's tokens are being printed and their line is not finished yet. */
  private openLine = false;
  /** Whether the answer was already shown by message or artifact events. */
  private answered = false;

  constructor(
    private readonly json: boolean,
    terminal: boolean,
  ) {
    this.progress = json || !terminal ? null : new ProgressLine(process.stderr);
    if (this.progress) {
      this.progress.start();
      // Ctrl-C mid-stream leaves the terminal clean, with the conventional status of an interrupt.
      process.once('SIGINT', () => {
        this.close();
        process.stderr.write('\n', () => process.exit(130));
      });
    }
  }

  print(event: StreamEvent): void {
    if (this.json) {
      process.stdout.write(`${JSON.stringify(event)}\n`);
      return;
    }
    this.progress?.event('state' in event ? event.state : undefined);
    const text = this.text(event);
    const write = () => process.stdout.write(text);
    if (this.progress) this.progress.around(write, this.openLine);
    else write();
  }

  close(): void {
    this.progress?.stop();
  }

  private text(event: StreamEvent): string {
    if (event.type === 'task_llm_stream') {
      const end = event.final ? '\n' : '';
      this.openLine = !event.final;
      return `${event.delta}${end}`;
    }
    // Any other event starts on a line of its own.
    const lead = this.openLine ? '\n' : '';
    this.openLine = false;
    return `${lead}${this.line(event)}\n`;
  }

  private line(event: Exclude<StreamEvent, { type: 'task_llm_stream' }>): string {
    switch (event.type) {
      case 'task_status':
        return `status: ${event.state}${event.reason ? ` (${event.reason})` : ''}`;
      case 'task_message':
        this.answered ||= event.message.role !== 'user';
        return `${event.message.role}: ${partsText(event.message.parts)}`;
      case 'task_artifact':
        this.answered = true;
        return describeArtifact(event.artifact);
      case 'task_tool_call':
        return `tool call ${event.tool_call.name} ${JSON.stringify(event.tool_call.arguments ?? {})}`;
      case 'task_tool_result': {
        const { call_id, error, result } = event.tool_result;
        return `tool result ${call_id}: ${error ? `error: ${error}` : JSON.stringify(result ?? null)}`;
      }
      case 'task_completed':
        // Without earlier events (a sent task, or a stream with only its end) the task itself is the answer.
        return this.answered ? stateLine(event.task) : describeTask(event.task).trimEnd();
    }
  }
}
