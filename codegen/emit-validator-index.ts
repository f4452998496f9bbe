// The public face of the validators: a name-keyed `validate()`, one typed function per native
// schema, and the list of names the CLI offers.
import type { CatalogEntry } from './schema-catalog.js';
import { generatedBanner } from './output-tree.js';
import { pascal } from './emit-types.js';

export function emitValidatorIndex(native: readonly CatalogEntry[], a2a: readonly CatalogEntry[]): string {
  const typeImports = native.map((entry) => entry.typeName).sort();
  const nativeTypes = native.map((entry) => `  ${JSON.stringify(entry.name)}: ${entry.typeName};`).join('\n');
  const a2aNames = a2a.map((entry) => JSON.stringify(entry.name)).join('\n  | ');
  const names = [...native, ...a2a].map((entry) => `  ${JSON.stringify(entry.name)},`).join('\n');
  const perSchema = native
    .map(
      (entry) =>
        `/** Checks a value against the \`${entry.name}\` schema. Never throws. */\n` +
        `export function validate${pascal(entry.name)}(value: unknown): ValidationResult<${entry.typeName}> {\n` +
        `  return runValidator(nativeValidators[${JSON.stringify(entry.name)}], value);\n}`,
    )
    .join('\n\n');
  return `${generatedBanner('codegen/emit-validator-index.ts', 'schemas/native/, schemas/config/ and proto/lf/a2a/v1/a2a.proto')}
import type {
${typeImports.map((type) => `  ${type},`).join('\n')}
} from '../types/index.js';
import { compiledValidators as nativeValidators } from './native.js';
import { compiledValidators as a2aValidators } from './a2a.js';
import { runValidator, type CompiledValidator, type ValidationResult } from './result.js';

export type { ValidationIssue, ValidationResult } from './result.js';

/** Native schema names and the type a valid value has. */
export interface NativeSchemaTypes {
${nativeTypes}
}

export type NativeSchemaName = keyof NativeSchemaTypes;

/** A2A 1.0 message schemas (their ProtoJSON form), derived from the A2A proto. */
export type A2ASchemaName =
  | ${a2aNames || 'never'};

export type SchemaName = NativeSchemaName | A2ASchemaName;

export type SchemaType<N extends SchemaName> = N extends NativeSchemaName ? NativeSchemaTypes[N] : unknown;

/** Every schema name, native first, in a stable order. */
export const schemaNames: readonly SchemaName[] = [
${names}
];

const byName: Record<string, CompiledValidator> = { ...nativeValidators, ...a2aValidators };

export function isSchemaName(name: string): name is SchemaName {
  return Object.prototype.hasOwnProperty.call(byName, name);
}

/** Checks a value against the named schema. Never throws, whatever the value. */
export function validate<N extends SchemaName>(name: N, value: unknown): ValidationResult<SchemaType<N>> {
  const compiled = byName[name];
  if (!compiled) throw new RangeError(\`unknown schema name: \${String(name)}\`);
  return runValidator(compiled, value);
}

${perSchema}
`;
}

/** Shared by every validator: turns ajv's outcome into a result and never lets it throw. */
export const VALIDATION_RESULT_MODULE = `${generatedBanner('codegen/emit-validator-index.ts', 'its own template')}
/** One reason a value failed its schema. */
export interface ValidationIssue {
  /** JSON pointer to the offending value ('' for the root). */
  readonly pointer: string;
  /** The schema keyword that failed: type, required, enum, format, ... */
  readonly keyword: string;
  /** What was expected, in words. */
  readonly message: string;
  readonly params: Readonly<Record<string, unknown>>;
}

export type ValidationResult<T> =
  | { readonly valid: true; readonly value: T }
  | { readonly valid: false; readonly errors: readonly ValidationIssue[] };

interface AjvError {
  instancePath: string;
  keyword: string;
  message?: string;
  params: Record<string, unknown>;
}

export type CompiledValidator = ((value: unknown) => boolean) & { errors?: AjvError[] | null };

export function runValidator<T>(compiled: CompiledValidator, value: unknown): ValidationResult<T> {
  try {
    if (compiled(value)) return { valid: true, value: value as T };
    return { valid: false, errors: (compiled.errors ?? []).map(toIssue) };
  } catch (error) {
    // A value nested deeper than the stack allows, or a getter that throws: report, never crash.
    const reason = error instanceof Error ? error.message : String(error);
    return {
      valid: false,
      errors: [{ pointer: '', keyword: 'exception', message: \`could not be validated: \${reason}\`, params: {} }],
    };
  }
}

function toIssue(error: AjvError): ValidationIssue {
  const params = error.params ?? {};
  let pointer = error.instancePath;
  let message = error.message ?? 'is invalid';
  switch (error.keyword) {
    case 'required':
      pointer = \`\${pointer}/\${escapePointer(String(params.missingProperty))}\`;
      message = 'is required but missing';
      break;
    case 'additionalProperties':
      pointer = \`\${pointer}/\${escapePointer(String(params.additionalProperty))}\`;
      message = 'is not an allowed property';
      break;
    case 'enum':
      message = \`must be one of \${(params.allowedValues as unknown[]).map((v) => JSON.stringify(v)).join(', ')}\`;
      break;
    case 'const':
      message = \`must be \${JSON.stringify(params.allowedValue)}\`;
      break;
    case 'format':
      message = \`must be a valid \${String(params.format)}\`;
      break;
  }
  return { pointer, keyword: error.keyword, message, params };
}

function escapePointer(token: string): string {
  return token.replace(/~/g, '~0').replace(/\\//g, '~1');
}
`;
