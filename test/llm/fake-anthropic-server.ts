// A local server speaking Anthropic's messages API (POST /v1/messages with `stream: true`)
// from scripted turns: SSE with named events, `message_start` (usage.input_tokens), per block
// `content_block_start`, `content_block_delta` (`text_delta`, or `input_json_delta` pieces of
// a tool_use block's input) and `content_block_stop`, a `ping`, then `message_delta` (the
// stop_reason and the cumulative output tokens) and `message_stop`.
import type { ServerResponse } from 'node:http';
import { ScriptedServer, type HangTurn, type TestScope } from './scripted-server.js';

export interface AnthropicTurn {
  readonly text?: readonly string[];
  /** `input` is the raw JSON text of the tool input, sent in two pieces. */
  readonly toolUses?: ReadonlyArray<{ readonly id: string; readonly name: string; readonly input: string }>;
  readonly usage?: { readonly input_tokens: number; readonly output_tokens: number };
  /** Default: `tool_use` when there are any, else `end_turn`. */
  readonly stopReason?: string;
  /** Drops the connection after this many text chunks, before the answer's end. */
  readonly cutAfter?: number;
  /** Sends an `error` event (overloaded_error) after the text instead of the end. */
  readonly errorEvent?: string;
}

let sequence = 0;

function event(name: string, data: Record<string, unknown>): string {
  return `event: ${name}\ndata: ${JSON.stringify({ type: name, ...data })}\n\n`;
}

function startStream(res: ServerResponse, inputTokens: number): void {
  res.writeHead(200, { 'content-type': 'text/event-stream', 'cache-control': 'no-cache', 'request-id': `req_${++sequence}` });
  res.flushHeaders();
  const message = {
    id: `msg_${sequence}`,
    type: 'message',
    role: 'assistant',
    content: [],
    model: 'scripted',
    stop_reason: null,
    stop_sequence: null,
    usage: { input_tokens: inputTokens, output_tokens: 1 },
  };
  res.write(event('message_start', { message }));
}

async function writeTurn(turn: AnthropicTurn, res: ServerResponse): Promise<void> {
  const usage = turn.usage ?? { input_tokens: 10, output_tokens: 5 };
  startStream(res, usage.input_tokens);
  let index = 0;
  if (turn.text) {
    res.write(event('content_block_start', { index, content_block: { type: 'text', text: '' } }));
    res.write(event('ping', {}));
    let sent = 0;
    for (const text of turn.text) {
      if (turn.cutAfter !== undefined && sent === turn.cutAfter) {
        res.destroy();
        return;
      }
      // Written out before a cut, so the client sees the text that came before it.
      await new Promise((resolve) =>
        res.write(event('content_block_delta', { index, delta: { type: 'text_delta', text } }), resolve),
      );
      sent++;
    }
    if (turn.cutAfter !== undefined) {
      res.destroy();
      return;
    }
    if (turn.errorEvent) {
      res.end(event('error', { error: { type: 'overloaded_error', message: turn.errorEvent } }));
      return;
    }
    res.write(event('content_block_stop', { index }));
    index++;
  }
  for (const use of turn.toolUses ?? []) {
    res.write(
      event('content_block_start', { index, content_block: { type: 'tool_use', id: use.id, name: use.name, input: {} } }),
    );
    const half = Math.ceil(use.input.length / 2);
    for (const piece of [use.input.slice(0, half), use.input.slice(half)]) {
      if (piece) res.write(event('content_block_delta', { index, delta: { type: 'input_json_delta', partial_json: piece } }));
    }
    res.write(event('content_block_stop', { index }));
    index++;
  }
  const stop = turn.stopReason ?? (turn.toolUses?.length ? 'tool_use' : 'end_turn');
  res.write(
    event('message_delta', { delta: { stop_reason: stop, stop_sequence: null }, usage: { output_tokens: usage.output_tokens } }),
  );
  res.end(event('message_stop', {}));
}

function writeHang(turn: HangTurn, res: ServerResponse): void {
  startStream(res, 10);
  if (turn.before) {
    res.write(event('content_block_start', { index: 0, content_block: { type: 'text', text: '' } }));
    for (const text of turn.before) res.write(event('content_block_delta', { index: 0, delta: { type: 'text_delta', text } }));
  }
}

/** A server of the test `t` alone (see ScriptedServer.start). */
export function startAnthropicServer(t: TestScope): Promise<ScriptedServer<AnthropicTurn>> {
  return new ScriptedServer<AnthropicTurn>('/messages', writeTurn, writeHang).start(t);
}

/** An Anthropic-shaped error body. */
export function anthropicError(message: string, type = 'api_error'): unknown {
  return { type: 'error', error: { type, message } };
}
