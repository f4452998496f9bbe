// The answer a connection gets when the http server is at max_connections and every open
// connection is busy with an answer: none of them is cut to make room, so the newcomer is
// turned away instead, with a 503 and `Retry-After` written as soon as it connects (before
// its request is read). The connection then closes gently, as close-after-answer.ts does, so
// the client's kernel keeps the answer even when the client is still sending its request.
import type { Socket } from 'node:net';

/** Seconds a refused client is asked to wait before it connects again. */
const RETRY_AFTER_SECONDS = 1;

/** How long what the client still sends is read and dropped before the socket is destroyed. */
const LINGER_MS = 1000;

/** The raw HTTP/1.1 answer, with the JSON error body every error has; `cap` is max_connections. */
export function refusalAnswer(cap: number): string {
  const body = JSON.stringify({
    error: {
      code: 'unavailable',
      message: `the server is at its connection limit (${cap}) and every connection is busy; retry later`,
      status: 503,
      request_id: null,
      details: { max_connections: cap, retry_after: RETRY_AFTER_SECONDS },
    },
  });
  return (
    'HTTP/1.1 503 Service Unavailable\r\ncontent-type: application/json\r\n' +
    `retry-after: ${RETRY_AFTER_SECONDS}\r\ncontent-length: ${Buffer.byteLength(body)}\r\nconnection: close\r\n\r\n${body}`
  );
}

/** Writes `answer` on a connection nobody serves, half-closes it, and destroys it after a moment. */
export function turnAway(socket: Socket, answer: string): void {
  socket.end(answer);
  const timer = setTimeout(() => socket.destroy(), LINGER_MS);
  timer.unref();
  socket.once('close', () => clearTimeout(timer));
}
