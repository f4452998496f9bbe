// The sse client: unary calls exactly as the http client makes them; streams as one POST whose
// answer is a `text/event-stream`, read frame by frame into envelopes.
import type { IncomingMessage } from 'node:http';
import type { BindingContext, InboundEvent, OutboundCall } from '../binding.js';
import { ENVELOPE_ROOM, readResponseEnvelope } from '../envelope.js';
import { TransportProtocolError } from '../errors.js';
import { HttpClient, readText } from '../http/client.js';
import { mapSocketError } from '../node-failures.js';
import { errorFromResponse } from '../wire-errors.js';
import { SseParser } from './codec.js';

const EVENT_STREAM = 'text/event-stream';

/** How long a finished stream's response may take to end before its socket is dropped. */
const TRAILER_GRACE_MS = 1000;

/** The connection pool streams use, apart from the one unary calls use. */
class StreamConnections extends HttpClient {
  request(call: OutboundCall): Promise<IncomingMessage> {
    return this.open(call, EVENT_STREAM);
  }
}

export class SseClient extends HttpClient {
  /**
   * A stream holds its connection for its whole life. Kept in a pool of their own, open
   * streams never take the sockets unary calls need: a cancellation can always reach the
   * agent while the task's stream is still open.
   */
  private readonly streams: StreamConnections;

  constructor(context: BindingContext) {
    super(context);
    this.streams = new StreamConnections(context);
  }

  override async close(): Promise<void> {
    await Promise.all([super.close(), this.streams.close()]);
  }

  override async *stream(call: OutboundCall): AsyncGenerator<InboundEvent, void, undefined> {
    const res = await this.streams.request(call);
    let finished = false;
    try {
      const status = res.statusCode ?? 0;
      if (status < 200 || status >= 300) {
        const text = await readText(res, this.context.config.limits.maxResponseBytes, call);
        finished = true;
        throw errorFromResponse(res, text.value, call);
      }
      const type = mediaType(res.headers['content-type']);
      if (type !== EVENT_STREAM) {
        throw new TransportProtocolError(
          `${call.spec.method} ${call.spec.path} answered ${type || 'no content type'} instead of ${EVENT_STREAM}`,
          { url: call.url, requestId: call.requestId, statusCode: status, retryable: false },
        );
      }
      const parser = new SseParser(this.context.config.limits.maxEventBytes + ENVELOPE_ROOM, {
        url: call.url,
        requestId: call.requestId,
      });
      try {
        // Leaving the loop early must not destroy the response: release() decides its fate.
        for await (const chunk of res.iterator({ destroyOnReturn: false }) as AsyncIterable<Buffer>) {
          for (const frame of parser.push(chunk)) {
            const event = decodeEnvelope(frame.data, frame.bytes, call);
            if (event.final || !event.ok) finished = true;
            yield event;
            if (finished) return;
          }
        }
      } catch (error) {
        throw mapSocketError(error as NodeJS.ErrnoException, call);
      }
      // The response ended cleanly without a final frame: the shared pipeline reports it.
      finished = true;
      parser.end();
    } finally {
      release(res, finished);
    }
  }
}

/**
 * Turns one frame's data into an envelope (see ../envelope.ts for the rules, shared with the
 * other wires); anything else is a (non-retryable) protocol error. The frame's `jsonrpc`
 * member is not checked: nothing depends on it.
 */
export function decodeEnvelope(data: string, bytes: number, call: Pick<OutboundCall, 'url' | 'requestId'>): InboundEvent {
  let value: unknown;
  try {
    value = JSON.parse(data);
  } catch {
    throw new TransportProtocolError(`stream frame from ${call.url} is not valid JSON: ${preview(data)}`, {
      url: call.url,
      requestId: call.requestId,
      retryable: false,
    });
  }
  return readResponseEnvelope(value, bytes, call);
}

function mediaType(header: string | undefined): string {
  return (header ?? '').split(';')[0]!.trim().toLowerCase();
}

function preview(text: string): string {
  return JSON.stringify(text.length > 120 ? `${text.slice(0, 120)}...` : text);
}

/**
 * Lets go of a stream's response. One that stopped after its final frame is read to its end
 * (normally just the closing chunk, often already here), which hands the keep-alive socket
 * back to the pool; more data, or no end within a moment, drops the socket instead. A stream
 * abandoned early drops its socket at once.
 */
function release(res: IncomingMessage, finished: boolean): void {
  if (!finished) {
    res.destroy();
    return;
  }
  res.once('error', () => undefined);
  if (res.readableEnded) return;
  const timer = setTimeout(() => res.destroy(), TRAILER_GRACE_MS);
  timer.unref();
  res.on('data', () => res.destroy());
  res.once('close', () => clearTimeout(timer));
  res.once('end', () => clearTimeout(timer));
  res.resume();
}
