// Raw stream peers of the reliability suite: one POST /tasks/stream per connection, read to its
// final event, on each wire that has streams (sse, websocket, grpc). The outcome is the final
// event in the one answer shape of setup.ts, or the way the connection ended without it.
import { request as httpRequest } from 'node:http';
import { connect as http2Connect } from 'node:http2';
import WebSocket from 'ws';
import { ALICE, envelopeJson, grpcFrame, type Answer, type Call, type ChildServer } from './setup.js';

const STREAM_PATH = '/svc.transport.v1.SvcTransport/Stream';

/**
 * Opens `call` as a stream on its own connection and waits for its final event. `signal` (sse
 * only) drops the connection, as a client that leaves would.
 */
export function sendStream(server: ChildServer, call: Call, signal?: AbortSignal): Promise<Answer> {
  switch (server.kind) {
    case 'sse':
      return sseStream(server.url, call, signal);
    case 'websocket':
      return webSocketStream(server.url, call);
    case 'grpc':
      return grpcStream(server.url, call);
    case 'http':
      throw new Error('the http transport has no streams');
  }
}

/** The answer a stream's envelopes make: the final one, or why there was none. */
function finalAnswer(envelopes: readonly any[], text: string, ended: string): Answer {
  const last = envelopes.at(-1);
  if (last?.final !== true) return { kind: 'closed', reason: `${ended} after ${envelopes.length} events, none final`, text };
  if (last.ok === true) return { kind: 'ok', result: last.result, text };
  const code = typeof last.error?.code === 'string' ? last.error.code : null;
  return { kind: 'error', status: Number(last.error?.status ?? 0), code, text };
}

function parsed(text: string): any {
  try {
    return JSON.parse(text);
  } catch {
    return undefined;
  }
}

function sseStream(url: string, call: Call, signal?: AbortSignal): Promise<Answer> {
  return new Promise((resolve) => {
    const headers = { 'x-api-key': call.key ?? ALICE, 'content-type': 'application/json' };
    const req = httpRequest(new URL('/tasks/stream', url), { method: 'POST', headers, agent: false, signal }, (res) => {
      let text = '';
      res.setEncoding('utf8');
      res.on('data', (chunk: string) => (text += chunk));
      res.on('error', (error) => resolve({ kind: 'closed', reason: error.message, text }));
      res.on('end', () => {
        if ((res.statusCode ?? 0) >= 300) {
          const body = parsed(text);
          return resolve({ kind: 'error', status: res.statusCode ?? 0, code: body?.error?.code ?? null, text });
        }
        const envelopes = [...text.matchAll(/^data: (.*)$/gm)].map((match) => parsed(match[1]!));
        resolve(finalAnswer(envelopes, text, 'the response ended'));
      });
    });
    req.on('error', (error) => resolve({ kind: 'closed', reason: error.message, text: '' }));
    req.end(call.data);
  });
}

function webSocketStream(url: string, call: Call): Promise<Answer> {
  return new Promise((resolve) => {
    const socket = new WebSocket(url, { headers: { 'x-api-key': call.key ?? ALICE } });
    const envelopes: any[] = [];
    let text = '';
    let settled = false;
    const settle = (answer: Answer) => {
      if (settled) return;
      settled = true;
      socket.terminate();
      resolve(answer);
    };
    socket.on('error', (error) => settle({ kind: 'closed', reason: error.message, text }));
    socket.on('close', (code) => settle(finalAnswer(envelopes, text, `the connection closed (${code})`)));
    socket.on('unexpected-response', (_req, res) => settle({ kind: 'error', status: res.statusCode ?? 0, code: null, text }));
    socket.on('open', () => socket.send(envelopeJson(call)));
    socket.on('message', (data) => {
      const frame = data.toString();
      text += frame;
      const envelope = parsed(frame);
      envelopes.push(envelope);
      if (envelope?.final === true) settle(finalAnswer(envelopes, text, 'the final frame came'));
    });
  });
}

function grpcStream(url: string, call: Call): Promise<Answer> {
  return new Promise((resolve) => {
    const session = http2Connect(`http://${new URL(url).host}`);
    let settled = false;
    const settle = (answer: Answer) => {
      if (settled) return;
      settled = true;
      session.destroy();
      resolve(answer);
    };
    session.on('error', (error) => settle({ kind: 'closed', reason: error.message, text: '' }));
    const stream = session.request({
      ':method': 'POST',
      ':path': STREAM_PATH,
      'content-type': 'application/grpc+json',
      te: 'trailers',
      'x-api-key': call.key ?? ALICE,
    });
    const chunks: Buffer[] = [];
    stream.on('data', (chunk: Buffer) => chunks.push(chunk));
    stream.on('error', (error) => settle({ kind: 'closed', reason: error.message, text: '' }));
    const finish = () => {
      const messages = grpcMessages(Buffer.concat(chunks));
      settle(finalAnswer(messages.map(parsed), messages.join('\n'), `the call ended (rst ${stream.rstCode})`));
    };
    stream.on('end', finish);
    stream.on('close', finish);
    stream.end(grpcFrame(Buffer.from(envelopeJson(call), 'utf8'), false));
  });
}

/** The messages of a gRPC response body (uncompressed), as text. */
function grpcMessages(data: Buffer): string[] {
  const messages: string[] = [];
  for (let at = 0; at + 5 <= data.length; ) {
    const length = data.readUInt32BE(at + 1);
    messages.push(data.subarray(at + 5, at + 5 + length).toString('utf8'));
    at += 5 + length;
  }
  return messages;
}
