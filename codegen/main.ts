// `npm run codegen` rewrites generated/ from schemas/ and proto/; `npm run codegen:check`
// builds the same tree in memory and fails, naming the files, when generated/ differs.
import { execFileSync } from 'node:child_process';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { generatedBanner, OutputTree, stableJson } from './output-tree.js';
import { catalogEntry, loadSchemaDirectory, nativeSchemaDir } from './schema-catalog.js';
import { emitTypeModules } from './emit-types.js';
import { emitValidatorModule } from './emit-validators.js';
import { emitValidatorIndex, VALIDATION_RESULT_MODULE } from './emit-validator-index.js';
import { emitErrorStatusModule, ERROR_STATUS_MODULE } from './emit-error-status.js';
import { CONFIG_SCHEMA_FILE, emitConfigSchema } from './emit-config-schema.js';
import { CONFIG_MODULE_PATH, emitConfigModule } from './emit-config-module.js';
import { loadManifests } from './operations-manifest.js';
import { emitOperationFiles, OPERATION_SPEC_MODULE } from './emit-operations.js';
import { emitOpenApi } from './emit-openapi.js';

const ROOT = join(dirname(fileURLToPath(import.meta.url)), '..');
const OWNED = ['generated'];

export async function buildTree(root: string): Promise<OutputTree> {
  const tree = new OutputTree();
  const { version } = JSON.parse(await readFile(join(root, 'package.json'), 'utf8')) as { version: string };

  // 1. protobuf-es code and the A2A JSON Schemas, from buf with local plugins only.
  const scratch = await mkdtemp(join(tmpdir(), 'parley-codegen-'));
  try {
    const buf = join(root, 'node_modules', '.bin', 'buf');
    execFileSync(buf, ['generate', '--output', scratch], { cwd: root, stdio: ['ignore', 'ignore', 'inherit'] });
    await tree.addDirectory(join(scratch, 'generated'), 'generated');
  } finally {
    await rm(scratch, { recursive: true, force: true });
  }

  // 2. Native schemas, plus the configuration schema generated from TypeScript.
  const configSchema = emitConfigSchema(root);
  tree.add(`generated/schemas/native/${CONFIG_SCHEMA_FILE}`, stableJson(configSchema));
  tree.add(CONFIG_MODULE_PATH, emitConfigModule(configSchema));
  const native = [
    ...(await loadSchemaDirectory(nativeSchemaDir(root))),
    catalogEntry(configSchema, CONFIG_SCHEMA_FILE, '', 'schemas/config/transport-config.ts'),
  ].sort((a, b) => a.name.localeCompare(b.name));
  const a2a = [...tree.files]
    .filter(([path]) => path.startsWith('generated/schemas/a2a/') && path.endsWith('.schema.json'))
    .map(([path, content]) => catalogEntry(JSON.parse(content), path.split('/').pop()!, 'a2a:'))
    .sort((a, b) => a.name.localeCompare(b.name));

  // 3. Types, the error status map, standalone validators.
  for (const module of emitTypeModules(native, 'generated/types')) tree.add(module.path, module.content);
  tree.add(ERROR_STATUS_MODULE, emitErrorStatusModule(native));
  tree.add('generated/validators/native.ts', emitValidatorModule(native, 'schemas/native/ and schemas/config/'));
  tree.add('generated/validators/a2a.ts', emitValidatorModule(a2a, 'proto/lf/a2a/v1/a2a.proto (through generated/schemas/a2a/)'));
  tree.add('generated/validators/result.ts', VALIDATION_RESULT_MODULE);
  tree.add('generated/validators/index.ts', emitValidatorIndex(native, a2a));

  // 4. Operation tables, handler interfaces, typed clients.
  tree.add('generated/operations/spec.ts', OPERATION_SPEC_MODULE);
  const services: string[] = [];
  for (const manifest of await loadManifests(root)) {
    const files = emitOperationFiles(manifest, native);
    tree.add(`generated/operations/${manifest.service}.ts`, files.operations);
    tree.add(`generated/handlers/${manifest.service}.ts`, files.handlers);
    tree.add(`generated/clients/${manifest.service}.ts`, files.client);
    const openapi = emitOpenApi(manifest, native, version);
    tree.add(`generated/openapi/${manifest.service}.openapi.json`, stableJson(openapi));
    tree.add(
      `generated/openapi/${manifest.service}.ts`,
      `${generatedBanner('codegen/emit-openapi.ts', `schemas/operations/${manifest.service}.json`)}\n` +
        `/** The OpenAPI 3.1 document of the native ${manifest.service} HTTP API (also in ${manifest.service}.openapi.json). */\n` +
        `export const ${manifest.service}OpenApi = ${stableJson(openapi).trimEnd()} as const;\n`,
    );
    services.push(manifest.service);
  }
  const reexport = () =>
    `${generatedBanner('codegen/main.ts', 'schemas/operations/')}\n${services.map((s) => `export * from './${s}.js';`).join('\n')}\n`;
  tree.add('generated/operations/index.ts', `${reexport()}export * from './spec.js';\n`);
  tree.add('generated/handlers/index.ts', reexport());
  tree.add('generated/clients/index.ts', reexport());
  return tree;
}

async function main(): Promise<void> {
  const check = process.argv.includes('--check');
  const started = performance.now();
  const tree = await buildTree(ROOT);
  if (check) {
    const problems = await tree.diff(ROOT, OWNED);
    if (problems.length > 0) {
      console.error(`generated/ is stale; run \`npm run codegen\`:\n  ${problems.join('\n  ')}`);
      process.exit(1);
    }
    console.log(`generated/ is up to date (${tree.files.size} files)`);
  } else {
    await tree.write(ROOT, OWNED);
    const ms = performance.now() - started;
    console.log(`codegen wrote ${tree.files.size} files to generated/ in ${ms.toFixed(0)} ms`);
  }
}

if (process.argv[1] && fileURLToPath(import.meta.url) === process.argv[1]) {
  main().catch((error: unknown) => {
    console.error(error instanceof Error ? error.message : error);
    process.exit(1);
  });
}
