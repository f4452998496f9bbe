// Reads one side of a comparison: every JSON Schema under a folder, and the operations
// manifests under another (a manifest is a JSON file with an `operations` array; other JSON
// files there, such as the manifests' own meta-schema, are skipped). References are rewritten
// to one form on the way in (refs.ts).
import type { SourceTree } from './trees.js';
import { canonicalizeRefs } from './refs.js';

export interface Contract {
  /** The tree it came from, for messages. */
  readonly source: string;
  /** Schema documents by path relative to the schema folder. */
  readonly schemas: ReadonlyMap<string, unknown>;
  /** Manifests by path relative to the manifest folder. */
  readonly manifests: ReadonlyMap<string, Record<string, unknown>>;
}

/** A folder or file that cannot be read as asked: the command reports it as a usage error. */
export class ContractLoadError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'ContractLoadError';
  }
}

/**
 * `manifestsOptional`: a tree without the manifest folder has no manifests, rather than being
 * an error (a baseline from before the manifests existed).
 */
export function loadContract(
  tree: SourceTree,
  schemaDir: string,
  manifestDir: string | undefined,
  manifestsOptional = false,
): Contract {
  const schemas = new Map<string, unknown>();
  for (const file of listFolder(tree, schemaDir, 'schema')) schemas.set(file, parse(tree, join(schemaDir, file)));
  canonicalizeRefs(schemas);
  const manifests = new Map<string, Record<string, unknown>>();
  if (manifestDir !== undefined && !(manifestsOptional && !tree.hasFolder(manifestDir))) {
    for (const file of listFolder(tree, manifestDir, 'manifest')) {
      const value = parse(tree, join(manifestDir, file));
      if (value !== null && typeof value === 'object' && Array.isArray((value as { operations?: unknown }).operations)) {
        manifests.set(file, value as Record<string, unknown>);
      }
    }
    if (manifests.size === 0) throw new ContractLoadError(`${where(tree, manifestDir)} holds no operations manifest`);
  }
  return { source: tree.label, schemas, manifests };
}

function listFolder(tree: SourceTree, dir: string, what: string): string[] {
  if (!tree.hasFolder(dir)) throw new ContractLoadError(`no ${what} folder at ${where(tree, dir)}`);
  const files = tree.listJson(dir);
  if (files.length === 0) throw new ContractLoadError(`${where(tree, dir)} holds no .json file`);
  return files;
}

function parse(tree: SourceTree, path: string): unknown {
  try {
    return JSON.parse(tree.read(path));
  } catch (error) {
    const reason = error instanceof Error ? error.message : String(error);
    throw new ContractLoadError(`${where(tree, path)} cannot be read as JSON: ${reason}`);
  }
}

function join(dir: string, file: string): string {
  return dir === '' ? file : `${dir}/${file}`;
}

function where(tree: SourceTree, path: string): string {
  return `${tree.label}: ${path === '' ? '.' : path}`;
}
