// The transport configuration is authored in TypeScript (schemas/config/transport-config.ts);
// ts-json-schema-generator turns it into a draft 2020-12 schema like the hand-written ones.
import { createGenerator } from 'ts-json-schema-generator';
import { join } from 'node:path';
import type { JsonSchema } from './schema-catalog.js';

export const CONFIG_SCHEMA_FILE = 'transport-config.schema.json';

export function emitConfigSchema(root: string): JsonSchema {
  const generator = createGenerator({
    path: join(root, 'schemas', 'config', 'transport-config.ts'),
    tsconfig: join(root, 'tsconfig.json'),
    type: 'TransportConfig',
    skipTypeCheck: true,
    additionalProperties: false,
    jsDoc: 'extended',
    sortProps: false,
    topRef: false,
    expose: 'export',
  });
  const draft7 = generator.createSchema('TransportConfig') as JsonSchema;
  const { $schema: _draft, definitions, ...top } = draft7;
  const defs = renameRefs(definitions ?? {}) as Record<string, JsonSchema>;
  for (const [key, def] of Object.entries(defs)) def.title ??= key;
  return {
    $schema: 'https://json-schema.org/draft/2020-12/schema',
    $id: `https://parley.dev/schemas/native/${CONFIG_SCHEMA_FILE}`,
    title: 'TransportConfig',
    ...(renameRefs(top) as JsonSchema),
    description:
      'Serialized transport configuration: limits, retry policy, keepalive, shutdown, idempotency cache, metrics, deadline and TLS files. Generated from schemas/config/transport-config.ts.',
    examples: [
      {
        limits: { max_request_bytes: 1048576, max_concurrent_requests: 50 },
        retry: { max_attempts: 3, initial_backoff: 0.1, max_backoff: 2, jitter: 0.1 },
        keepalive_interval: 20,
        idempotency_ttl: 300,
        tls: { certfile: 'server.pem', keyfile: 'server.key', cafile: null, require_client_cert: false },
      },
    ],
    $defs: defs,
  };
}

function renameRefs(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(renameRefs);
  if (value && typeof value === 'object') {
    const out: Record<string, unknown> = {};
    for (const [key, inner] of Object.entries(value)) {
      out[key] = key === '$ref' && typeof inner === 'string' ? inner.replace('#/definitions/', '#/$defs/') : renameRefs(inner);
    }
    return out;
  }
  return value;
}
