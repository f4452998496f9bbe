// One attempt at a webhook call: POST the body through the guarded agents (webhook-agent.ts),
// within a time bound that covers connecting, sending and the whole answer. What the answer
// means for the next attempt: 2xx is delivered; 408, 429, 5xx, a timeout or a lost connection
// are worth another try; a certificate that does not verify, a redirect (never followed: it could point anywhere, past the policy),
// any other status and a refused destination are final. At most `maxResponseBytes` of the
// answer's body are read (it is never used); a longer one closes the connection.
import { request as httpRequest, type IncomingMessage } from 'node:http';
import { request as httpsRequest } from 'node:https';
import { bareHost, type DestinationPolicy } from './destination-policy.js';
import { DestinationRefusedError, isAddressLiteral, type WebhookAgents } from './webhook-agent.js';

export interface WebhookRequest {
  readonly url: URL;
  readonly headers: Readonly<Record<string, string>>;
  readonly body: Buffer;
}

export type AttemptResult =
  | { readonly kind: 'delivered'; readonly status: number }
  | { readonly kind: 'retry'; readonly reason: string }
  | { readonly kind: 'final'; readonly reason: string; readonly refused?: boolean };

export interface AttemptBounds {
  readonly timeoutMs: number;
  readonly maxResponseBytes: number;
}

export function postWebhook(
  agents: WebhookAgents,
  policy: DestinationPolicy,
  call: WebhookRequest,
  bounds: AttemptBounds,
): Promise<AttemptResult> {
  const host = bareHost(call.url.hostname);
  if (isAddressLiteral(host)) {
    const refused = policy.refusal(host, host);
    if (refused) return Promise.resolve(refusedResult(new DestinationRefusedError(host, host, refused)));
  }
  const https = call.url.protocol === 'https:';
  return new Promise<AttemptResult>((resolve) => {
    let settled = false;
    const settle = (result: AttemptResult) => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      resolve(result);
    };
    const send = https ? httpsRequest : httpRequest;
    const request = send(call.url, {
      method: 'POST',
      agent: https ? agents.https : agents.http,
      headers: { ...call.headers, 'content-length': String(call.body.length) },
    });
    const timer = setTimeout(() => {
      settle({ kind: 'retry', reason: `no answer within ${bounds.timeoutMs} ms` });
      request.destroy();
    }, bounds.timeoutMs);
    timer.unref();
    request.on('error', (error) => {
      if (error instanceof DestinationRefusedError) settle(refusedResult(error));
      else if (certificateProblem(error)) settle({ kind: 'final', reason: `TLS certificate refused: ${error.message}` });
      else settle({ kind: 'retry', reason: `connection failed: ${error.message}` });
    });
    request.on('response', (response) => {
      const result = judge(response);
      readBounded(response, bounds.maxResponseBytes, () => settle(result));
    });
    request.end(call.body);
  });
}

/** A TLS verification failure: the same certificate will fail the same way next time. */
function certificateProblem(error: NodeJS.ErrnoException): boolean {
  return typeof error.code === 'string' && /CERT|SELF_SIGNED|UNABLE_TO_(GET|VERIFY)|ERR_TLS/.test(error.code);
}

function refusedResult(error: DestinationRefusedError): AttemptResult {
  return { kind: 'final', reason: error.message, refused: true };
}

function judge(response: IncomingMessage): AttemptResult {
  const status = response.statusCode ?? 0;
  if (status >= 200 && status < 300) return { kind: 'delivered', status };
  if (status >= 300 && status < 400) return { kind: 'final', reason: `answered ${status}, a redirect, which is not followed` };
  if (status === 408 || status === 429 || status >= 500) return { kind: 'retry', reason: `answered ${status}` };
  return { kind: 'final', reason: `answered ${status}` };
}

/** Reads and discards the body up to `max` bytes; past that, closes the connection. `done` once either way. */
function readBounded(response: IncomingMessage, max: number, done: () => void): void {
  let read = 0;
  response.on('data', (chunk: Buffer) => {
    read += chunk.length;
    if (read > max) {
      response.destroy();
      done();
    }
  });
  response.on('end', done);
  response.on('error', done);
  response.on('close', done);
}
