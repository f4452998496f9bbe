// Compares the operations manifests: each operation by its `name`, and each manifest's fixed
// `statusTexts`. An operation that now names a different schema for its request, query or
// answer has the two schemas compared in that direction.
import type { Directions } from './directions.js';
import { schemaFileOf } from './directions.js';
import type { Finding } from './findings.js';
import type { Contract } from './load.js';
import { childPointer } from './pointer.js';
import { type RuleName, verdictOf } from './rules.js';
import { compareSchemas } from './compare-schema.js';

type Record_ = Readonly<Record<string, unknown>>;

export interface OperationsComparison {
  readonly before: Contract;
  readonly after: Contract;
  readonly directions: Directions;
  /** A manifest's path as findings name it. */
  readonly showManifest: (file: string) => string;
  /** A schema's path as findings name it. */
  readonly showSchema: (file: string) => string;
  readonly report: (finding: Finding) => void;
}

const FIELD_RULES: ReadonlyArray<[string, RuleName]> = [
  ['method', 'OPERATION_METHOD_CHANGED'],
  ['path', 'OPERATION_PATH_CHANGED'],
  ['status', 'OPERATION_STATUS_CHANGED'],
  ['responseContentType', 'OPERATION_CONTENT_TYPE_CHANGED'],
  ['streaming', 'OPERATION_STREAMING_CHANGED'],
];

export function compareManifests(c: OperationsComparison): void {
  reportUnknownSchemaNames(c);
  for (const [file, before] of c.before.manifests) {
    const shown = c.showManifest(file);
    const emit = (rule: RuleName, pointer: string, message: string) =>
      c.report({ file: shown, pointer, rule, verdict: verdictOf(rule, 'both'), direction: 'both', message });
    const after = c.after.manifests.get(file);
    if (after === undefined) {
      emit('MANIFEST_REMOVED', '', 'the manifest is gone');
      continue;
    }
    compareStatusTexts(before, after, emit);
    const operations = (manifest: Record_) =>
      (manifest.operations as unknown[]).filter((op): op is Record_ => op !== null && typeof op === 'object');
    const now = operations(after);
    operations(before).forEach((operation, index) => {
      const next = now.find((candidate) => candidate.name === operation.name);
      const at = childPointer('/operations', index);
      const name = JSON.stringify(operation.name);
      if (next === undefined) {
        emit('OPERATION_REMOVED', at, `operation ${name} (${operation.method} ${operation.path}) removed`);
        return;
      }
      const nextAt = childPointer('/operations', now.indexOf(next));
      for (const [field, rule] of FIELD_RULES) {
        if (operation[field] !== next[field]) {
          emit(
            rule,
            childPointer(nextAt, field),
            `operation ${name}: ${field} ${JSON.stringify(operation[field])} became ${JSON.stringify(next[field])}`,
          );
        }
      }
      if (operation.public === true && next.public === false)
        emit('OPERATION_NOW_PROTECTED', childPointer(nextAt, 'public'), `operation ${name} now needs credentials`);
      compareShapes(c, operation, next, nextAt, emit);
    });
  }
}

function compareStatusTexts(
  before: Record_,
  after: Record_,
  emit: (rule: RuleName, pointer: string, message: string) => void,
): void {
  const was = (before.statusTexts ?? {}) as Record_;
  const now = (after.statusTexts ?? {}) as Record_;
  for (const [key, text] of Object.entries(was)) {
    const at = childPointer('/statusTexts', key);
    if (!Object.hasOwn(now, key)) emit('STATUS_TEXT_REMOVED', at, `status text "${key}" removed`);
    else if (now[key] !== text)
      emit('STATUS_TEXT_CHANGED', at, `status text "${key}" ${JSON.stringify(text)} became ${JSON.stringify(now[key])}`);
  }
}

function compareShapes(
  c: OperationsComparison,
  before: Record_,
  after: Record_,
  at: string,
  emit: (rule: RuleName, pointer: string, message: string) => void,
): void {
  const name = JSON.stringify(before.name);
  for (const [field, direction] of [
    ['request', 'request'],
    ['query', 'request'],
    ['response', 'answer'],
  ] as const) {
    const was = before[field] ?? null;
    const now = after[field] ?? null;
    if (was === now) continue;
    if (was === null && direction === 'request') {
      emit('OPERATION_BODY_ADDED', childPointer(at, field), `operation ${name} now takes ${field} ${JSON.stringify(now)}`);
      continue;
    }
    if (now === null) {
      if (direction === 'answer')
        emit(
          'OPERATION_ANSWER_SCHEMA_REMOVED',
          childPointer(at, field),
          `operation ${name} answered ${JSON.stringify(was)}, now no schema`,
        );
      continue;
    }
    const fileBefore = schemaFileOf(c.before, was);
    const fileAfter = schemaFileOf(c.after, now);
    // Names of another namespace (a2a:...) are proto types, which `buf breaking` checks.
    if (fileBefore === undefined || fileAfter === undefined) continue;
    compareSchemas(
      {
        before: c.before,
        after: c.after,
        schemaFile: fileAfter,
        shownFile: c.showSchema(fileAfter),
        directions: c.directions,
        direction,
        note: `(compared with ${JSON.stringify(was)}, the old ${field} of operation ${name})`,
        report: c.report,
      },
      c.before.schemas.get(fileBefore),
      c.after.schemas.get(fileAfter),
    );
  }
}

/** A schema name the new manifests use that names no file leaves a direction unknown: said, not skipped. */
function reportUnknownSchemaNames(c: OperationsComparison): void {
  for (const [file, manifest] of c.after.manifests) {
    (manifest.operations as unknown[]).forEach((operation, index) => {
      if (operation === null || typeof operation !== 'object') return;
      for (const field of ['request', 'query', 'response']) {
        const name = (operation as Record_)[field];
        if (typeof name !== 'string' || name.includes(':') || schemaFileOf(c.after, name) !== undefined) continue;
        c.report({
          file: c.showManifest(file),
          pointer: childPointer('/operations', index, field),
          rule: 'UNJUDGED',
          verdict: 'unjudged',
          direction: field === 'response' ? 'answer' : 'request',
          message: `schema ${JSON.stringify(name)} is not in the schema folder`,
        });
      }
    });
  }
}
