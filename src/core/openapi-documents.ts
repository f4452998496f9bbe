// The OpenAPI 3.1 documents the servers answer GET /openapi.json with. They are the generated
// ones (generated/openapi/), imported on the first request: most processes never serve them,
// and a hundred kilobytes of object literal is not worth parsing at startup.
import type { agentOpenApi } from '../../generated/openapi/agent.js';
import type { registryOpenApi } from '../../generated/openapi/registry.js';

type OpenApiDocument = typeof agentOpenApi | typeof registryOpenApi;

let agent: Promise<OpenApiDocument> | undefined;
let registry: Promise<OpenApiDocument> | undefined;

/** The agent API's document, shared by every agent in the process (callers must not change it). */
export function agentOpenApiDocument(): Promise<OpenApiDocument> {
  agent ??= import('../../generated/openapi/agent.js').then((module) => module.agentOpenApi);
  return agent;
}

/** The registry API's document, shared like the agent's. */
export function registryOpenApiDocument(): Promise<OpenApiDocument> {
  registry ??= import('../../generated/openapi/registry.js').then((module) => module.registryOpenApi);
  return registry;
}
