// The HTTP+JSON binding's routes as endpoints of an agent's table: every route of routes.ts at
// its path under /a2a/rest, and again under a tenant prefix (/a2a/rest/{tenant}/tasks/{id}, as
// the proto's additional bindings declare: the tenant then comes from the path). Each route reads
// its body itself (rawBody), so a bad body or media type is answered in this binding's error
// shape; so is a body the transport refuses before the binding sees it (too large, too slow).
import { routeKey, type Endpoint } from '../../transport/endpoint.js';
import type { RawHttpBody } from '../../transport/http/raw-body.js';
import { HTTP_JSON_BASE_PATH } from '../card/agent-card.js';
import type { A2aRequestHandler } from '../handler/request-handler.js';
import { RestRouteDispatcher } from './dispatch.js';
import { refusalBody } from './errors.js';
import { restRoutes } from './routes.js';

export function buildRestEndpoints(handler: A2aRequestHandler): Map<string, Endpoint> {
  const endpoints = new Map<string, Endpoint>();
  for (const route of restRoutes(handler)) {
    const { spec } = route;
    if (!spec.path.startsWith(`${HTTP_JSON_BASE_PATH}/`))
      throw new Error(`${spec.name}: ${spec.path} is not under ${HTTP_JSON_BASE_PATH} (schemas/operations/agent.json)`);
    const tenanted = `${HTTP_JSON_BASE_PATH}/{tenant}${spec.path.slice(HTTP_JSON_BASE_PATH.length)}`;
    for (const path of [spec.path, tenanted]) {
      const dispatcher = new RestRouteDispatcher(route, path);
      endpoints.set(routeKey(spec.method, path), {
        spec,
        rawBody: true,
        unary: (data, context) => dispatcher.handle(data as RawHttpBody, context),
        errorBody: refusalBody,
      });
    }
  }
  return endpoints;
}
