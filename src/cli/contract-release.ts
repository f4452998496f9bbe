// `parley contract release`: records the current contract as the baseline `contract check`
// compares with. The JSON side is a copy of the schema and manifest folders; the proto side,
// where the repository has a buf.yaml, is the image `buf build` writes (the one `buf breaking`
// reads). The accepted breaks belonged to the previous baseline, so their file is emptied.
import { spawnSync } from 'node:child_process';
import { existsSync, writeFileSync } from 'node:fs';
import { isAbsolute, join, relative, resolve } from 'node:path';
import { ContractLoadError, loadContract } from '../contract/load.js';
import { writeBaseline } from '../contract/release.js';
import { directoryTree } from '../contract/trees.js';
import { type ContractPaths, PARLEY_LAYOUT } from './contract.js';
import { EXIT } from './output.js';
import { UsageError } from './usage-error.js';

export interface ReleaseOptions {
  readonly out: string | undefined;
  readonly skipProto: boolean;
}

export async function runContractRelease(cwd: string, paths: ContractPaths, options: ReleaseOptions): Promise<number> {
  const tree = directoryTree(cwd, 'the working tree');
  try {
    // Read it all first, so a malformed file stops the release before anything is replaced.
    loadContract(tree, paths.schemas, paths.manifest);
  } catch (error) {
    if (error instanceof ContractLoadError)
      throw new UsageError(`contract release: ${error.message}`, { code: 'unreadable_contract' });
    throw error;
  }
  const out = options.out ?? PARLEY_LAYOUT.baseline;
  const folders = paths.manifest === undefined ? [paths.schemas] : [paths.schemas, paths.manifest];
  refuseOverlap(cwd, out, folders);
  const count = writeBaseline(tree, folders, resolve(cwd, out));
  process.stdout.write(`wrote ${count} files of ${folders.join(' and ')} to ${out}\n`);
  if (paths.parleyLayout && existsSync(resolve(cwd, PARLEY_LAYOUT.accepted))) {
    writeFileSync(resolve(cwd, PARLEY_LAYOUT.accepted), `${JSON.stringify({ accepted: [] }, null, 2)}\n`);
    process.stdout.write(`emptied ${PARLEY_LAYOUT.accepted}\n`);
  }
  if (options.skipProto || !existsSync(join(cwd, 'buf.yaml'))) return EXIT.ok;
  return writeProtoImage(cwd);
}

/** Runs `buf build -o contract/released.binpb`, with the buf of the project's node_modules when there is one. */
function writeProtoImage(cwd: string): number {
  const local = join(cwd, 'node_modules', '.bin', 'buf');
  const buf = existsSync(local) ? local : 'buf';
  const run = spawnSync(buf, ['build', '-o', PARLEY_LAYOUT.protoImage], { cwd, stdio: ['ignore', 'inherit', 'inherit'] });
  if (run.error || run.status !== 0) {
    process.stderr.write(
      `parley: contract release: buf build failed${run.error ? `: ${run.error.message}` : ''}; the proto image was not written (use --skip-proto to release the schemas alone)\n`,
    );
    return EXIT.failed;
  }
  process.stdout.write(`wrote ${PARLEY_LAYOUT.protoImage}\n`);
  return EXIT.ok;
}

/** The copy must not land on or inside what it copies (`--out .` would replace the sources with themselves, emptied first). */
function refuseOverlap(cwd: string, out: string, folders: readonly string[]): void {
  for (const folder of folders) {
    const source = resolve(cwd, folder);
    for (const target of folders.map((f) => resolve(cwd, out, f))) {
      const inside = (a: string, b: string) => {
        const rel = relative(a, b);
        return rel === '' || (!rel.startsWith('..') && !isAbsolute(rel));
      };
      if (inside(source, target) || inside(target, source)) {
        throw new UsageError(`contract release: --out ${out} would write over ${folder}; choose a folder apart from the sources`);
      }
    }
  }
}
