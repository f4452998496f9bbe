// parley's own JSON Schema keywords. They are annotations that ajv ignores when it validates
// data (codegen checks their content). Any strict ajv that loads parley's native schemas must
// register them, or it refuses the schema as having an unknown keyword.
import type { KeywordDefinition } from 'ajv';

/** On an enum of error codes: the HTTP-like status each code is sent with, keyed by code. */
export const HTTP_STATUS_KEYWORD = 'x-http-status';

const KEYWORDS: readonly KeywordDefinition[] = [
  // No metaSchema: compiling one would renumber every standalone validator for no gain.
  { keyword: HTTP_STATUS_KEYWORD, schemaType: 'object' },
];

export function addParleyKeywords(ajv: { addKeyword(definition: KeywordDefinition): unknown }): void {
  for (const definition of KEYWORDS) ajv.addKeyword(definition);
}
