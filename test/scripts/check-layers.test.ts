// The layer check (scripts/check-layers.mjs) run on tiny source trees written to a temp folder:
// a circle between folders and an import that runs back up fail it, naming the file import; an
// import down the layers, and a back edge with a row in layout.md's table, pass.
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { test } from 'node:test';

const script = join(import.meta.dirname, '..', '..', 'scripts', 'check-layers.mjs');

function layout(allowedRows: string[]): string {
  return [
    '# Where things are',
    '',
    '## Layers',
    '',
    '1. `core`',
    '2. `auth`, `tls`',
    '3. `transport`',
    '4. `agent`',
    '',
    '### Imports that run back up, and why',
    '',
    '| from | to | why |',
    '|---|---|---|',
    ...allowedRows,
    '',
    '## `src/`',
    '',
  ].join('\n');
}

function runOn(files: Record<string, string>, allowedRows: string[] = []) {
  const root = mkdtempSync(join(tmpdir(), 'layers-'));
  try {
    const all = { 'docs/layout.md': layout(allowedRows), ...files };
    for (const [path, text] of Object.entries(all)) {
      mkdirSync(dirname(join(root, path)), { recursive: true });
      writeFileSync(join(root, path), text);
    }
    const run = spawnSync(process.execPath, [script, '--root', root, '--no-count'], { encoding: 'utf8' });
    return { status: run.status, out: run.stdout + run.stderr };
  } finally {
    rmSync(root, { recursive: true, force: true });
  }
}

test('imports that point down the layers, between peers, and from the entry pass', () => {
  const run = runOn({
    'src/core/ids.ts': 'export const id = 1;\n',
    'src/auth/key.ts': "import { id } from '../core/ids.js';\nexport const key = id;\n",
    'src/tls/settings.ts': "import type { key } from '../auth/key.js';\nexport type K = typeof key;\n",
    'src/transport/pipe.ts': "export async function load() { return import('../core/ids.js'); }\n",
    'src/agent/server.ts': "export { load } from '../transport/pipe.js';\n",
    'src/index.ts': "export * from './agent/server.js';\nexport * from './core/ids.js';\n",
  });
  assert.equal(run.status, 0, run.out);
  assert.match(run.out, /0 folder circle\(s\), 0 back edge\(s\)/);
});

test('an import that runs back up fails and names the file import', () => {
  const run = runOn({
    'src/core/ids.ts': "import type { Pipe } from '../transport/pipe.js';\nexport type Id = Pipe;\n",
    'src/transport/pipe.ts': 'export type Pipe = string;\n',
  });
  assert.equal(run.status, 1);
  assert.match(run.out, /back edge core → transport: src\/core\/ids\.ts → src\/transport\/pipe\.ts/);
  assert.match(run.out, /1 back edge\(s\)/);
});

test('a dynamic import that runs back up is caught too', () => {
  const run = runOn({
    'src/core/ids.ts': "export const later = () => import('../agent/server.js');\n",
    'src/agent/server.ts': 'export const server = 1;\n',
  });
  assert.equal(run.status, 1);
  assert.match(run.out, /back edge core → agent: src\/core\/ids\.ts → src\/agent\/server\.ts/);
});

test('a circle between two folders fails, even between peers on one layer', () => {
  const run = runOn({
    'src/auth/key.ts': "import { tls } from '../tls/settings.js';\nexport const key = tls;\n",
    'src/tls/settings.ts': "import { key } from '../auth/key.js';\nexport const tls = 1;\nexport const k = key;\n",
  });
  assert.equal(run.status, 1);
  assert.match(run.out, /folder circle auth ↔ tls/);
  assert.match(run.out, /src\/auth\/key\.ts → src\/tls\/settings\.ts/);
  assert.match(run.out, /src\/tls\/settings\.ts → src\/auth\/key\.ts/);
  assert.match(run.out, /1 folder circle\(s\)/);
});

test('a back edge listed in the table of layout.md passes', () => {
  const run = runOn(
    {
      'src/transport/pipe.ts': "import type { Server } from '../agent/server.js';\nexport type P = Server;\n",
      'src/agent/server.ts': 'export type Server = number;\n',
    },
    ['| `transport` | `agent` | a reason written here |'],
  );
  assert.equal(run.status, 0, run.out);
  assert.match(run.out, /1 allowed back edge\(s\)/);
});

test('a folder missing from the layer list fails', () => {
  const run = runOn({ 'src/extra/thing.ts': 'export const thing = 1;\n' });
  assert.equal(run.status, 1);
  assert.match(run.out, /src\/extra\/ is not in the layer list/);
});

test('a folder that imports the package entry fails', () => {
  const run = runOn({
    'src/index.ts': 'export const x = 1;\n',
    'src/core/ids.ts': "import { x } from '../index.js';\nexport const y = x;\n",
  });
  assert.equal(run.status, 1);
  assert.match(run.out, /entry import: src\/core\/ids\.ts → src\/index\.ts/);
});
