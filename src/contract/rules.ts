// The rule table: every change the checker names, and its verdict for a schema that travels in
// requests (the server must keep accepting what old clients send) and in answers (old clients'
// validators and generated types must keep accepting what the server sends). A schema that
// travels both ways gets the worse of the two. docs/codegen.md prints this table.
import type { Direction, Verdict } from './findings.js';

export interface Rule {
  readonly request: Verdict;
  readonly answer: Verdict;
  /** One line for the docs: what the rule catches. */
  readonly summary: string;
}

const narrows = (summary: string): Rule => ({ request: 'breaking', answer: 'compatible', summary });
const widens = (summary: string): Rule => ({ request: 'compatible', answer: 'breaking', summary });
const always = (summary: string): Rule => ({ request: 'breaking', answer: 'breaking', summary });

export const RULES = {
  SCHEMA_REMOVED: always('a schema file of the baseline is gone'),
  PROPERTY_REMOVED: always('a property is no longer declared'),
  PROPERTY_NEWLY_REQUIRED: narrows('a property (old or new) is now required'),
  PROPERTY_NO_LONGER_REQUIRED: widens('a required property became optional'),
  PROPERTY_ADDED_TO_CLOSED: widens('a property was added to an object whose old schema closed or constrained extra keys'),
  TYPE_NARROWED: narrows(
    'the schema accepts fewer JSON types (a type dropped, number made integer, a type set where any was allowed)',
  ),
  TYPE_WIDENED: widens('the schema accepts more JSON types (null added, integer made number, a type constraint dropped)'),
  TYPE_CHANGED: always('the type set lost one type and gained another'),
  ENUM_VALUE_REMOVED: narrows('an enum value was removed'),
  ENUM_VALUE_ADDED: widens('an enum value was added (old clients validate closed enums)'),
  ENUM_ADDED: narrows('an enum now restricts a value that had none'),
  ENUM_REMOVED: widens('the enum restriction was dropped'),
  CONST_CHANGED: always('the const value changed'),
  CONST_ADDED: narrows('a const now pins a value that was free'),
  CONST_REMOVED: widens('a const was dropped'),
  ADDITIONAL_PROPERTIES_TIGHTENED: narrows('`additionalProperties` went from allowed to false or to a schema'),
  ADDITIONAL_PROPERTIES_LOOSENED: widens('`additionalProperties` went from false or a schema to allowed'),
  BOUND_TIGHTENED: narrows(
    '`minimum`, `exclusiveMinimum`, `minLength`, `minItems`, `minProperties` raised or added; their `max` counterparts lowered or added; `multipleOf` added or made coarser; `uniqueItems` set',
  ),
  BOUND_LOOSENED: {
    request: 'compatible',
    answer: 'warning',
    summary:
      'one of those bounds relaxed or dropped (old validators that check it reject the new values; generated types do not change)',
  },
  PATTERN_ADDED: narrows('a `pattern` now restricts a string'),
  PATTERN_CHANGED: {
    request: 'breaking',
    answer: 'warning',
    summary: 'a `pattern` changed (the checker does not compare regular expressions)',
  },
  PATTERN_REMOVED: { request: 'compatible', answer: 'warning', summary: 'a `pattern` was dropped' },
  FORMAT_ADDED: narrows('a `format` now restricts a string'),
  FORMAT_CHANGED: { request: 'breaking', answer: 'warning', summary: 'a `format` changed' },
  FORMAT_REMOVED: { request: 'compatible', answer: 'warning', summary: 'a `format` was dropped' },
  BRANCH_REMOVED: narrows('a `oneOf` or `anyOf` branch was removed'),
  BRANCH_ADDED: widens('a `oneOf` or `anyOf` branch was added'),
  DEFAULT_CHANGED: { request: 'warning', answer: 'warning', summary: 'a `default` was added, removed or changed' },
  ERROR_CODE_REMOVED: always('a code was removed from an error-code catalogue (a schema with `x-http-status`)'),
  ERROR_STATUS_CHANGED: always("an error code's `x-http-status` changed"),
  UNJUDGED: {
    request: 'unjudged',
    answer: 'unjudged',
    summary:
      'a change the checker cannot judge: `not`, `if`/`then`/`else`, `patternProperties` and the other keywords it does not compare, an unknown keyword, a `$ref` it cannot resolve, references nested deeper than the bound, an `allOf` it cannot merge',
  },
  MANIFEST_REMOVED: always('an operations manifest of the baseline is gone'),
  OPERATION_REMOVED: always('an operation (by `name`) is gone'),
  OPERATION_METHOD_CHANGED: always("an operation's HTTP method changed"),
  OPERATION_PATH_CHANGED: always("an operation's path changed"),
  OPERATION_STATUS_CHANGED: always("an operation's success `status` changed (manifests that declare one)"),
  OPERATION_CONTENT_TYPE_CHANGED: always("an operation's `responseContentType` changed"),
  OPERATION_STREAMING_CHANGED: always('an operation became streaming or stopped streaming'),
  OPERATION_NOW_PROTECTED: always('a public operation now needs credentials'),
  OPERATION_BODY_ADDED: always('an operation that took no request body or query now takes one'),
  OPERATION_ANSWER_SCHEMA_REMOVED: always('an operation whose answer had a schema now has none'),
  STATUS_TEXT_REMOVED: always('a fixed `statusTexts` entry of a manifest is gone'),
  STATUS_TEXT_CHANGED: always('a fixed `statusTexts` text changed'),
} as const satisfies Readonly<Record<string, Rule>>;

export type RuleName = keyof typeof RULES;

const SEVERITY: Readonly<Record<Verdict, number>> = { compatible: 0, warning: 1, unjudged: 2, breaking: 3 };

/** The verdict of `rule` for a schema travelling in `direction`: for both ways, the worse one. */
export function verdictOf(rule: RuleName, direction: Direction): Verdict {
  const { request, answer } = RULES[rule];
  if (direction === 'request') return request;
  if (direction === 'answer') return answer;
  return SEVERITY[request] >= SEVERITY[answer] ? request : answer;
}
