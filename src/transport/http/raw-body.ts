// The body of a request to an endpoint that reads it itself (Endpoint.rawBody): the text as it
// arrived, undecoded and with no content-type check, plus the request's headers. The A2A
// JSON-RPC and HTTP+JSON routes use it to answer a bad body or media type in their own terms.
import type { IncomingMessage } from 'node:http';
import type { JsonDecodeResult } from '../../core/off-thread-json.js';
import { headerValue } from '../query-params.js';

export class RawHttpBody {
  constructor(
    /** The body as UTF-8 text ('' when there was none, or when it comes `decoded`). */
    readonly text: string,
    private readonly req: IncomingMessage,
    /**
     * A large body, already decoded and parsed on a worker thread (core/off-thread-json.ts,
     * whitespace only decoding to `undefined`); null for one that comes as `text`.
     */
    readonly decoded: JsonDecodeResult | null = null,
  ) {}

  /**
   * The path the request was sent to, as sent (percent-encoded, no query): a route with {name}
   * parts reads them from it (transport/route-templates.ts).
   */
  get path(): string {
    const target = this.req.url ?? '/';
    const queryAt = target.indexOf('?');
    return queryAt < 0 ? target : target.slice(0, queryAt);
  }

  /** A request header by its lowercase name ('' or undefined when absent). */
  header(name: string): string | undefined {
    return headerValue(this.req, name);
  }
}
