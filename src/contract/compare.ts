// The whole comparison of a baseline contract with the current one: every schema file, the
// references that no longer lead anywhere, and the operations manifests. Findings come back
// sorted by file and pointer, each once.
import { compareManifests } from './compare-operations.js';
import { compareSchemas } from './compare-schema.js';
import { deriveDirections, directionAt, mergeDirections } from './directions.js';
import type { Finding } from './findings.js';
import type { Contract } from './load.js';
import { childPointer } from './pointer.js';
import { UNRESOLVED_PREFIX } from './refs.js';
import { verdictOf } from './rules.js';

export interface CompareOptions {
  /** How a schema file (relative to the schema folder) is named in findings. Default: as is. */
  readonly showSchema?: (file: string) => string;
  /** How a manifest file (relative to the manifest folder) is named in findings. Default: as is. */
  readonly showManifest?: (file: string) => string;
}

export function compareContracts(before: Contract, after: Contract, options: CompareOptions = {}): Finding[] {
  const showSchema = options.showSchema ?? ((file: string) => file);
  const showManifest = options.showManifest ?? ((file: string) => file);
  const directions = mergeDirections(deriveDirections(before), deriveDirections(after));
  const findings: Finding[] = [];
  const report = (finding: Finding) => findings.push(finding);
  for (const [file, schema] of before.schemas) {
    const shownFile = showSchema(file);
    if (!after.schemas.has(file)) {
      const direction = directionAt(directions, file, '');
      report({
        file: shownFile,
        pointer: '',
        rule: 'SCHEMA_REMOVED',
        verdict: verdictOf('SCHEMA_REMOVED', direction),
        direction,
        message: 'the schema file is gone',
      });
      continue;
    }
    compareSchemas({ before, after, schemaFile: file, shownFile, directions, report }, schema, after.schemas.get(file));
  }
  for (const [file, schema] of after.schemas) {
    for (const { pointer, ref } of unresolvedRefs(schema, '')) {
      const direction = directionAt(directions, file, pointer);
      report({
        file: showSchema(file),
        pointer,
        rule: 'UNJUDGED',
        verdict: 'unjudged',
        direction,
        message: `$ref "${ref}" cannot be resolved`,
      });
    }
  }
  compareManifests({ before, after, directions, showManifest, showSchema, report });
  // Plain code-unit order, so the output is the same whatever the machine's locale.
  const order = (a: string, b: string) => (a < b ? -1 : a > b ? 1 : 0);
  return unique(findings).sort((a, b) => order(a.file, b.file) || order(a.pointer, b.pointer) || order(a.rule, b.rule));
}

function* unresolvedRefs(node: unknown, pointer: string): Generator<{ pointer: string; ref: string }> {
  if (node === null || typeof node !== 'object') return;
  if (Array.isArray(node)) {
    for (const [i, item] of node.entries()) yield* unresolvedRefs(item, childPointer(pointer, i));
    return;
  }
  for (const [key, value] of Object.entries(node)) {
    if (key === '$ref' && typeof value === 'string' && value.startsWith(UNRESOLVED_PREFIX))
      yield { pointer: childPointer(pointer, key), ref: value.slice(1) };
    else if (!['enum', 'const', 'default', 'examples', 'example'].includes(key))
      yield* unresolvedRefs(value, childPointer(pointer, key));
  }
}

function unique(findings: readonly Finding[]): Finding[] {
  const seen = new Set<string>();
  return findings.filter((finding) => {
    const key = `${finding.file}\0${finding.pointer}\0${finding.rule}\0${finding.message}`;
    if (seen.has(key)) return false;
    seen.add(key);
    return true;
  });
}
