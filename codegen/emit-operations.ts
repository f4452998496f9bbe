// From each operations manifest: the operation table (the route and dispatch table), the
// handler interface servers implement, and the typed client other repos import.
import type { OperationEntry, OperationsManifest } from './operations-manifest.js';
import type { CatalogEntry } from './schema-catalog.js';
import { generatedBanner } from './output-tree.js';
import { pascal } from './emit-types.js';

export interface OperationFiles {
  readonly operations: string;
  readonly handlers: string;
  readonly client: string;
}

/** Operations served by the native handler interfaces; A2A routes belong to the A2A adapter. */
function isNative(op: OperationEntry): boolean {
  return op.availability !== 'a2a';
}

export function emitOperationFiles(manifest: OperationsManifest, catalog: readonly CatalogEntry[]): OperationFiles {
  const types = new Map(catalog.map((entry) => [entry.name, entry.typeName]));
  const used = new Set<string>();
  const typeFor = (schema: string | null, fallback: string): string => {
    if (schema === null) return fallback;
    if (schema.startsWith('a2a:')) return 'unknown';
    const type = types.get(schema);
    if (!type) throw new Error(`${manifest.service}: operation refers to unknown schema ${schema}`);
    used.add(type);
    return type;
  };
  const service = pascal(manifest.service);
  const constName = `${manifest.service}Operations`;
  const native = manifest.operations.filter(isNative);
  const signatures = native.map((op) => {
    const input = op.request ?? op.query;
    const requestType = typeFor(input, 'void');
    // A text answer (HTML, Prometheus) is a string; a JSON answer with no schema of its own (the
    // OpenAPI document) is still a JSON object.
    const responseType = isTextAnswer(op) ? 'string' : typeFor(op.response, 'Record<string, unknown>');
    return { op, requestType, responseType, hasInput: input !== null };
  });
  const typeImports = () => (used.size ? `import type { ${[...used].sort().join(', ')} } from '../types/index.js';` : '');

  const table = manifest.operations
    .map((op) => {
      const row = { service: manifest.service, ...op, ...fallbackRoute(manifest, op) };
      return `  ${op.name}: ${JSON.stringify(row, null, 2).replace(/\n/g, '\n  ')},`;
    })
    .join('\n');
  const banner = generatedBanner('codegen/emit-operations.ts', `schemas/operations/${manifest.service}.json`);
  const operations = `${banner}
import type { OperationSpec } from './spec.js';

/** ${manifest.description} */
export const ${constName} = {
${table}
} as const satisfies Record<string, OperationSpec>;

export type ${service}OperationName = keyof typeof ${constName};

/** Every ${manifest.service} operation, keyed by \`METHOD path\`. */
export const ${manifest.service}Routes: ReadonlyMap<string, OperationSpec> = new Map(
  Object.values(${constName}).map((op) => [\`\${op.method} \${op.path}\`, op]),
);
${statusTextsModule(manifest)}`;

  const handlerLines = signatures.map(({ op, requestType, responseType, hasInput }) => {
    const input = hasInput ? `request: ${requestType}, ` : '';
    const result = op.streaming ? `AsyncIterable<${responseType}>` : `Promise<${responseType}> | ${responseType}`;
    return `  /** ${op.method} ${op.path}: ${op.summary} */\n  ${op.name}(${input}context: Context): ${result};`;
  });
  const handlers = `${banner}
${typeImports()}

/**
 * What ${article(manifest.service)} ${manifest.service} server implements: one method per native operation of
 * schemas/operations/${manifest.service}.json. \`Context\` is the server's per-request context.
 */
export interface ${service}Handlers<Context = unknown> {
${handlerLines.join('\n')}
}
`;

  const clientLines = signatures.map(({ op, requestType, responseType, hasInput }) => {
    const param = hasInput ? `request: ${requestType}, ` : '';
    const arg = hasInput ? 'request' : 'undefined';
    const call = op.streaming
      ? `AsyncIterable<${responseType}> {\n    return this.invoker.stream(${constName}.${op.name}, ${arg}, options) as AsyncIterable<${responseType}>;`
      : `Promise<${responseType}> {\n    return this.invoker.unary(${constName}.${op.name}, ${arg}, options) as Promise<${responseType}>;`;
    return `  /** ${op.method} ${op.path}: ${op.summary} */\n  ${op.name}(${param}options?: CallOptions): ${call}\n  }`;
  });
  const client = `${banner}
${typeImports()}
import type { CallOptions, OperationInvoker } from '../operations/spec.js';
import { ${constName} } from '../operations/${manifest.service}.js';

/**
 * Typed calls for every native ${manifest.service} operation. The invoker is any parley
 * transport client (or your own implementation of OperationInvoker).
 */
export class ${service}OperationsClient {
  constructor(readonly invoker: OperationInvoker) {}

${clientLines.join('\n\n')}
}
`;
  return { operations, handlers, client };
}

/**
 * A stream's fallback, resolved to the route of the unary operation it names, so a transport
 * finds it from the spec alone. Only a unary JSON operation taking the same request can stand in.
 */
function fallbackRoute(
  manifest: OperationsManifest,
  op: OperationEntry,
): { fallback?: { name: string; method: string; path: string } } {
  if (op.fallback === undefined) return {};
  const target = manifest.operations.find((candidate) => candidate.name === op.fallback);
  const problem = !op.streaming
    ? 'only a streaming operation has a fallback'
    : !target
      ? `no operation is named ${op.fallback}`
      : target.streaming || target.responseContentType !== 'application/json'
        ? `${op.fallback} is not a unary JSON operation`
        : target.request !== op.request
          ? `${op.fallback} takes ${target.request}, not ${op.request}`
          : null;
  if (problem || !target) throw new Error(`${manifest.service}.${op.name}: fallback ${op.fallback}: ${problem}`);
  return { fallback: { name: target.name, method: target.method, path: target.path } };
}

/** The static contract the generated tables and clients are typed against. */
export const OPERATION_SPEC_MODULE = `${generatedBanner('codegen/emit-operations.ts', 'schemas/operations/operations.schema.json')}
export type HttpMethod = 'GET' | 'POST' | 'DELETE' | 'PUT';

/** Where an operation is mounted. */
export type Availability =
  | 'always'
  | 'streaming-transport'
  | 'a2a'
  | 'llm'
  | 'html-transport';

/** The unary operation a stream stands in for, with its route. */
export interface FallbackRoute {
  readonly name: string;
  readonly method: HttpMethod;
  readonly path: string;
}

/** One row of an operations manifest: everything a transport needs to route and retry it. */
export interface OperationSpec {
  readonly service: string;
  readonly name: string;
  readonly specName: string;
  readonly summary: string;
  readonly method: HttpMethod;
  readonly path: string;
  /** Schema name of the JSON body, or null when there is none. */
  readonly request: string | null;
  /** Schema name of the query parameters, or null. */
  readonly query: string | null;
  /** Schema name of the JSON response (of each event, for streams), or null. */
  readonly response: string | null;
  readonly responseContentType: string;
  readonly idempotent: boolean;
  readonly streaming: boolean;
  /** Served without credentials. */
  readonly public: boolean;
  /** Must never wait behind the work it controls (cancellation, state control). */
  readonly controlPlane: boolean;
  readonly availability: Availability;
  /** Payload fields an idempotency key is derived from, tried in order. */
  readonly idempotencyKeyFrom: readonly string[];
  /**
   * Streaming operations only: the unary operation a peer without this stream answers instead,
   * its answer becoming the stream's one final event (the runtime transport's fallback).
   */
  readonly fallback?: FallbackRoute;
}

/** Per-call options every transport client understands. */
export interface CallOptions {
  /** Cancels the call; for streams, closes the stream. */
  readonly signal?: AbortSignal;
  /** Deadline for this call in milliseconds, replacing the transport's \`timeout\`. */
  readonly timeoutMs?: number;
  /** Query parameters; for GET operations with a query schema the request is used instead. */
  readonly params?: Readonly<Record<string, string | readonly string[]>>;
  /**
   * Replaces the idempotency key derived from the payload, for example to resubmit a task
   * that waits for input (its id alone would replay the earlier answer).
   */
  readonly idempotencyKey?: string;
  /** Extra request headers or metadata (lowercase names). */
  readonly headers?: Readonly<Record<string, string>>;
}

/** What a typed client calls through: a transport client. */
export interface OperationInvoker {
  unary(spec: OperationSpec, request: unknown, options?: CallOptions): Promise<unknown>;
  stream(spec: OperationSpec, request: unknown, options?: CallOptions): AsyncIterable<unknown>;
}
`;

/**
 * The manifest's fixed \`status\` texts as one constant (\`REGISTRY_STATUS\` for the registry):
 * the server answers with them and clients compare against them, so they come from the manifest
 * like every other wire text. Nothing when the manifest has none.
 */
function statusTextsModule(manifest: OperationsManifest): string {
  const texts = manifest.statusTexts;
  if (!texts) return '';
  const rows = Object.entries(texts).map(([name, text]) => `  ${name}: ${JSON.stringify(text)},`);
  return `
/** The fixed \`status\` texts ${article(manifest.service)} ${manifest.service} server answers with; clients compare against them. */
export const ${manifest.service.toUpperCase()}_STATUS = {
${rows.join('\n')}
} as const;
`;
}

function article(word: string): string {
  return /^[aeiou]/i.test(word) ? 'an' : 'a';
}

/** Operations answering with text rather than JSON: HTML pages and the Prometheus exposition. */
function isTextAnswer(op: OperationEntry): boolean {
  return op.responseContentType === 'text/html' || op.responseContentType === 'text/plain';
}
