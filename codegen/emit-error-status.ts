// Emits ERROR_STATUS, the code -> HTTP-like status map, from the `x-http-status` table of
// schemas/native/error-code.schema.json, so the pairs are written once, in the schema.
import type { CatalogEntry } from './schema-catalog.js';
import { generatedBanner } from './output-tree.js';
import { HTTP_STATUS_KEYWORD } from './schema-keywords.js';

export const ERROR_STATUS_MODULE = 'generated/errors/error-status.ts';

export function emitErrorStatusModule(native: readonly CatalogEntry[]): string {
  const entry = native.find((candidate) => candidate.name === 'error-code');
  if (!entry) throw new Error('error-code.schema.json is missing from schemas/native');
  const codes = entry.schema.enum;
  const table = entry.schema[HTTP_STATUS_KEYWORD] as Record<string, number> | undefined;
  if (!Array.isArray(codes) || !table) throw new Error(`${entry.fileName}: needs an enum and an ${HTTP_STATUS_KEYWORD} table`);
  // Both lists must name the same codes: a code without a status, or a status for a code that
  // is not in the enum, is a schema mistake.
  const missing = codes.filter((code) => !(String(code) in table));
  const extra = Object.keys(table).filter((code) => !codes.includes(code));
  if (missing.length > 0 || extra.length > 0) {
    throw new Error(
      `${entry.fileName}: ${HTTP_STATUS_KEYWORD} must list exactly the enum's codes` +
        (missing.length ? `; missing ${missing.join(', ')}` : '') +
        (extra.length ? `; not in the enum: ${extra.join(', ')}` : ''),
    );
  }
  const notStatus = Object.entries(table).filter(([, status]) => !Number.isInteger(status) || status < 100 || status > 599);
  if (notStatus.length > 0) {
    throw new Error(
      `${entry.fileName}: ${HTTP_STATUS_KEYWORD} values must be HTTP statuses; ${notStatus.map(([code]) => code).join(', ')} are not`,
    );
  }
  const rows = codes.map((code) => `  ${String(code)}: ${table[String(code)]},`).join('\n');
  return `${generatedBanner('codegen/emit-error-status.ts', 'schemas/native/error-code.schema.json')}
import type { ${entry.typeName} } from '../types/${entry.fileName.replace(/\.schema\.json$/, '')}.js';

/** The HTTP-like status each error code is sent with (\`${HTTP_STATUS_KEYWORD}\` in ${entry.fileName}). */
export const ERROR_STATUS: Readonly<Record<${entry.typeName}, number>> = Object.freeze({
${rows}
});
`;
}
