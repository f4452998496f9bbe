// Writing a stream's frames as `text/event-stream` over an http response: the sse transport's
// task streams, and a unary http route that answered with a stream (StreamAnswer, such as A2A's
// SendStreamingMessage). Each frame is one `data:` line; while no frame is due a comment line
// keeps proxies and idle timers from closing the connection; frames are corked together for
// streamFlushInterval; a reader that is behind holds the stream back (the response's buffer is
// the bound, so a slow reader never grows memory); and the stream's generator is closed however
// the writing ends, which frees its slot.
import type { ServerResponse } from 'node:http';
import type { Dispatcher, StreamFrame } from '../dispatcher.js';
import type { InboundRequest } from '../endpoint.js';
import { StreamCork } from '../stream-cork.js';
import { REQUEST_ID_HEADER } from '../wire-names.js';

/** The frame that carries one event (its JSON text, already encoded), with its position and name when it has them. */
function dataFrame(text: string, eventId: string | undefined, eventName: string | undefined): string {
  const named = eventName === undefined ? '' : `event: ${eventName}\n`;
  return eventId === undefined ? `${named}data: ${text}\n\n` : `id: ${eventId}\n${named}data: ${text}\n\n`;
}

/** A comment line: readers ignore it; proxies and idle timers see traffic. */
const KEEPALIVE_FRAME = ': keepalive\n\n';

/**
 * Writes `frames` as an event stream, each as the text `eventText` makes of it, and ends the
 * response after the final frame (or destroys it when the stream stops early).
 */
export async function writeEventStream(
  dispatcher: Dispatcher,
  request: InboundRequest,
  frames: AsyncGenerator<StreamFrame, void, undefined>,
  res: ServerResponse,
  eventText: (frame: StreamFrame) => string,
  /** The SSE event name of a failure frame (a route's StreamAnswer.failureEventName). */
  failureEventName?: string,
): Promise<void> {
  const { signal } = request;
  if (signal.aborted) {
    // The caller left while the stream waited for its slot or its checks.
    await frames.return();
    return;
  }
  let heartbeat: Heartbeat | null = null;
  let cork: StreamCork | null = null;
  let ended = false;
  try {
    res.writeHead(200, {
      'content-type': 'text/event-stream',
      'cache-control': 'no-cache',
      // Asks buffering proxies (nginx) to pass each frame on at once.
      'x-accel-buffering': 'no',
      [REQUEST_ID_HEADER]: request.requestId,
    });
    res.flushHeaders();
    heartbeat = startCommentHeartbeat(res, dispatcher.config.keepaliveInterval);
    const held = new HeldText(res);
    cork = new StreamCork(held, dispatcher.config.streamFlushInterval * 1000);
    for (;;) {
      const step = await frames.next();
      if (step.done || signal.aborted) break;
      const frame = step.value;
      const line = frame.ok
        ? dataFrame(eventText(frame), frame.eventId, frame.eventName)
        : dataFrame(eventText(frame), undefined, failureEventName);
      heartbeat.wrote();
      cork.hold();
      held.write(line);
      // The last frame is not held back.
      if (frame.final) cork.flush();
      // The reader is behind (a flush filled the response's buffer): wait for it.
      if (res.writableNeedDrain) await drained(res, signal);
      if (frame.final) {
        // One more step lets the dispatcher's generator run to its end, so the stream slot is
        // free and the stream counted before the response ends.
        await frames.next();
        ended = true;
        break;
      }
    }
  } finally {
    heartbeat?.stop();
    cork?.flush();
    // Stops the handler if the caller left or the loop broke early; the dispatcher then
    // releases the stream slot and counts the stream as failed.
    await frames.return();
    if (ended && !signal.aborted) res.end();
    else if (!res.writableEnded) res.destroy();
  }
}

/**
 * Waits until the response can take more, or the caller is gone. The response's `close` is
 * what aborts the request's signal, so listening to the response covers both (and spares an
 * AbortSignal listener per wait).
 */
function drained(res: ServerResponse, signal: AbortSignal): Promise<void> {
  if (signal.aborted || res.destroyed) return Promise.resolve();
  return new Promise((resolve) => {
    const done = () => {
      res.off('drain', done);
      res.off('close', done);
      resolve();
    };
    res.on('drain', done);
    res.on('close', done);
  });
}

interface Heartbeat {
  /** Notes that a frame went out, so the next comment waits a full interval. */
  wrote(): void;
  stop(): void;
}

/**
 * While no event is due, a comment line every `intervalSeconds` keeps proxies and idle
 * timers from closing the connection. Null turns it off (as it turns off HTTP keep-alive).
 */
function startCommentHeartbeat(res: ServerResponse, intervalSeconds: number | null): Heartbeat {
  if (intervalSeconds === null) return { wrote: () => undefined, stop: () => undefined };
  let busy = false;
  const timer = setInterval(() => {
    // A frame went out during this interval, or the peer is not reading: nothing to add.
    if (busy || res.writableNeedDrain || res.destroyed) {
      busy = false;
      return;
    }
    res.write(KEEPALIVE_FRAME);
  }, intervalSeconds * 1000);
  timer.unref();
  return {
    wrote: () => {
      busy = true;
    },
    stop: () => clearInterval(timer),
  };
}

/**
 * An SSE response's frames, held as one string while the stream is corked (StreamCork) and
 * written as one chunk when it is uncorked. Corking the response itself would also save the
 * system calls, but every write would still be a chunk of its own (size line, text, CRLF:
 * four pieces for node to queue, convert and hand to writev); one string is one of each.
 */
class HeldText {
  private text = '';
  private corked = 0;

  constructor(private readonly res: ServerResponse) {}

  /** Writes `text` now, or with the rest of the held text at the uncork. */
  write(text: string): void {
    if (this.corked > 0) this.text += text;
    else this.res.write(text);
  }

  cork(): void {
    this.corked++;
  }

  uncork(): void {
    if (this.corked === 0 || --this.corked > 0 || this.text === '') return;
    const text = this.text;
    this.text = '';
    this.res.write(text);
  }

  /** Held characters (about the bytes: the frames are mostly ASCII) and what the response buffers. */
  get writableLength(): number {
    return this.text.length + this.res.writableLength;
  }

  get writableHighWaterMark(): number {
    return this.res.writableHighWaterMark;
  }
}
