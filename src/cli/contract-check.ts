// `parley contract check`: loads the working tree's schemas and manifests and the baseline's,
// compares them (src/contract/), applies the accepted breaks and prints the outcome. Anything
// that keeps the comparison from running (a folder missing, a file that is not JSON, a baseline
// that is neither a directory nor a git ref) is a usage error, exit 2.
import { existsSync, readFileSync, statSync } from 'node:fs';
import { resolve } from 'node:path';
import { type AcceptedBreak, applyAcceptedBreaks, parseAcceptedBreaks } from '../contract/accepted-breaks.js';
import { compareContracts } from '../contract/compare.js';
import { type Contract, ContractLoadError, loadContract } from '../contract/load.js';
import { passes, renderJson, renderText } from '../contract/report.js';
import { directoryTree, gitTree, isGitRef, type SourceTree } from '../contract/trees.js';
import { type ContractPaths, PARLEY_LAYOUT } from './contract.js';
import { EXIT } from './output.js';
import { UsageError } from './usage-error.js';

export interface CheckOptions {
  readonly against: string | undefined;
  readonly accept: string | undefined;
  readonly strict: boolean;
  readonly json: boolean;
}

export async function runContractCheck(cwd: string, paths: ContractPaths, options: CheckOptions): Promise<number> {
  const against = options.against ?? (paths.parleyLayout ? PARLEY_LAYOUT.baseline : undefined);
  if (against === undefined) throw new UsageError('contract check: --against DIR|REF is required with --schemas');
  const baseline = baselineTree(cwd, against);
  const before = load(baseline, paths, true);
  const after = load(directoryTree(cwd, 'the working tree'), paths, false);
  const join = (folder: string | undefined) => (file: string) => (folder ? `${folder}/${file}` : file);
  const findings = compareContracts(before, after, { showSchema: join(paths.schemas), showManifest: join(paths.manifest) });
  const accepted = readAccepted(
    cwd,
    options.accept ?? (paths.parleyLayout ? PARLEY_LAYOUT.accepted : undefined),
    options.accept !== undefined,
  );
  const judged = applyAcceptedBreaks(findings, accepted);
  const outcome = { baseline: baseline.label, findings: judged.findings, unusedAccepted: judged.unused, strict: options.strict };
  process.stdout.write(options.json ? renderJson(outcome) : renderText(outcome));
  return passes(outcome) ? EXIT.ok : EXIT.failed;
}

function baselineTree(cwd: string, against: string): SourceTree {
  const path = resolve(cwd, against);
  if (existsSync(path) && statSync(path).isDirectory()) return directoryTree(path, against);
  if (isGitRef(cwd, against)) return gitTree(cwd, against);
  throw new UsageError(`contract check: --against ${against} is neither a directory nor a git ref here`, {
    code: 'unknown_baseline',
    against,
  });
}

function load(tree: SourceTree, paths: ContractPaths, isBaseline: boolean): Contract {
  try {
    return loadContract(tree, paths.schemas, paths.manifest, isBaseline);
  } catch (error) {
    if (error instanceof ContractLoadError)
      throw new UsageError(`contract check: ${error.message}`, { code: 'unreadable_contract' });
    throw error;
  }
}

/** The accepted breaks; a missing default file means none, a missing named one is an error. */
function readAccepted(cwd: string, file: string | undefined, named: boolean): AcceptedBreak[] {
  if (file === undefined) return [];
  const path = resolve(cwd, file);
  if (!existsSync(path)) {
    if (named) throw new UsageError(`contract check: --accept ${file} does not exist`, { code: 'unreadable_file', file });
    return [];
  }
  try {
    return parseAcceptedBreaks(readFileSync(path, 'utf8'));
  } catch (error) {
    throw new UsageError(`contract check: ${file}: ${error instanceof Error ? error.message : String(error)}`, {
      code: 'invalid_accepted_breaks',
      file,
    });
  }
}
