// Reads schemas/operations/*.json: the one list of endpoints that routes, envelope dispatch,
// retry eligibility, handler interfaces and typed clients all come from.
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { listFiles } from './output-tree.js';

export interface OperationEntry {
  readonly name: string;
  readonly specName: string;
  readonly summary: string;
  readonly method: 'GET' | 'POST' | 'DELETE' | 'PUT';
  readonly path: string;
  readonly request: string | null;
  readonly query: string | null;
  readonly response: string | null;
  readonly responseContentType: string;
  readonly idempotent: boolean;
  readonly streaming: boolean;
  readonly public: boolean;
  readonly controlPlane: boolean;
  readonly availability: string;
  readonly idempotencyKeyFrom: readonly string[];
  /** Streaming operations: the unary operation a peer that cannot stream answers instead. */
  readonly fallback?: string;
}

export interface OperationsManifest {
  readonly service: string;
  readonly description: string;
  /** Fixed `status` texts the service answers with, by name (emitted as `<SERVICE>_STATUS`). */
  readonly statusTexts?: Readonly<Record<string, string>>;
  readonly operations: readonly OperationEntry[];
}

export async function loadManifests(root: string): Promise<OperationsManifest[]> {
  const manifests: OperationsManifest[] = [];
  for (const file of await listFiles(join(root, 'schemas', 'operations'))) {
    if (!file.endsWith('.json') || file.endsWith('.schema.json')) continue;
    manifests.push(JSON.parse(await readFile(file, 'utf8')) as OperationsManifest);
  }
  return manifests.sort((a, b) => a.service.localeCompare(b.service));
}
