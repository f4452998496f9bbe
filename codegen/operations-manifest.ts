// Reads schemas/operations/*.json: the one list of endpoints that routes, envelope dispatch,
// retry eligibility, handler interfaces and typed clients all come from.
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import type { OperationSpec } from '../generated/operations/spec.js';
import { listFiles } from './output-tree.js';

/**
 * One operation as a manifest writes it: the row of the generated table (OperationSpec, whose
 * declaration codegen/emit-operations.ts writes once) before codegen adds its service and
 * resolves its fallback to a route. Read from the generated file, so the fields are declared in
 * one place; the import is type-only, so codegen still runs (under tsx) when generated/ is stale.
 */
export type OperationEntry = Omit<OperationSpec, 'service' | 'fallback'> & {
  /** Streaming operations: the unary operation a peer that cannot stream answers instead. */
  readonly fallback?: string;
};

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
