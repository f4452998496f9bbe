// Every error class the package entry exports is listed in docs/errors.md, and every class listed
// there (unless its row says "not exported") is still exported: a new error class cannot ship
// without its row, the way fastify's `expectedErrors` test guards its error codes.
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'node:test';
import * as entry from '../src/index.js';

const doc = readFileSync(join(import.meta.dirname, '..', 'docs', 'errors.md'), 'utf8');

// The class names in the column headed "class" or "parley class" of every table (the spec's table
// names the spec kind first, and that column is not a class).
function documentedClasses(): { exported: Set<string>; notExported: Set<string> } {
  const exported = new Set<string>();
  const notExported = new Set<string>();
  let classColumn = -1;
  for (const line of doc.split('\n')) {
    if (!line.startsWith('|')) {
      classColumn = -1;
      continue;
    }
    const cells = line.split('|').map((cell) => cell.trim());
    const header = cells.findIndex((cell) => cell === 'class' || cell === 'parley class');
    if (header >= 0) {
      classColumn = header;
      continue;
    }
    if (classColumn < 0) continue;
    const outside = line.includes('not exported');
    for (const [, name] of (cells[classColumn] ?? '').matchAll(/`([A-Z][A-Za-z0-9]*Error)`/g)) {
      (outside ? notExported : exported).add(name!);
    }
  }
  return { exported, notExported };
}

function exportedClasses(): string[] {
  return Object.entries(entry)
    .filter(([, value]) => typeof value === 'function' && value.prototype instanceof Error)
    .map(([name]) => name)
    .sort();
}

test('every error class the package exports has a row in docs/errors.md', () => {
  const { exported } = documentedClasses();
  const missing = exportedClasses().filter((name) => !exported.has(name));
  assert.deepEqual(missing, [], `add a row to docs/errors.md for: ${missing.join(', ')}`);
});

test('every class docs/errors.md lists as exported is exported', () => {
  const actual = new Set(exportedClasses());
  const gone = [...documentedClasses().exported].filter((name) => !actual.has(name)).sort();
  assert.deepEqual(gone, [], `docs/errors.md lists classes the package no longer exports: ${gone.join(', ')}`);
});

test('the count of exported error classes is the documented one', () => {
  // Raise this number together with a new row in docs/errors.md.
  assert.equal(exportedClasses().length, 21);
});
