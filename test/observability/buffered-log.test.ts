// The buffered log destination of `parley serve` (observability/buffered-log.ts) loses no line
// however the process ends: an uncaught exception, process.exit(), or a loop that runs dry. The
// writer is a child process whose stdout is a pipe, as a log collector's would be.
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { test } from 'node:test';
import { fileURLToPath } from 'node:url';

const WRITER = fileURLToPath(new URL('./fixtures/buffered-log-writer.ts', import.meta.url));
const TSX = import.meta.resolve('tsx');

function writer(how: string, count: number): Promise<{ code: number | null; stdout: string; stderr: string }> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, ['--import', TSX, WRITER, how, String(count)], { stdio: ['ignore', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    child.stdout.setEncoding('utf8').on('data', (chunk: string) => (stdout += chunk));
    child.stderr.setEncoding('utf8').on('data', (chunk: string) => (stderr += chunk));
    child.on('error', reject);
    child.on('close', (code) => resolve({ code, stdout, stderr }));
  });
}

// Fewer lines than one batch (held until the end) and many batches' worth (several writes).
for (const count of [5, 3000]) {
  for (const [how, exitCode] of [
    ['throw', 1],
    ['exit', 3],
    ['return', 0],
  ] as const) {
    test(`${count} lines, then ${how}: every line reaches stdout, whole and in order`, { timeout: 60_000 }, async () => {
      const result = await writer(how, count);
      assert.equal(result.code, exitCode, result.stderr);
      if (how === 'throw') assert.match(result.stderr, /crash on purpose/);
      const lines = result.stdout.split('\n');
      assert.equal(lines.pop(), '', 'the output ends with a whole line');
      assert.deepEqual(
        lines.map((line) => (JSON.parse(line) as { n: number }).n),
        Array.from({ length: count }, (_, n) => n),
      );
    });
  }
}
