// Builds the two sides of a comparison from plain objects for the contract tests: a schema
// folder and an operations manifest held in a directory made with mkdtemp, read the way the
// command reads a baseline.
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { compareContracts } from '../../src/contract/compare.js';
import type { Finding } from '../../src/contract/findings.js';
import { loadContract } from '../../src/contract/load.js';
import { directoryTree } from '../../src/contract/trees.js';

export interface Side {
  /** Schema files by name, in the schema folder. */
  readonly schemas: Readonly<Record<string, unknown>>;
  readonly operations: readonly unknown[];
  readonly statusTexts?: Readonly<Record<string, string>>;
  /** The manifest's file name. Default: service.json. */
  readonly manifestFile?: string;
}

function writeSide(root: string, side: Side): void {
  for (const [file, schema] of Object.entries(side.schemas)) {
    mkdirSync(dirname(join(root, 'schemas', file)), { recursive: true });
    writeFileSync(join(root, 'schemas', file), JSON.stringify(schema));
  }
  const manifest = { service: 'test', operations: side.operations, ...(side.statusTexts && { statusTexts: side.statusTexts }) };
  mkdirSync(join(root, 'operations'), { recursive: true });
  writeFileSync(join(root, 'operations', side.manifestFile ?? 'service.json'), JSON.stringify(manifest));
}

/** The findings of comparing `before` with `after`, through the same loading as the command. */
export function compareSides(before: Side, after: Side): Finding[] {
  const root = mkdtempSync(join(tmpdir(), 'parley-contract-'));
  try {
    writeSide(join(root, 'before'), before);
    writeSide(join(root, 'after'), after);
    const load = (dir: string) => loadContract(directoryTree(join(root, dir)), 'schemas', 'operations');
    return compareContracts(load('before'), load('after'));
  } finally {
    rmSync(root, { recursive: true, force: true });
  }
}

/** One operation of the test manifest; `fields` override the defaults. */
export function operation(name: string, fields: Readonly<Record<string, unknown>> = {}): Record<string, unknown> {
  return {
    name,
    method: 'POST',
    path: `/${name}`,
    request: null,
    query: null,
    response: null,
    responseContentType: 'application/json',
    streaming: false,
    public: false,
    ...fields,
  };
}

/** Operations through which `thing.schema.json` travels in `direction`. */
export function usedAs(direction: 'request' | 'answer' | 'both'): Record<string, unknown>[] {
  const ops: Record<string, unknown>[] = [];
  if (direction !== 'answer') ops.push(operation('put', { request: 'thing' }));
  if (direction !== 'request') ops.push(operation('get', { method: 'GET', response: 'thing' }));
  return ops;
}
