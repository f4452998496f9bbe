// The node:http request listener behind the http transport (and the sse transport, which adds
// a stream writer, and the express adapter). It reads the body under the size limit, decodes
// the request, hands it to the dispatcher and writes the answer: JSON, text, or the events of
// a unary route that answered with a stream (./event-stream.ts).
import type { IncomingMessage, ServerResponse } from 'node:http';
import { newId } from '../../core/ids.js';
import { jsonValueTooDeep, MAX_JSON_DEPTH } from '../../core/json/depth.js';
import { isLargePayload, largePayloadTurn } from '../../core/large-payload-turns.js';
import { describeJsonSyntaxError } from '../../core/json/syntax.js';
import { decodeJsonOffThread } from '../../core/off-thread-json.js';
import { utf8InTurns } from '../../core/utf8-in-turns.js';
import { LazyAbort } from '../../core/lazy-abort.js';
import { headerValue, paramsFromSearch } from '../query-params.js';
import { extractCredentials } from '../../auth/credentials.js';
import type { Dispatcher } from '../dispatcher.js';
import { Inbound, NO_PARAMS, type Endpoint, type InboundRequest } from '../endpoint.js';
import { EndpointError, toEndpointError } from '../endpoint-error.js';
import type { ConnectionGuard, ConnectionWatch } from './connection-guard.js';
import { closeAfterAnswer } from './close-after-answer.js';
import { writeEventStream } from './event-stream.js';
import { RawHttpBody } from './raw-body.js';
import { traceHeadersFrom } from '../trace-headers.js';
import { BrowserOrigins } from '../browser-origin.js';
import { AUTH_CHALLENGE, IDEMPOTENCY_KEY_HEADER, REQUEST_ID_HEADER } from '../wire-names.js';

/** Writes a stream's events; the http transport has none, sse supplies one. */
export type StreamWriter = (
  dispatcher: Dispatcher,
  endpoint: Endpoint,
  request: InboundRequest,
  res: ServerResponse,
) => Promise<void>;

export interface ListenerOptions {
  readonly streamWriter?: StreamWriter;
  /** The standalone server's deadlines and connection cap; a mounted app has its own. */
  readonly guard?: ConnectionGuard;
}

const JSON_HEADERS = { 'content-type': 'application/json' } as const;

/**
 * The listener for node's `request` event. For `checkContinue` (a client that sent
 * `Expect: 100-continue` and waits before sending its body), call it with `awaitingContinue`:
 * the client is told to go on only once the request has passed every check made before
 * reading, so a refused request never has its body sent at all.
 */
export function createRequestListener(dispatcher: Dispatcher, options: ListenerOptions = {}) {
  const { guard } = options;
  const origins = new BrowserOrigins(dispatcher.config.allowedOrigins);
  return (req: IncomingMessage, res: ServerResponse, awaitingContinue = false): void => {
    // A connection turned away at the cap has its 503 already: what it sends is dropped.
    if (guard?.isRefused(req.socket)) return void req.resume();
    handle(dispatcher, options, origins, req, res, awaitingContinue).catch((error: unknown) => {
      // Reached only if writing the answer (or a stream's events) itself failed; the
      // connection is the casualty, never the process.
      dispatcher.reportEscaped('an http request handler', error);
      if (!res.headersSent) writeError(res, toEndpointError(error), null);
      else res.destroy();
    });
  };
}

async function handle(
  dispatcher: Dispatcher,
  options: ListenerOptions,
  origins: BrowserOrigins,
  req: IncomingMessage,
  res: ServerResponse,
  awaitingContinue: boolean,
) {
  // Timed here only for the log line of a request refused before dispatch (which times the rest).
  const arrived = dispatcher.logging ? performance.now() : 0;
  const requestId = headerValue(req, REQUEST_ID_HEADER) || newId();
  const target = req.url ?? '/';
  const queryAt = target.indexOf('?');
  const path = queryAt < 0 ? target : target.slice(0, queryAt);
  // Most requests carry no query string; parse one only when there is.
  const search = queryAt < 0 ? null : new URLSearchParams(target.slice(queryAt + 1));
  // HEAD is GET without the body (node leaves the body out of a HEAD answer by itself).
  const asked = (req.method ?? 'GET').toUpperCase();
  const method = asked === 'HEAD' ? 'GET' : asked;
  let endpoint: Endpoint | undefined;
  let body: { data: unknown; bytes: number };
  const read = { bytes: 0 };
  const watch = options.guard ? options.guard.requestStarted(req, res) : null;
  try {
    // A browser's request from another site is refused before its body is read or its route
    // runs, whatever the route; without an Origin header this is the one lookup.
    const origin = req.headers.origin;
    if (origin !== undefined) {
      const refused = origins.refusal(origin, req.headers.host);
      if (refused) {
        // Answered in the route's own error shape where there is a route (A2A's bindings).
        try {
          endpoint = dispatcher.route(method, path);
        } catch {
          // No such route: parley's own shape.
        }
        throw refused;
      }
    }
    endpoint = dispatcher.route(method, path);
    const expectsBody = endpoint.spec.request !== null;
    if (expectsBody && !endpoint.rawBody) checkContentType(req);
    const limit = dispatcher.config.limits.maxRequestBytes;
    checkDeclaredLength(req, limit);
    if (awaitingContinue) res.writeContinue();
    body = await readBody(req, limit, expectsBody, read, watch, endpoint.rawBody === true);
  } catch (error) {
    const refused = toEndpointError(error);
    // The rest of an oversize or overdue body is not worth reading: answer, then close.
    if (refused.status === 413 || refused.status === 408) closeAfterAnswer(req, res);
    else drain(req);
    const sent = writeError(res, refused, requestId, endpoint);
    const operation = endpoint?.spec.name ?? null;
    dispatcher.countRefused(read.bytes, sent, { requestId, method, path, operation, error: refused, startedAt: arrived });
    return;
  }
  const served = endpoint;
  const aborter = new LazyAbort();
  res.on('close', () => {
    if (!res.writableFinished) aborter.abort(new Error('client disconnected'));
  });
  if (isLargePayload(body.bytes)) {
    // A client that left while its body waited for a turn was gone before the listener above.
    if (res.destroyed) aborter.abort(new Error('client disconnected'));
    // Serving a large body (validation, the handler, the answer's JSON) is the next heavy step.
    await largePayloadTurn();
  }
  const inbound = new Inbound(
    {
      method,
      path,
      data: body.data,
      params: search ? paramsFromSearch(search) : NO_PARAMS,
      requestId,
      idempotencyKey: headerValue(req, IDEMPOTENCY_KEY_HEADER) || null,
      credentials: extractCredentials(
        (name) => headerValue(req, name),
        (name) => search?.get(name) ?? undefined,
      ),
      receivedBytes: body.bytes,
      trace: traceHeadersFrom((name) => headerValue(req, name)),
    },
    aborter,
  );
  if (served.spec.streaming) {
    if (!options.streamWriter) {
      return writeError(res, new EndpointError('not_found', `no endpoint for ${method} ${path}`), requestId);
    }
    return options.streamWriter(dispatcher, served, inbound, res);
  }
  try {
    const outcome = await dispatcher.unaryOrStream(inbound, served);
    if (outcome.kind === 'stream') {
      // A unary route that answered with a stream (A2A's SendStreamingMessage): its events,
      // and the route's own last event for a failure the pipeline met.
      return await writeEventStream(
        dispatcher,
        inbound,
        outcome.frames,
        res,
        (frame) => (frame.ok ? frame.encoded.text : JSON.stringify(outcome.failureEvent(frame.error))),
        outcome.failureEventName,
      );
    }
    // Headers as one flat list: node's setHeader-then-writeHead merge costs more than the
    // rest of writing the answer. The length is known, so the body goes out whole rather than
    // as chunked frames (writeHead fixes the headers before end() could add it).
    if (outcome.kind === 'text') {
      const length = String(Buffer.byteLength(outcome.text));
      res.writeHead(200, ['content-type', outcome.contentType, 'content-length', length, REQUEST_ID_HEADER, requestId]);
      res.end(outcome.text);
    } else if (outcome.encoded.bytes === 0) {
      // Nothing to say (a JSON-RPC batch of notifications only).
      res.writeHead(204, [REQUEST_ID_HEADER, requestId]);
      res.end();
    } else {
      const { text, bytes } = outcome.encoded;
      // A large answer is encoded as UTF-8 a slice per turn and written as those bytes.
      const body = isLargePayload(bytes) ? await utf8InTurns(text, bytes) : text;
      res.writeHead(200, ['content-type', 'application/json', 'content-length', String(bytes), REQUEST_ID_HEADER, requestId]);
      res.end(body);
    }
  } catch (error) {
    writeError(res, toEndpointError(error), requestId, served);
  }
}

/**
 * A body is read as JSON whatever its label when it has none; one labelled as something else
 * (a form, plain text) is refused, since reading it as JSON would only fail less clearly.
 */
function checkContentType(req: IncomingMessage): void {
  const header = req.headers['content-type'];
  if (!header) return;
  const type = header.split(';', 1)[0]!.trim().toLowerCase();
  if (type === 'application/json' || type.endsWith('+json')) return;
  throw new EndpointError('unsupported_media_type', `request body must be application/json, not ${type}`);
}

/** A body whose Content-Length is over the limit is refused before any of it is read. */
function checkDeclaredLength(req: IncomingMessage, limit: number): void {
  const declared = Number(req.headers['content-length'] ?? NaN);
  if (declared > limit) {
    throw new EndpointError('payload_too_large', `request of ${declared} bytes exceeds the ${limit}-byte limit`, {
      limit,
      size: declared,
    });
  }
}

/** Reads and decodes a JSON body, refusing it as soon as it passes `limit` bytes. */
function readBody(
  req: IncomingMessage,
  limit: number,
  expectsBody: boolean,
  /** How much has been read so far, for the metrics of a body that is then refused. */
  read: { bytes: number },
  /** The connection's guard entry, which fails the read when the body deadline passes. */
  watch: ConnectionWatch | null,
  /** Hand the text over undecoded, as a RawHttpBody. */
  raw = false,
): Promise<{ data: unknown; bytes: number }> {
  const declared = Number(req.headers['content-length'] ?? NaN);
  // Bodies parsed earlier (express.json() in front of the adapter) are taken as they are.
  const preParsed = (req as IncomingMessage & { body?: unknown }).body;
  if (preParsed !== undefined && req.readableEnded) {
    const bytes = Number.isFinite(declared) ? declared : 0;
    if (raw)
      return Promise.resolve({
        data: new RawHttpBody(typeof preParsed === 'string' ? preParsed : JSON.stringify(preParsed), req),
        bytes,
      });
    if (jsonValueTooDeep(preParsed)) return Promise.reject(EndpointError.tooDeep('request body', MAX_JSON_DEPTH));
    return Promise.resolve({ data: preParsed, bytes });
  }
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let bytes = 0;
    if (watch) watch.expire = reject;
    req.on('data', (chunk: Buffer) => {
      bytes += chunk.length;
      read.bytes = bytes;
      watch?.progressed();
      if (bytes > limit) {
        req.pause();
        req.removeAllListeners('data');
        // A body without a Content-Length: its size is unknown, only that it passed the limit.
        reject(
          new EndpointError(
            'payload_too_large',
            `request body exceeds the ${limit}-byte limit (reading stopped after ${bytes} bytes)`,
            {
              limit,
              size: bytes,
            },
          ),
        );
        return;
      }
      chunks.push(chunk);
    });
    req.on('error', reject);
    const decode = () => {
      if (raw) {
        const text = chunks.length === 1 ? chunks[0]!.toString('utf8') : Buffer.concat(chunks).toString('utf8');
        return resolve({ data: new RawHttpBody(text, req), bytes });
      }
      if (bytes === 0) {
        if (expectsBody)
          return reject(new EndpointError('invalid_json', 'request body is empty; this endpoint takes a JSON body'));
        return resolve({ data: undefined, bytes: 0 });
      }
      const text = chunks.length === 1 ? chunks[0]!.toString('utf8') : Buffer.concat(chunks).toString('utf8');
      if (!expectsBody && text.trim() === '') return resolve({ data: undefined, bytes });
      let data: unknown;
      try {
        data = JSON.parse(text);
      } catch (error) {
        return reject(
          new EndpointError('invalid_json', `request body is not valid JSON: ${describeJsonSyntaxError(text, error)}`),
        );
      }
      // Before anything walks the body recursively (validation, a handler's JSON.stringify).
      if (jsonValueTooDeep(data)) return reject(EndpointError.tooDeep('request body', MAX_JSON_DEPTH));
      resolve({ data, bytes });
    };
    // A large JSON body is decoded on a worker thread; joining its chunks first waits for a turn.
    const decodeOffThread = () => {
      const body = chunks.length === 1 ? chunks[0]! : Buffer.concat(chunks, bytes);
      chunks.length = 0;
      // A raw body's endpoint words its own refusals: it is handed the worker's result.
      const options = raw ? { checkDepth: false, blankIsNothing: true } : { checkDepth: true, blankIsNothing: !expectsBody };
      decodeJsonOffThread(body, options).then((result) => {
        if (raw) resolve({ data: new RawHttpBody('', req, result), bytes });
        else if (result.kind === 'value') resolve({ data: result.value, bytes });
        else if (result.kind === 'too_deep') reject(EndpointError.tooDeep('request body', MAX_JSON_DEPTH));
        else reject(new EndpointError('invalid_json', `request body is not valid JSON: ${result.located}`));
      }, reject);
    };
    req.on('end', () => {
      if (watch) watch.expire = null;
      if (!isLargePayload(bytes)) decode();
      // A worker that cannot be started (or a body it cannot be handed) fails this request only.
      else void largePayloadTurn().then(decodeOffThread).catch(reject);
    });
  });
}

/** Writes the error body (the endpoint's own shape of it, when it has one); returns its size in bytes. */
export function writeError(res: ServerResponse, error: EndpointError, requestId: string | null, endpoint?: Endpoint): number {
  if (res.headersSent) {
    res.destroy();
    return 0;
  }
  const headers: Record<string, string> = { ...JSON_HEADERS };
  if (requestId) headers[REQUEST_ID_HEADER] = requestId;
  if (error.status === 401) headers['www-authenticate'] = AUTH_CHALLENGE;
  if (error.status === 405) {
    const allowed = (error.details as { allowed?: string[] } | undefined)?.allowed;
    // Every GET route answers HEAD too (see handle).
    if (allowed) headers.allow = (allowed.includes('GET') ? [...allowed, 'HEAD'].sort() : allowed).join(', ');
  }
  const own = endpoint?.errorBody?.(error);
  const body = JSON.stringify(own ?? { error: error.toObject(requestId) });
  const bytes = Buffer.byteLength(body);
  headers['content-length'] = String(bytes);
  res.writeHead(error.status, headers).end(body);
  return bytes;
}

/** Lets an unread body flow away so the connection can be reused. */
function drain(req: IncomingMessage): void {
  req.resume();
}
