// OpenAPI 3.1 documents of the native HTTP API, one per service, built from the operations
// manifest and the native JSON Schemas: no hand-written copy of any shape. OpenAPI 3.1 speaks
// JSON Schema 2020-12, so the schemas go in as they are; only their `$ref`s change, from sibling
// files (`message.schema.json`) to components (`#/components/schemas/Message`). A2A 1.0 types on
// the optional JSON-RPC routes stay opaque objects that point at the A2A specification.
import type { OperationEntry, OperationsManifest } from './operations-manifest.js';
import type { CatalogEntry, JsonSchema } from './schema-catalog.js';

type Json = Record<string, unknown>;

const A2A_DOCS = 'https://a2a-protocol.org/latest/specification/';

export function emitOpenApi(manifest: OperationsManifest, catalog: readonly CatalogEntry[], version: string): Json {
  const native = catalog.filter((entry) => !entry.name.startsWith('a2a:'));
  const byName = new Map(native.map((entry) => [entry.name, entry]));
  const byFile = new Map(native.map((entry) => [entry.fileName, entry]));
  const used = new Set<string>();
  const ref = (name: string): Json => {
    const entry = byName.get(name);
    if (!entry) throw new Error(`${manifest.service}: operation refers to unknown schema ${name}`);
    used.add(entry.name);
    return { $ref: `#/components/schemas/${entry.typeName}` };
  };
  const schemaFor = (name: string): Json =>
    name.startsWith('a2a:')
      ? { type: 'object', description: `A2A 1.0 ${name.slice(4)} (ProtoJSON); see the A2A specification.` }
      : ref(name);

  const paths: Record<string, Record<string, Json>> = {};
  for (const op of manifest.operations) {
    (paths[op.path] ??= {})[op.method.toLowerCase()] = operation(manifest.service, op, schemaFor, byName);
  }

  const errorBody = ref('error-body');
  // Components: every native schema an operation reaches, following $refs between files. A
  // schema's $defs become components of their own (named as the TypeScript types are), so
  // generators that turn components into types never see a reference into another component.
  const components: Record<string, Json> = {};
  const pending = [...used];
  while (pending.length > 0) {
    const entry = byName.get(pending.pop()!)!;
    if (components[entry.typeName]) continue;
    const visit = (found: CatalogEntry) => {
      if (!components[found.typeName]) pending.push(found.name);
    };
    const { $defs, ...schema } = entry.schema as JsonSchema & { $defs?: Record<string, JsonSchema> };
    components[entry.typeName] = rewriteRefs(schema, entry, byFile, visit) as Json;
    for (const [key, def] of Object.entries($defs ?? {})) {
      const name = defName(entry, key, def);
      if (components[name]) throw new Error(`${entry.fileName}: $defs/${key} would replace component ${name}`);
      components[name] = rewriteRefs(def, entry, byFile, visit) as Json;
    }
  }

  return {
    openapi: '3.1.0',
    jsonSchemaDialect: 'https://json-schema.org/draft/2020-12/schema',
    info: {
      title: `parley ${manifest.service} API`,
      version,
      description: `${manifest.description}\n\nGenerated from schemas/operations/${manifest.service}.json and schemas/native/.`,
    },
    tags: [{ name: manifest.service }],
    // Authentication is a deployment choice: no scheme, or the one the server's authenticator speaks.
    security: [{}, { apiKey: [] }, { bearer: [] }, { basic: [] }],
    paths,
    components: {
      schemas: Object.fromEntries(Object.entries(components).sort(([a], [b]) => a.localeCompare(b))),
      securitySchemes: {
        apiKey: { type: 'apiKey', in: 'header', name: 'X-API-Key', description: 'Also accepted as Authorization: ApiKey <key>.' },
        bearer: { type: 'http', scheme: 'bearer', bearerFormat: 'JWT' },
        basic: { type: 'http', scheme: 'basic' },
      },
      responses: {
        Error: {
          description: 'Any failure: the status and a JSON error body with a stable code.',
          content: { 'application/json': { schema: errorBody } },
        },
      },
    },
  };
}

function operation(
  service: string,
  op: OperationEntry,
  schemaFor: (name: string) => Json,
  byName: ReadonlyMap<string, CatalogEntry>,
): Json {
  const parameters: Json[] = [
    {
      name: 'X-Svc-Request-ID',
      in: 'header',
      required: false,
      description: 'Correlation id; the server echoes it and generates one when absent.',
      schema: { type: 'string' },
    },
  ];
  // Path templates (A2A's HTTP+JSON routes: /a2a/rest/tasks/{id}): each name is a path parameter.
  for (const [, name] of op.path.matchAll(/\{([^}]+)\}/g)) {
    parameters.push({ name, in: 'path', required: true, schema: { type: 'string' } });
  }
  if (op.idempotent) {
    parameters.push({
      name: 'Idempotency-Key',
      in: 'header',
      required: false,
      description: 'Repeats with the same key (per method, path and caller) get the first answer back instead of running again.',
      schema: { type: 'string' },
    });
  }
  if (op.query) {
    const query = byName.get(op.query)?.schema;
    for (const [name, property] of Object.entries((query?.properties ?? {}) as Record<string, JsonSchema>)) {
      parameters.push({
        name,
        in: 'query',
        required: false,
        ...(typeof property.description === 'string' && { description: property.description }),
        schema: { type: 'string' },
        ...(property.type === 'array' && { style: 'form', explode: true }),
      });
    }
  }
  const responses: Json = { '200': { description: 'Success.', content: responseContent(op, schemaFor) } };
  responses.default = { $ref: '#/components/responses/Error' };
  return {
    operationId: op.name,
    summary: op.summary.split(/(?<=\.)\s/)[0],
    description: `${op.summary}\n\nAvailability: ${op.availability}.${op.controlPlane ? ' Control plane.' : ''}`,
    tags: [service],
    ...(op.public && { security: [] }),
    parameters,
    ...(op.request && {
      // A2A's cancel and subscribe take every field from the path: their body may be left out.
      requestBody: {
        required: !/:(cancel|subscribe)$/.test(op.path),
        content: { 'application/json': { schema: schemaFor(op.request) } },
      },
    }),
    responses,
    ...(op.path === '/' && { externalDocs: { url: A2A_DOCS, description: 'A2A 1.0 JSON-RPC binding' } }),
    ...(op.path.startsWith('/a2a/rest/') && { externalDocs: { url: A2A_DOCS, description: 'A2A 1.0 HTTP+JSON binding' } }),
  };
}

function responseContent(op: OperationEntry, schemaFor: (name: string) => Json): Json {
  switch (op.responseContentType) {
    case 'text/html':
      return { 'text/html': { schema: { type: 'string' } } };
    case 'text/plain':
      return { 'text/plain': { schema: { type: 'string', description: 'Prometheus text exposition format 0.0.4' } } };
    case 'text/event-stream':
      // A2A's own streams carry A2A StreamResponse objects, not parley's frames.
      if (op.response?.startsWith('a2a:'))
        return {
          'text/event-stream': {
            schema: {
              type: 'string',
              description: 'Server-sent events: each `data:` line is one A2A 1.0 StreamResponse (ProtoJSON).',
            },
          },
        };
      return {
        'text/event-stream': {
          schema: {
            type: 'string',
            description:
              'Server-sent events: each `data:` line is one JSON frame (see SseFrame) whose `result` is the event; the stream ends with the frame whose `final` is true.',
          },
          'x-parley-frame': schemaFor('sse-frame'),
          ...(op.response && { 'x-parley-event': schemaFor(op.response) }),
        },
      };
    default:
      return { 'application/json': { schema: op.response ? schemaFor(op.response) : {} } };
  }
}

/** A copy of `schema` with file refs turned into component refs, and no `$id`/`$schema`. */
function rewriteRefs(
  schema: unknown,
  owner: CatalogEntry,
  byFile: ReadonlyMap<string, CatalogEntry>,
  found: (entry: CatalogEntry) => void,
): unknown {
  if (Array.isArray(schema)) return schema.map((item) => rewriteRefs(item, owner, byFile, found));
  if (typeof schema !== 'object' || schema === null) return schema;
  const out: Json = {};
  for (const [key, value] of Object.entries(schema)) {
    if (key === '$id' || key === '$schema') continue;
    if (key === '$ref' && typeof value === 'string') {
      const [file, pointer = ''] = value.split('#');
      const target = file ? byFile.get(file) : owner;
      if (!target) throw new Error(`${owner.fileName}: $ref to unknown file ${value}`);
      if (target !== owner) found(target);
      const def = /^\/\$defs\/([^/]+)$/.exec(pointer);
      if (pointer !== '' && !def)
        throw new Error(`${owner.fileName}: $ref ${value} points inside a schema; only whole schemas and $defs are supported`);
      const defs = (target.schema.$defs ?? {}) as Record<string, JsonSchema>;
      out.$ref = `#/components/schemas/${def ? defName(target, def[1]!, defs[def[1]!] ?? {}) : target.typeName}`;
      continue;
    }
    out[key] = rewriteRefs(value, owner, byFile, found);
  }
  return out;
}

/** The component name of a schema's $defs entry: its title, else the owner's name and the key. */
function defName(owner: CatalogEntry, key: string, def: JsonSchema): string {
  return typeof def.title === 'string' ? def.title : owner.typeName + key.charAt(0).toUpperCase() + key.slice(1);
}
