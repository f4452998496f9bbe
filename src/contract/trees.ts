// Where a contract is read from: a directory on disk, or a commit of the git repository the
// command runs in (read with `git ls-tree` and `git show`, so no network and no checkout). Both
// answer the same two questions with paths relative to their root, in `/` form.
import { execFileSync } from 'node:child_process';
import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';

export interface SourceTree {
  /** How the tree is named in messages: a directory, or `git:REF`. */
  readonly label: string;
  /** Whether `dir` (`` for the root) exists in the tree as a folder. */
  hasFolder(dir: string): boolean;
  /** Every `.json` file under `dir`, recursively, sorted, relative to `dir`. */
  listJson(dir: string): string[];
  read(path: string): string;
}

export function directoryTree(root: string, label = root): SourceTree {
  return {
    label,
    hasFolder: (dir) => existsSync(join(root, dir)) && statSync(join(root, dir)).isDirectory(),
    listJson(dir) {
      const found: string[] = [];
      const walk = (relative: string) => {
        for (const entry of readdirSync(join(root, dir, relative), { withFileTypes: true })) {
          const path = relative === '' ? entry.name : `${relative}/${entry.name}`;
          if (entry.isDirectory()) walk(path);
          else if (entry.name.endsWith('.json')) found.push(path);
        }
      };
      walk('');
      return found.sort();
    },
    read: (path) => readFileSync(join(root, path), 'utf8'),
  };
}

/** Whether `ref` names a commit in the repository at `cwd`. */
export function isGitRef(cwd: string, ref: string): boolean {
  if (ref.startsWith('-')) return false;
  try {
    execFileSync('git', ['rev-parse', '--verify', '--quiet', `${ref}^{commit}`], { cwd, stdio: ['ignore', 'pipe', 'ignore'] });
    return true;
  } catch {
    return false;
  }
}

/** The tree of commit `ref`, with paths relative to `cwd` (as `git show REF:./path` reads them). */
export function gitTree(cwd: string, ref: string): SourceTree {
  const git = (args: string[]) => execFileSync('git', args, { cwd, encoding: 'utf8', maxBuffer: 64 * 1024 * 1024 });
  const files = (dir: string) =>
    git(['ls-tree', '-r', '-z', '--name-only', ref, '--', dir === '' ? '.' : `${dir}/`])
      .split('\0')
      .filter((line) => line !== '');
  return {
    label: `git:${ref}`,
    hasFolder: (dir) => files(dir).length > 0,
    listJson: (dir) =>
      files(dir)
        .filter((path) => path.endsWith('.json'))
        .map((path) => (dir === '' ? path : path.slice(dir.length + 1)))
        .sort(),
    read: (path) => git(['show', `${ref}:./${path}`]),
  };
}
