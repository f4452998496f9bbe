// Writes a baseline: the schema and manifest folders copied byte for byte under a directory, at
// the same relative paths, so that the directory can later stand in for the working tree (or a
// git ref) as what `contract check` compares against.
import { mkdirSync, rmSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import type { SourceTree } from './trees.js';

/**
 * Replaces `out/<folder>` with copies of every JSON file under each of `folders` of `tree`;
 * returns how many were written. Only those folders under `out` are removed first, never `out`.
 */
export function writeBaseline(tree: SourceTree, folders: readonly string[], out: string): number {
  for (const folder of folders) rmSync(join(out, folder), { recursive: true, force: true });
  let written = 0;
  for (const folder of folders) {
    for (const file of tree.listJson(folder)) {
      const path = folder === '' ? file : `${folder}/${file}`;
      mkdirSync(dirname(join(out, path)), { recursive: true });
      writeFileSync(join(out, path), tree.read(path));
      written += 1;
    }
  }
  return written;
}
