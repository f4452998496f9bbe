// The http client: one attempt of a call over node:http with pooled keep-alive connections,
// failures mapped onto the error taxonomy.
import { Agent as HttpAgent, request as httpRequest, type IncomingMessage, type RequestOptions } from 'node:http';
import { Agent as HttpsAgent, request as httpsRequest } from 'node:https';
import type { BindingContext, InboundEvent, InboundReply, OutboundCall, TransportClient } from '../binding.js';
import { TransportProtocolError } from '../errors.js';
import { assertWithin } from '../limits.js';
import { mapSocketError } from '../node-failures.js';
import { errorFromResponse } from '../wire-errors.js';
import { urlToHttpOptions } from 'node:url';
import { IDEMPOTENCY_KEY_HEADER, REQUEST_ID_HEADER } from '../wire-names.js';
import { writeTraceHeaders } from '../trace-headers.js';

export class HttpClient implements TransportClient {
  private readonly agents = new Map<string, HttpAgent>();
  private readonly bases = new Map<string, PeerBase>();

  constructor(protected readonly context: BindingContext) {}

  async send(call: OutboundCall): Promise<InboundReply> {
    const res = await this.open(call, 'application/json');
    const text = await readText(res, this.context.config.limits.maxResponseBytes, call);
    if (res.statusCode! < 200 || res.statusCode! >= 300) throw errorFromResponse(res, text.value, call);
    const type = call.spec.responseContentType;
    if (type === 'text/html' || type === 'text/plain') return { value: text.value, bytes: text.bytes };
    try {
      return { value: JSON.parse(text.value), bytes: text.bytes };
    } catch {
      throw new TransportProtocolError(`response from ${call.url} is not valid JSON`, {
        url: call.url,
        requestId: call.requestId,
        statusCode: res.statusCode,
        retryable: false,
      });
    }
  }

  // biome-ignore lint/correctness/useYield: plain http has no streams; the iterator's first read fails, as on every wire.
  async *stream(call: OutboundCall): AsyncGenerator<InboundEvent> {
    throw new TransportProtocolError(
      `the http transport has no task streams; use sse, websocket, grpc or runtime for ${call.spec.path}`,
      { url: call.url, requestId: call.requestId, code: 'streaming_unsupported', retryable: false },
    );
  }

  async close(): Promise<void> {
    for (const agent of this.agents.values()) agent.destroy();
    this.agents.clear();
  }

  /** Connection options and base path for a peer URL, parsed once. */
  private base(url: string): PeerBase {
    let base = this.bases.get(url);
    if (!base) {
      const parsed = new URL(url);
      const { protocol, hostname, port, auth } = urlToHttpOptions(parsed);
      base = { protocol, hostname, port, auth, path: parsed.pathname.replace(/\/$/, ''), secure: parsed.protocol === 'https:' };
      this.bases.set(url, base);
    }
    return base;
  }

  /** Sends the request and resolves once the response head has arrived. */
  protected open(call: OutboundCall, accept: string): Promise<IncomingMessage> {
    const base = this.base(call.url);
    const headers: Record<string, string | number> = { accept, [REQUEST_ID_HEADER]: call.requestId };
    for (const name in call.headers) headers[name] = call.headers[name]!;
    if (call.idempotencyKey) headers[IDEMPOTENCY_KEY_HEADER] = headerSafe(call.idempotencyKey);
    writeTraceHeaders(headers, call.trace);
    if (call.body) {
      headers['content-type'] = 'application/json';
      headers['content-length'] = call.body.bytes;
    }
    const options: RequestOptions = {
      protocol: base.protocol,
      hostname: base.hostname,
      port: base.port,
      auth: base.auth,
      // The route is absolute; any base path the URL had (an agent mounted under /agent) stays.
      path: base.path + call.spec.path + queryString(call.params),
      method: call.spec.method,
      headers,
      agent: this.agentFor(base.secure, call.controlPlane),
    };
    return new Promise((resolve, reject) => {
      try {
        const req = (base.secure ? httpsRequest : httpRequest)(options, resolve);
        // Aborting (deadline, caller) destroys the request, as node's `signal` option would,
        // without making an AbortSignal for every call.
        const stopListening = call.cancellation.onAbort((reason) => req.destroy(reason as Error));
        req.once('close', stopListening);
        req.on('error', (error: NodeJS.ErrnoException) => reject(mapSocketError(error, call)));
        req.end(call.body?.text);
      } catch (error) {
        // Node refuses to build the request (an unusable header value, say): nothing was sent.
        reject(
          new TransportProtocolError(`cannot send ${call.spec.method} ${call.spec.path}: ${(error as Error).message}`, {
            url: call.url,
            requestId: call.requestId,
            retryable: false,
            cause: error,
          }),
        );
      }
    });
  }

  /**
   * Pooled keep-alive connections, with a pool of their own for control-plane calls so a
   * cancellation never waits for a socket held by the work it cancels.
   */
  private agentFor(secure: boolean, controlPlane: boolean): HttpAgent {
    const key = `${secure ? 'https' : 'http'}:${controlPlane ? 'control' : 'data'}`;
    let agent = this.agents.get(key);
    if (!agent) {
      const options = this.agentOptions();
      agent = secure ? new HttpsAgent({ ...options, ...this.context.clientTls() }) : new HttpAgent(options);
      this.agents.set(key, agent);
    }
    return agent;
  }

  private agentOptions() {
    const { config } = this.context;
    return {
      keepAlive: config.keepaliveInterval !== null,
      keepAliveMsecs: (config.keepaliveInterval ?? 1) * 1000,
      // keepalive_interval is also how long a pooled connection may sit idle before it is closed
      // (node closes a free socket when this socket timeout fires; a busy one only gets an event).
      ...(config.keepaliveInterval === null ? {} : { timeout: config.keepaliveInterval * 1000 }),
      maxSockets: config.limits.maxConcurrentRequests,
      scheduling: 'lifo' as const,
    };
  }
}

/** Reads a response body, failing as soon as it passes `limit` bytes. */
export function readText(res: IncomingMessage, limit: number, call: OutboundCall): Promise<{ value: string; bytes: number }> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let bytes = 0;
    res.on('data', (chunk: Buffer) => {
      bytes += chunk.length;
      if (bytes > limit) {
        res.destroy();
        try {
          assertWithin('response', bytes, limit, { url: call.url, requestId: call.requestId });
        } catch (error) {
          reject(error);
        }
        return;
      }
      chunks.push(chunk);
    });
    res.on('error', (error: NodeJS.ErrnoException) => reject(mapSocketError(error, call)));
    res.on('end', () => resolve({ value: Buffer.concat(chunks).toString('utf8'), bytes }));
  });
}

/** Where a peer URL points, in node's request() terms. */
interface PeerBase {
  readonly protocol: RequestOptions['protocol'];
  readonly hostname: RequestOptions['hostname'];
  readonly port: RequestOptions['port'];
  readonly auth: RequestOptions['auth'];
  /** The URL's path without a trailing slash: routes are appended to it. */
  readonly path: string;
  readonly secure: boolean;
}

/** `?a=1&b=2` for the call's query parameters (lists repeat the key); '' when there are none. */
function queryString(params: OutboundCall['params']): string {
  let search: URLSearchParams | null = null;
  for (const key in params) {
    const value = params[key]!;
    search ??= new URLSearchParams();
    if (typeof value === 'string') search.append(key, value);
    else for (const item of value) search.append(key, item);
  }
  const text = search?.toString() ?? '';
  return text ? `?${text}` : '';
}

/** Header values must be visible ASCII; other keys travel percent-encoded (the server treats them as opaque). */
function headerSafe(value: string): string {
  return /^[\x21-\x7e]+$/.test(value) ? value : encodeURIComponent(value);
}
