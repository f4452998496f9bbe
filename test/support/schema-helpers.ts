// Test-time loading and compilation of the native JSON Schemas. Until the generated
// standalone validators exist, every test compiles schemas/native/*.schema.json with
// ajv's draft 2020-12 build in strict mode, so an unknown keyword or a type mistake in a
// schema fails the suite.
import { readdirSync, readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import _Ajv2020 from 'ajv/dist/2020.js';
import _addFormats from 'ajv-formats';
import type { ErrorObject, ValidateFunction } from 'ajv/dist/2020.js';
import { addParleyKeywords } from '../../codegen/schema-keywords.js';

// ajv and ajv-formats are CommonJS; under NodeNext the default import is the module object.
const Ajv2020 = ((_Ajv2020 as unknown as { default?: unknown }).default ?? _Ajv2020) as typeof _Ajv2020.default;
const addFormats = ((_addFormats as unknown as { default?: unknown }).default ?? _addFormats) as typeof _addFormats.default;

export const NATIVE_DIR = fileURLToPath(new URL('../../schemas/native/', import.meta.url));
export const OPERATIONS_DIR = fileURLToPath(new URL('../../schemas/operations/', import.meta.url));
export const NATIVE_ID_BASE = 'https://parley.dev/schemas/native/';
const SUFFIX = '.schema.json';

export interface NativeSchema {
  [keyword: string]: unknown;
  $schema: string;
  $id: string;
  title: string;
  description: string;
  examples: unknown[];
}

export function readJson<T = unknown>(path: string): T {
  return JSON.parse(readFileSync(path, 'utf8')) as T;
}

let cachedSchemas: Map<string, NativeSchema> | undefined;

/** Every native schema keyed by its name (the file name without `.schema.json`). */
export function loadNativeSchemas(): Map<string, NativeSchema> {
  if (!cachedSchemas) {
    cachedSchemas = new Map();
    for (const file of readdirSync(NATIVE_DIR).sort()) {
      if (!file.endsWith(SUFFIX)) continue;
      cachedSchemas.set(file.slice(0, -SUFFIX.length), readJson<NativeSchema>(NATIVE_DIR + file));
    }
  }
  return cachedSchemas;
}

export function newAjv(): InstanceType<typeof Ajv2020> {
  const ajv = new Ajv2020({ allErrors: true, strict: true });
  addFormats(ajv);
  // parley's annotation keywords (x-http-status); any other unknown keyword still fails.
  addParleyKeywords(ajv);
  return ajv;
}

let cachedAjv: InstanceType<typeof Ajv2020> | undefined;

/** One shared ajv instance holding every native schema. */
function nativeAjv(): InstanceType<typeof Ajv2020> {
  if (!cachedAjv) {
    const ajv = newAjv();
    for (const schema of loadNativeSchemas().values()) ajv.addSchema(schema);
    cachedAjv = ajv;
  }
  return cachedAjv;
}

/** The compiled validator of the native schema called `name` (e.g. `task`). */
export function validator(name: string): ValidateFunction {
  const validate = nativeAjv().getSchema(`${NATIVE_ID_BASE}${name}${SUFFIX}`);
  if (!validate) throw new Error(`no native schema named ${name}`);
  return validate as ValidateFunction;
}

/** Validates `data` against schema `name`, returning ajv's errors (empty when valid). */
export function errorsFor(name: string, data: unknown): ErrorObject[] {
  const validate = validator(name);
  return validate(data) ? [] : [...(validate.errors ?? [])];
}

export function isValid(name: string, data: unknown): boolean {
  return validator(name)(data) as boolean;
}

/** Deep copy of JSON data, so table rows can mutate a fixture freely. */
export function clone<T>(value: T): T {
  return structuredClone(value);
}
