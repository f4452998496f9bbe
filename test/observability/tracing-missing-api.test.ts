// Tracing's one package is optional: without @opentelemetry/api installed, everything with
// tracing off works as ever, and switching it on fails with MissingDependencyError naming the
// package. Runs in a child process whose module resolution hides the package.
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { test } from 'node:test';

test('without @opentelemetry/api: tracing off works, tracing on is a MissingDependencyError naming it', () => {
  const script = fileURLToPath(new URL('./fixtures/without-opentelemetry.ts', import.meta.url));
  const child = spawnSync(process.execPath, ['--import', 'tsx', script], { encoding: 'utf8' });
  assert.equal(child.status, 0, child.stderr);
  const result = JSON.parse(child.stdout.trim().split('\n').at(-1)!);
  assert.equal(result.untraced.ok, true, result.untraced.message);
  for (const side of ['server', 'call']) {
    assert.equal(result[side].ok, false, side);
    assert.equal(result[side].name, 'MissingDependencyError');
    assert.equal(result[side].packageName, '@opentelemetry/api');
    assert.ok(result[side].message.includes('npm install @opentelemetry/api'), result[side].message);
  }
});
