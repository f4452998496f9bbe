// `buf breaking` against the released contract (contract/released.binpb) is part of npm test.
// These rows show it passes on the protos as they are, and fails, naming the rule, when a copy
// of them changes the wire in a way a deployed peer would notice.
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { cpSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, describe, it } from 'node:test';

const ROOT = join(import.meta.dirname, '..', '..');
const BUF = join(ROOT, 'node_modules', '.bin', 'buf');
const AGAINST = join(ROOT, 'contract', 'released.binpb');
const TRANSPORT = join('svc', 'transport', 'v1', 'transport.proto');

function breaking(protoDir: string) {
  const result = spawnSync(BUF, ['breaking', protoDir, '--against', AGAINST], { encoding: 'utf8' });
  return { code: result.status, output: `${result.stdout}${result.stderr}` };
}

describe('buf breaking against the released contract', () => {
  const dirs: string[] = [];
  after(() => dirs.forEach((dir) => rmSync(dir, { recursive: true, force: true })));
  const copy = (edit: (text: string) => string) => {
    const dir = mkdtempSync(join(tmpdir(), 'parley-breaking-'));
    dirs.push(dir);
    cpSync(join(ROOT, 'proto'), dir, { recursive: true });
    const file = join(dir, TRANSPORT);
    const before = readFileSync(file, 'utf8');
    const changed = edit(before);
    assert.notEqual(changed, before, 'the edit applies');
    writeFileSync(file, changed);
    return dir;
  };

  it('the protos as they are do not break the contract', () => {
    const result = breaking(join(ROOT, 'proto'));
    assert.equal(result.code, 0, result.output);
  });

  for (const [name, edit, rule] of [
    [
      'a field renumbered',
      (text: string) => text.replace(/(string id = )1;/, '$199;'),
      /FIELD_SAME_NUMBER|FIELD_NO_DELETE|deleted/i,
    ],
    [
      'an RPC removed',
      (text: string) => text.replace(/\n\s*rpc Stream\([^)]*\) returns \(stream [^)]*\);/, ''),
      /RPC_NO_DELETE|deleted/i,
    ],
    [
      'the package renamed',
      (text: string) => text.replace('package svc.transport.v1;', 'package svc.transport.v9;'),
      /PACKAGE|FILE_SAME_PACKAGE|deleted/i,
    ],
  ] as const) {
    it(`${name} fails the build with buf's message`, () => {
      const result = breaking(copy(edit));
      assert.notEqual(result.code, 0, result.output);
      assert.match(result.output, rule);
    });
  }
});
