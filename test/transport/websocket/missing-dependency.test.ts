// Without the optional `ws` package the websocket transport fails with MissingDependencyError
// naming the package, and only when it is used. A child process runs with a resolve hook
// that makes `ws` unresolvable, the way a missing install looks to node.
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { pathToFileURL } from 'node:url';

const ROOT = new URL('../../../', import.meta.url);

describe('websocket transport without the ws package', () => {
  it('raises MissingDependencyError naming ws on start and on a call, while http still works', (t) => {
    const dir = mkdtempSync(join(tmpdir(), 'parley-no-ws-'));
    t.after(() => rmSync(dir, { recursive: true, force: true }));
    writeFileSync(
      join(dir, 'hide-ws.mjs'),
      `export async function resolve(specifier, context, next) {
        if (specifier === 'ws' || specifier.startsWith('ws/')) {
          const error = new Error("Cannot find package 'ws'");
          error.code = 'ERR_MODULE_NOT_FOUND';
          throw error;
        }
        return next(specifier, context);
      }\n`,
    );
    writeFileSync(
      join(dir, 'register.mjs'),
      `import { register } from 'node:module';\nregister(${JSON.stringify(pathToFileURL(join(dir, 'hide-ws.mjs')).href)});\n`,
    );
    const factory = new URL('src/transport/factory.ts', ROOT).href;
    writeFileSync(
      join(dir, 'main.mts'),
      `import { createTransport } from ${JSON.stringify(factory)};
      const report = (error) => ({ name: error.name, packageName: error.packageName, message: error.message });
      const out = {};
      const server = await createTransport('websocket', 'ws://127.0.0.1:0');
      try { await server.start(new Map()); out.start = 'started'; } catch (error) { out.start = report(error); }
      const client = await createTransport('websocket', 'ws://127.0.0.1:1');
      const spec = { method: 'GET', path: '/healthz', request: null, query: null, idempotent: false, controlPlane: false };
      try { await client.unary(spec, null); out.call = 'answered'; } catch (error) { out.call = report(error); }
      const http = await createTransport('http', 'http://127.0.0.1:0');
      await http.start(new Map());
      out.http = http.health().status;
      await http.stop();
      console.log(JSON.stringify(out));\n`,
    );
    const child = spawnSync(process.execPath, ['--import', 'tsx', '--import', join(dir, 'register.mjs'), join(dir, 'main.mts')], {
      cwd: new URL('.', ROOT).pathname,
      encoding: 'utf8',
    });
    assert.equal(child.status, 0, child.stderr);
    const out = JSON.parse(child.stdout.trim().split('\n').at(-1)!);
    for (const where of ['start', 'call']) {
      assert.equal(out[where].name, 'MissingDependencyError', `${where}: ${JSON.stringify(out[where])}`);
      assert.equal(out[where].packageName, 'ws');
      assert.match(out[where].message, /npm install ws/);
    }
    assert.equal(out.http, 'ready');
  });
});
