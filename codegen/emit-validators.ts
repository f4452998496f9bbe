// Compiles every schema with ajv at codegen time into standalone code, so nothing is compiled
// when parley runs. ajv's standalone output still reaches its runtime helpers with
// `require(...)`; those calls are rewritten into ESM imports so the module loads in Node's ESM.
import { Ajv2020 } from 'ajv/dist/2020.js';
import addFormatsModule from 'ajv-formats';
import standaloneCodeModule from 'ajv/dist/standalone/index.js';
import type { CatalogEntry } from './schema-catalog.js';
import { generatedBanner } from './output-tree.js';
import { addParleyKeywords } from './schema-keywords.js';

// Both packages are CommonJS with a default export; reach it the same way under tsx and tsc.
const addFormats = ((addFormatsModule as unknown as { default?: unknown }).default ?? addFormatsModule) as unknown as (
  ajv: Ajv2020,
) => void;
const standaloneCode = ((standaloneCodeModule as unknown as { default?: unknown }).default ??
  standaloneCodeModule) as unknown as (ajv: Ajv2020, refs: Record<string, string>) => string;

/** The ajv options every parley validator is built with; tests use the same ones. */
export function createAjv(): Ajv2020 {
  const ajv = new Ajv2020({
    allErrors: true,
    strict: true,
    strictRequired: false,
    allowUnionTypes: true,
    code: { source: true, esm: true, lines: true, optimize: true },
  });
  addFormats(ajv);
  addParleyKeywords(ajv);
  return ajv;
}

/**
 * Emits one module holding a standalone validator per entry, exported under an identifier
 * derived from the schema name, plus `schemaNames` in the same order.
 */
export function emitValidatorModule(entries: readonly CatalogEntry[], source: string): string {
  const ajv = createAjv();
  for (const entry of entries) ajv.addSchema(entry.schema);
  const exportsByName: Record<string, string> = {};
  for (const entry of entries) exportsByName[exportName(entry.name)] = entry.id;
  const code = rewriteRequires(standaloneCode(ajv, exportsByName).replace(/^"use strict";\n?/, ''));
  const table = entries.map((entry) => `  ${JSON.stringify(entry.name)}: ${exportName(entry.name)},`).join('\n');
  return [
    generatedBanner('codegen/emit-validators.ts', source).trimEnd(),
    '// @ts-nocheck: ajv standalone output, checked by ajv when it was generated.',
    '/* eslint-disable */',
    code,
    '',
    `export const compiledValidators = {\n${table}\n};`,
    '',
  ].join('\n');
}

function exportName(schemaName: string): string {
  return `validate_${schemaName.replace(/[^A-Za-z0-9]/g, '_')}`;
}

function rewriteRequires(code: string): string {
  const modules = new Map<string, string>();
  const body = code.replace(/require\("([^"]+)"\)/g, (_, specifier: string) => {
    let local = modules.get(specifier);
    if (!local) {
      local = `runtime${modules.size}`;
      modules.set(specifier, local);
    }
    return local;
  });
  const imports = [...modules].map(([specifier, local]) => `import ${local} from ${JSON.stringify(`${specifier}.js`)};`);
  return `${imports.join('\n')}\n${body}`;
}
