// The HTTP+JSON binding's reading of one request: the route's fields in, the handler's answer
// out. It checks in the order the JSON-RPC binding does, so both refuse the same request for the
// same reason: media type (a body labelled as anything but JSON), JSON, the request message
// (ProtoJSON, strictly: unknown fields, wrong types), the A2A version; only then does the
// request handler's method run. Every refusal is an A2aError, thrown as a RestError so the
// transport sends it with the kind's HTTP status. A streaming method's answer is a StreamAnswer
// (stream.ts), which the http transport writes as server-sent events.
import type { RequestContext } from '../../transport/endpoint.js';
import type { RawHttpBody } from '../../transport/http/raw-body.js';
import { PathTemplate } from '../../transport/route-templates.js';
import { A2aError } from '../errors/a2a-error.js';
import { asA2aError } from '../handler/failures.js';
import type { StreamResponseJson } from '../handler/request-handler.js';
import { checkMediaType, checkVersion } from '../handler/service-parameters.js';
import { decodeParams } from '../model/params.js';
import { RestError } from './errors.js';
import { bodyObject, queryObject, refuseQuery, withPathFields } from './request.js';
import { openRestStream } from './stream.js';
import type { RestRoute } from './routes.js';

/** Serves one route at one path template (the plain one, or the one under a tenant prefix). */
export class RestRouteDispatcher {
  private readonly template: PathTemplate;

  constructor(
    private readonly route: RestRoute,
    path: string,
  ) {
    this.template = new PathTemplate(path);
  }

  async handle(body: RawHttpBody, context: RequestContext): Promise<unknown> {
    try {
      const request = this.read(body, context);
      checkVersion(body.header('a2a-version'));
      const answer = this.route.run(request as never, context);
      // A stream (SendStreamingMessage, SubscribeToTask) is answered as server-sent events once
      // its first event is there; a refusal before that is still an ordinary error answer.
      return isStream(answer) ? await openRestStream(answer) : await answer;
    } catch (error) {
      throw new RestError(asA2aError(error));
    }
  }

  /** The request message, decoded and checked. */
  private read(body: RawHttpBody, context: RequestContext): unknown {
    const { schema, fields } = this.route;
    let json: Record<string, unknown>;
    if (fields === 'body') {
      checkMediaType(body.header('content-type'));
      json = bodyObject(body.text, body.decoded);
      refuseQuery(context.params);
    } else {
      json = queryObject(schema, context.params);
    }
    // The dispatcher routed the request here, so its path matches (a shape it does not is a bug).
    const named = this.template.match(body.path);
    if (!named) throw new A2aError('internalError', `the path ${body.path} does not match ${this.template.path}`);
    return decodeParams(schema, withPathFields(json, named));
  }
}

function isStream(answer: unknown): answer is AsyncIterable<StreamResponseJson> {
  return typeof answer === 'object' && answer !== null && Symbol.asyncIterator in answer;
}
