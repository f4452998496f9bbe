// Without the optional @connectrpc packages, the grpc transport (and only it) fails with
// MissingDependencyError naming the package. Runs in a child process whose module resolution
// hides the packages, so this process keeps its own.
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { it } from 'node:test';

it('grpc without @connectrpc installed: MissingDependencyError naming the package', () => {
  const script = fileURLToPath(new URL('./fixtures/without-connect.ts', import.meta.url));
  const child = spawnSync(process.execPath, ['--import', 'tsx', script], { encoding: 'utf8' });
  assert.equal(child.status, 0, child.stderr);
  const result = JSON.parse(child.stdout.trim().split('\n').at(-1)!);
  for (const side of ['server', 'client'] as const) {
    assert.equal(result[side].ok, false);
    assert.equal(result[side].name, 'MissingDependencyError');
    assert.equal(result[side].packageName, '@connectrpc/connect');
    assert.match(result[side].message, /npm install @connectrpc\/connect/);
  }
  assert.equal(result.http.ok, true);
});
