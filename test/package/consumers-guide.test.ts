// docs/consumers.md quotes every example the pack-and-consume test compiles and runs: each
// `<!-- example: FILE -->` marker is followed by a code block that must equal
// test/package/consumer/examples/FILE, and every file there must be quoted once. The files are
// the one source of truth; this keeps the guide from drifting away from what is tested.
import assert from 'node:assert/strict';
import { readdirSync, readFileSync } from 'node:fs';
import { test } from 'node:test';
import { fileURLToPath } from 'node:url';

const GUIDE = fileURLToPath(new URL('../../docs/consumers.md', import.meta.url));
const EXAMPLES = fileURLToPath(new URL('./consumer/examples/', import.meta.url));

/** The quoted blocks of the guide by file name: the marker, then a fenced block. */
function quotedBlocks(guide: string): Map<string, string> {
  const blocks = new Map<string, string>();
  const marker = /<!-- example: ([\w.-]+) -->\n```\w*\n([\s\S]*?)```\n/g;
  for (const [, file, code] of guide.matchAll(marker)) {
    assert.ok(!blocks.has(file!), `${file} is quoted twice`);
    blocks.set(file!, code!);
  }
  return blocks;
}

test('every example file is quoted in docs/consumers.md exactly as it is', () => {
  const guide = readFileSync(GUIDE, 'utf8');
  const blocks = quotedBlocks(guide);
  const markers = [...guide.matchAll(/<!-- example: ([\w.-]+) -->/g)].map((match) => match[1]);
  assert.deepEqual(markers.sort(), [...blocks.keys()].sort(), 'a marker without a code block right after it');
  const files = readdirSync(EXAMPLES).sort();
  assert.deepEqual([...blocks.keys()].sort(), files);
  for (const file of files) {
    assert.equal(
      blocks.get(file),
      readFileSync(`${EXAMPLES}${file}`, 'utf8'),
      `docs/consumers.md quotes ${file} differently: run node scripts/quote-consumer-examples.mjs`,
    );
  }
});
