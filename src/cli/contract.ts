// `parley contract check|release`: the breaking-change gate for JSON Schemas and operations
// manifests (src/contract/). `check` compares the working tree with a baseline (a directory or
// a git ref); `release` writes the baseline. Without --schemas both use parley's own layout
// (schemas/native, schemas/operations, contract/), so `npm run contract:check` needs no flags.
import { existsSync, statSync } from 'node:fs';
import { isAbsolute, relative, resolve, sep } from 'node:path';
import { parseCommandArgs } from './args.js';
import { UsageError } from './usage-error.js';

export const CONTRACT_USAGE = `Usage: parley contract check [--schemas DIR] [--manifest DIR] [--against DIR|REF]
                             [--accept FILE] [--strict] [--json]
       parley contract release [--schemas DIR] [--manifest DIR] [--out DIR] [--skip-proto]

check compares the JSON Schemas under --schemas (and the operations manifests under
--manifest) with a baseline and prints every breaking change, one line each:
file:pointer: RULE: what changed. A schema's direction (request, answer or both) comes
from the manifests and decides which changes break; docs/codegen.md has the rules.

The baseline (--against) is a directory holding the same relative paths, or a git ref
of this repository (read with git, no checkout). Without --schemas, parley's layout is
used: schemas/native, schemas/operations, against contract/released-schemas, with
deliberate breaks declared in contract/accepted-breaks.json.

release copies the schemas and manifests to --out (default contract/released-schemas)
and, when buf.yaml is present and --skip-proto is not given, writes the proto image
contract/released.binpb with buf build. It also empties contract/accepted-breaks.json.

Options:
  --schemas DIR       folder of JSON Schema files (.json, read recursively)
  --manifest DIR      folder of operations manifests (JSON files with "operations")
  --against BASE      baseline: a directory or a git ref (check only)
  --accept FILE       reviewed list of accepted breaks (check only)
  --strict            warnings fail the check too
  --json              print one JSON document (check only)
  --out DIR           where release writes the baseline copy
  --skip-proto        release: do not write the proto image
  -h, --help          show this help

Exit status: 0 compatible (or released), 1 breaking or unjudged changes (or buf failed),
2 the command was wrong (bad option, unreadable folder, baseline not found).
`;

export interface ContractPaths {
  /** The schema folder, relative to the working directory in / form (empty for the directory itself). */
  readonly schemas: string;
  readonly manifest: string | undefined;
  /** Whether parley's own layout applies (no --schemas given). */
  readonly parleyLayout: boolean;
}

export const PARLEY_LAYOUT = {
  schemas: 'schemas/native',
  manifest: 'schemas/operations',
  baseline: 'contract/released-schemas',
  accepted: 'contract/accepted-breaks.json',
  protoImage: 'contract/released.binpb',
} as const;

export async function runContract(args: string[]): Promise<number> {
  const [verb, ...rest] = args;
  if (verb === '--help' || verb === '-h') {
    process.stdout.write(CONTRACT_USAGE);
    return 0;
  }
  if (verb === undefined || verb.startsWith('-'))
    throw new UsageError('contract: name the action first: parley contract check, or parley contract release');
  if (verb !== 'check' && verb !== 'release') throw new UsageError(`contract: unknown action "${verb}"; use check or release`);
  const { options } = parseCommandArgs(`contract ${verb}`, rest, {
    schemas: { type: 'string' },
    manifest: { type: 'string' },
    against: { type: 'string' },
    accept: { type: 'string' },
    strict: { type: 'boolean' },
    json: { type: 'boolean' },
    out: { type: 'string' },
    'skip-proto': { type: 'boolean' },
    help: { type: 'boolean', short: 'h' },
  });
  if (options.help) {
    process.stdout.write(CONTRACT_USAGE);
    return 0;
  }
  const cwd = process.cwd();
  const paths = contractPaths(cwd, options.schemas, options.manifest);
  if (verb === 'check') {
    for (const name of ['out', 'skip-proto'])
      if (options[name] !== undefined) throw new UsageError(`contract check: --${name} is an option of release`);
    const { runContractCheck } = await import('./contract-check.js');
    return runContractCheck(cwd, paths, {
      against: stringOption(options.against),
      accept: stringOption(options.accept),
      strict: options.strict === true,
      json: options.json === true,
    });
  }
  for (const name of ['against', 'accept', 'strict', 'json'])
    if (options[name] !== undefined) throw new UsageError(`contract release: --${name} is an option of check`);
  const { runContractRelease } = await import('./contract-release.js');
  return runContractRelease(cwd, paths, { out: stringOption(options.out), skipProto: options['skip-proto'] === true });
}

function contractPaths(
  cwd: string,
  schemas: string | boolean | undefined,
  manifest: string | boolean | undefined,
): ContractPaths {
  if (schemas === undefined) {
    const ownManifest = manifest ?? (isFolder(resolve(cwd, PARLEY_LAYOUT.manifest)) ? PARLEY_LAYOUT.manifest : undefined);
    return {
      schemas: PARLEY_LAYOUT.schemas,
      manifest: ownManifest === undefined ? undefined : inside(cwd, String(ownManifest), '--manifest'),
      parleyLayout: true,
    };
  }
  return {
    schemas: inside(cwd, String(schemas), '--schemas'),
    manifest: manifest === undefined ? undefined : inside(cwd, String(manifest), '--manifest'),
    parleyLayout: false,
  };
}

/** A folder given on the command line, as a path relative to the working directory; it must lie inside it. */
function inside(cwd: string, path: string, option: string): string {
  const rel = relative(cwd, resolve(cwd, path));
  if (rel.split(sep)[0] === '..' || isAbsolute(rel)) {
    throw new UsageError(
      `contract: ${option} ${path} must be inside the working directory (the baseline holds the same relative paths)`,
    );
  }
  return rel.split(sep).join('/');
}

function isFolder(path: string): boolean {
  return existsSync(path) && statSync(path).isDirectory();
}

function stringOption(value: string | boolean | undefined): string | undefined {
  return typeof value === 'string' ? value : undefined;
}
