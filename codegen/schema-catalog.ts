// Loads the JSON Schemas codegen works from and names them. A schema's name is its file name
// without `.schema.json` (what `parley validate --schema` takes); its TypeScript type name is
// its title.
import { readFile } from 'node:fs/promises';
import { basename, join } from 'node:path';
import { listFiles } from './output-tree.js';

export type JsonSchema = { [key: string]: unknown };

export interface CatalogEntry {
  /** `task`, `agent-card`, ... for native schemas; `a2a:Task` for A2A ones. */
  readonly name: string;
  /** File name, which is also what relative `$ref`s point at. */
  readonly fileName: string;
  readonly id: string;
  readonly typeName: string;
  readonly schema: JsonSchema;
  /** Where the schema comes from, relative to the repository root (named in generated banners). */
  readonly source: string;
}

export async function loadSchemaDirectory(dir: string, prefix = ''): Promise<CatalogEntry[]> {
  const entries: CatalogEntry[] = [];
  for (const file of await listFiles(dir)) {
    if (!file.endsWith('.schema.json')) continue;
    const schema = JSON.parse(await readFile(file, 'utf8')) as JsonSchema;
    entries.push(catalogEntry(schema, basename(file), prefix));
  }
  return entries;
}

export function catalogEntry(
  schema: JsonSchema,
  fileName: string,
  prefix = '',
  source = prefix === 'a2a:' ? `generated/schemas/a2a/${fileName}` : `schemas/native/${fileName}`,
): CatalogEntry {
  const id = schema.$id;
  const title = schema.title;
  if (typeof id !== 'string') throw new Error(`${fileName}: schema has no $id`);
  if (typeof title !== 'string' || !/^[A-Z][A-Za-z0-9]*$/.test(title)) {
    throw new Error(`${fileName}: title must be a PascalCase identifier, got ${JSON.stringify(title)}`);
  }
  return {
    name: prefix + fileName.replace(/\.schema\.json$/, ''),
    fileName,
    id,
    typeName: title,
    schema,
    source,
  };
}

export function nativeSchemaDir(root: string): string {
  return join(root, 'schemas', 'native');
}
