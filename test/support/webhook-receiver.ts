// A real webhook receiver for the push-notification tests: an HTTP (or, given a key pair, HTTPS)
// server on 127.0.0.1, port 0, that records every call (headers and body) and answers as the
// test scripts it: a status (with headers and a body), or `hang` (never answer, until the test
// releases it). Tests wait for calls with `nth(n)`, never for time. Closed when the test ends.
import { once } from 'node:events';
import { readFileSync } from 'node:fs';
import { createServer as createHttpServer, type IncomingHttpHeaders, type IncomingMessage, type ServerResponse } from 'node:http';
import { createServer as createHttpsServer } from 'node:https';
import type { AddressInfo } from 'node:net';
import type { TestContext } from 'node:test';

interface ReceivedCall {
  readonly headers: IncomingHttpHeaders;
  readonly body: string;
  readonly path: string;
}

type Answer = { readonly status: number; readonly headers?: Record<string, string>; readonly body?: string | Buffer } | 'hang';

export interface WebhookReceiver {
  /** `http://127.0.0.1:PORT` (or https://). */
  readonly origin: string;
  readonly port: number;
  readonly calls: readonly ReceivedCall[];
  /** Resolves with the n-th call (1-based) once it has arrived. */
  nth(n: number): Promise<ReceivedCall>;
  /** Answers every call left hanging with 200, and answers later ones at once. */
  release(): void;
}

export interface ReceiverOptions {
  /** The answer to the n-th call (1-based); default 200. */
  readonly answer?: (n: number) => Answer;
  /** Serve HTTPS with this key pair. */
  readonly tls?: { readonly certfile: string; readonly keyfile: string };
}

export async function startWebhookReceiver(t: TestContext, options: ReceiverOptions = {}): Promise<WebhookReceiver> {
  const calls: ReceivedCall[] = [];
  const waiters = new Map<number, (call: ReceivedCall) => void>();
  const hanging: ServerResponse[] = [];
  let released = false;
  const handle = (request: IncomingMessage, response: ServerResponse) => {
    const chunks: Buffer[] = [];
    request.on('data', (chunk: Buffer) => chunks.push(chunk));
    request.on('end', () => {
      const call = { headers: request.headers, body: Buffer.concat(chunks).toString('utf8'), path: request.url ?? '' };
      calls.push(call);
      const n = calls.length;
      const answer = released ? { status: 200 } : (options.answer?.(n) ?? { status: 200 });
      if (answer === 'hang') hanging.push(response);
      else {
        response.writeHead(answer.status, answer.headers);
        response.end(answer.body);
      }
      waiters.get(n)?.(call);
      waiters.delete(n);
    });
  };
  const server = options.tls
    ? createHttpsServer({ cert: readFileSync(options.tls.certfile), key: readFileSync(options.tls.keyfile) }, handle)
    : createHttpServer(handle);
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  const { port } = server.address() as AddressInfo;
  t.after(async () => {
    for (const response of hanging) response.destroy();
    server.closeAllConnections();
    server.close();
    await once(server, 'close');
  });
  return {
    origin: `${options.tls ? 'https' : 'http'}://127.0.0.1:${port}`,
    port,
    calls,
    nth(n) {
      const call = calls[n - 1];
      if (call) return Promise.resolve(call);
      return new Promise((resolve) => waiters.set(n, resolve));
    },
    release() {
      released = true;
      for (const response of hanging.splice(0)) response.writeHead(200).end();
    },
  };
}
