// A local server speaking the OpenAI chat completions API (POST /v1/chat/completions with
// `stream: true`) from scripted turns: `chat.completion.chunk` objects as SSE `data:` lines,
// the first with the assistant role, text in `delta.content`, tool calls in pieces under
// `delta.tool_calls[index]` (id, type and name first, the argument text after), a chunk with
// the `finish_reason`, the usage chunk (`choices: []`, asked for by stream_options), `[DONE]`.
import type { ServerResponse } from 'node:http';
import { ScriptedServer, type HangTurn, type TestScope } from './scripted-server.js';

export interface OpenAITurn {
  readonly text?: readonly string[];
  /** `arguments` is the raw text the model sends, sent in two pieces. */
  readonly toolCalls?: ReadonlyArray<{ readonly id: string; readonly name: string; readonly arguments: string }>;
  readonly usage?: { readonly prompt_tokens: number; readonly completion_tokens: number };
  /** Default: `tool_calls` when there are any, else `stop`. */
  readonly finish?: string;
  /** Drops the connection after this many text chunks, before the answer's end. */
  readonly cutAfter?: number;
  /** Waits for `until` after sending `chunks` text chunks (a test sees the answer arrive in parts). */
  readonly hold?: { readonly chunks: number; readonly until: Promise<unknown> };
}

let sequence = 0;

function chunk(choices: unknown[], extra: Record<string, unknown> = {}): string {
  const body = {
    id: `chatcmpl-${++sequence}`,
    object: 'chat.completion.chunk',
    created: 1_764_000_000,
    model: 'scripted',
    choices,
    ...extra,
  };
  return `data: ${JSON.stringify(body)}\n\n`;
}

function delta(value: Record<string, unknown>, finish: string | null = null): string {
  return chunk([{ index: 0, delta: value, logprobs: null, finish_reason: finish }]);
}

function startStream(res: ServerResponse): void {
  res.writeHead(200, { 'content-type': 'text/event-stream', 'cache-control': 'no-cache' });
  res.flushHeaders();
}

async function writeTurn(turn: OpenAITurn, res: ServerResponse): Promise<void> {
  startStream(res);
  res.write(delta({ role: 'assistant', content: '' }));
  let sent = 0;
  for (const text of turn.text ?? []) {
    if (turn.cutAfter !== undefined && sent === turn.cutAfter) {
      res.destroy();
      return;
    }
    // Written out before a cut, so the client sees the text that came before it.
    await new Promise((resolve) => res.write(delta({ content: text }), resolve));
    sent++;
    if (turn.hold?.chunks === sent) await turn.hold.until;
  }
  if (turn.cutAfter !== undefined) {
    res.destroy();
    return;
  }
  (turn.toolCalls ?? []).forEach((call, index) => {
    res.write(delta({ tool_calls: [{ index, id: call.id, type: 'function', function: { name: call.name, arguments: '' } }] }));
    const half = Math.ceil(call.arguments.length / 2);
    for (const piece of [call.arguments.slice(0, half), call.arguments.slice(half)]) {
      if (piece) res.write(delta({ tool_calls: [{ index, function: { arguments: piece } }] }));
    }
  });
  res.write(delta({}, turn.finish ?? (turn.toolCalls?.length ? 'tool_calls' : 'stop')));
  const usage = turn.usage ?? { prompt_tokens: 10, completion_tokens: 5 };
  res.write(chunk([], { usage: { ...usage, total_tokens: usage.prompt_tokens + usage.completion_tokens } }));
  res.end('data: [DONE]\n\n');
}

function writeHang(turn: HangTurn, res: ServerResponse): void {
  startStream(res);
  for (const text of turn.before ?? []) res.write(delta({ content: text }));
}

/** A server of the test `t` alone (see ScriptedServer.start). */
export function startOpenAIServer(t: TestScope): Promise<ScriptedServer<OpenAITurn>> {
  return new ScriptedServer<OpenAITurn>('/chat/completions', writeTurn, writeHang).start(t);
}

/** An OpenAI-shaped error body. */
export function openaiError(message: string, type = 'server_error'): unknown {
  return { error: { message, type, param: null, code: null } };
}
