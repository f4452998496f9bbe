// The schemas with your own ajv (JSON Schema 2020-12): load every native schema from the
// package, so the references between them resolve, then compile the one you need. The schema
// files sit at parley-agents/schemas/native/<name>.schema.json, one per name `parley schemas`
// lists (the A2A ones at parley-agents/schemas/a2a/<Message>.schema.json).
import { readdirSync, readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { Ajv2020 } from 'ajv/dist/2020.js';
import addFormats from 'ajv-formats';

const require = createRequire(import.meta.url);
const nativeDir = dirname(require.resolve('parley-agents/schemas/native/task.schema.json'));

const ajv = new Ajv2020({ allErrors: true, allowUnionTypes: true });
addFormats.default(ajv);
// parley's one annotation keyword (the HTTP status of each error code): a strict ajv must know it.
ajv.addKeyword('x-http-status');
for (const file of readdirSync(nativeDir).filter((name) => name.endsWith('.schema.json'))) {
  ajv.addSchema(JSON.parse(readFileSync(join(nativeDir, file), 'utf8')));
}

const validateTask = ajv.getSchema('https://parley.dev/schemas/native/task.schema.json')!;
for (const candidate of [
  { id: 't-1', state: 'working' },
  { id: '', state: 'paused' },
]) {
  const ok = validateTask(candidate);
  console.log(ok ? 'own ajv: valid' : `own ajv: ${validateTask.errors!.map((error) => error.instancePath).join(' ')}`);
}
