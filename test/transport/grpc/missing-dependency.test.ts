// Without its optional package, the grpc transport (and only it) fails with
// MissingDependencyError naming @grpc/grpc-js, on the server side and on the client side. Runs in a child process whose module resolution hides the packages, so this
// process keeps its own.
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { it } from 'node:test';

it('grpc without @grpc/grpc-js installed: MissingDependencyError naming it, server and client', () => {
  const script = fileURLToPath(new URL('./fixtures/without-grpc-packages.ts', import.meta.url));
  const child = spawnSync(process.execPath, ['--import', 'tsx', script], { encoding: 'utf8' });
  assert.equal(child.status, 0, child.stderr);
  const result = JSON.parse(child.stdout.trim().split('\n').at(-1)!);
  const packageName = '@grpc/grpc-js';
  for (const side of ['server', 'client'] as const) {
    assert.equal(result[side].ok, false);
    assert.equal(result[side].name, 'MissingDependencyError');
    assert.equal(result[side].packageName, packageName);
    assert.ok(result[side].message.includes(`npm install ${packageName}`), result[side].message);
  }
  assert.equal(result.http.ok, true);
});
