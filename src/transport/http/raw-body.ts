// The body of a request to an endpoint that reads it itself (Endpoint.rawBody): the text as it
// arrived, undecoded and with no content-type check, plus the request's headers. The A2A
// JSON-RPC route uses it to answer a bad body or media type in JSON-RPC's own terms.
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

  /** A request header by its lowercase name ('' or undefined when absent). */
  header(name: string): string | undefined {
    return headerValue(this.req, name);
  }
}
