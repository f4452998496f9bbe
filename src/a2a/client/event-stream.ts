// A2A's server-sent events, read for the JSON-RPC and HTTP+JSON bindings: one HTTP request
// whose answer is `text/event-stream`, each `data:` frame one JSON value. The transport's
// pipeline streams parley's own envelopes only, so this makes the request itself, with the
// transport's TLS settings, credentials and limits. Bounded: a frame may not pass the
// transport's `max_event_bytes` (the parser refuses it), the socket is read only as fast as the
// caller takes events (the response is pulled, never buffered ahead), and an answer that is not
// a stream is read up to `max_response_bytes`. Leaving the loop early closes the connection.
import { request as httpRequest, type IncomingMessage } from 'node:http';
import { request as httpsRequest } from 'node:https';
import { TransportConnectionError, TransportLimitError, TransportProtocolError } from '../../transport/errors.js';
import { SseParser } from '../../transport/sse/codec.js';
import type { Transport } from '../../transport/transport.js';

export interface EventStreamRequest {
  readonly url: string;
  readonly method: 'POST' | 'GET';
  readonly body: string | null;
  readonly headers: Readonly<Record<string, string>>;
  readonly signal?: AbortSignal;
}

/** What a request answered before any event: a status that is not 2xx, with its body text. */
export type RefusalReader = (status: number, text: string) => Error;

const EVENT_STREAM = 'text/event-stream';

/**
 * Yields each frame's parsed JSON. A 2xx JSON answer instead of a stream (a JSON-RPC error
 * before the stream began) is yielded as one value; another status goes to `refused`.
 */
export async function* readEventStream(
  transport: Transport,
  request: EventStreamRequest,
  refused: RefusalReader,
): AsyncGenerator<unknown, void, undefined> {
  const headers = { ...request.headers, ...(await credentialsOf(transport)) };
  const res = await open(transport, request, headers);
  try {
    const status = res.statusCode ?? 0;
    const type = (res.headers['content-type'] ?? '').split(';')[0]!.trim().toLowerCase();
    if (status < 200 || status >= 300 || type !== EVENT_STREAM) {
      const text = await readBody(res, transport.config.limits.maxResponseBytes, request.url);
      if (status < 200 || status >= 300) throw refused(status, text);
      yield parse(text, request.url);
      return;
    }
    const parser = new SseParser(transport.config.limits.maxEventBytes, { url: request.url });
    for await (const chunk of res as AsyncIterable<Buffer>) {
      for (const frame of parser.push(chunk)) yield parse(frame.data, request.url);
    }
  } finally {
    res.destroy();
  }
}

function open(transport: Transport, request: EventStreamRequest, headers: Record<string, string>): Promise<IncomingMessage> {
  const url = new URL(request.url);
  const secure = url.protocol === 'https:';
  const body = request.body === null ? null : Buffer.from(request.body, 'utf8');
  const all: Record<string, string | number> = { accept: EVENT_STREAM, ...headers };
  if (body) {
    all['content-type'] = 'application/json';
    all['content-length'] = body.length;
  }
  return new Promise((resolve, reject) => {
    const options = {
      method: request.method,
      headers: all,
      signal: request.signal,
      ...(secure ? transport.clientTls() : {}),
    };
    const req = (secure ? httpsRequest : httpRequest)(url, options, resolve);
    req.on('error', (error) =>
      reject(
        request.signal?.aborted
          ? error
          : new TransportConnectionError(`cannot stream from ${request.url}: ${error.message}`, {
              url: request.url,
              cause: error,
            }),
      ),
    );
    req.end(body ?? undefined);
  });
}

/** The credential headers the transport's own calls send. */
async function credentialsOf(transport: Transport): Promise<Record<string, string>> {
  return { ...(await transport.authHeaders()) };
}

async function readBody(res: IncomingMessage, limit: number, url: string): Promise<string> {
  const chunks: Buffer[] = [];
  let bytes = 0;
  for await (const chunk of res as AsyncIterable<Buffer>) {
    bytes += chunk.length;
    if (bytes > limit) {
      throw new TransportLimitError(`the answer from ${url} is over ${limit} bytes`, {
        kind: 'response',
        url,
        limit,
        size: bytes,
      });
    }
    chunks.push(chunk);
  }
  return Buffer.concat(chunks).toString('utf8');
}

function parse(text: string, url: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    throw new TransportProtocolError(`an event from ${url} is not JSON: ${JSON.stringify(text.slice(0, 120))}`, {
      url,
      retryable: false,
    });
  }
}
