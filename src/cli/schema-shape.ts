// What `parley validate` needs to know about a schema beyond its validator: whether the
// schema's own top-level value is an array (such as `agent-card-list`). For those schemas a
// file holding a JSON array is one value; for every other schema it is a list of values.
import { validate, type SchemaName } from '../../generated/validators/index.js';

/**
 * True when the schema takes an array at the top level. Decided by the generated validator
 * itself: an empty array is checked, and a schema that does not take arrays answers with a
 * `type` error at the root. This keeps the rule right for native and A2A schemas alike,
 * without reading schema files at run time.
 */
export function schemaTakesArray(name: SchemaName): boolean {
  const result = validate(name, []);
  if (result.valid) return true;
  return !result.errors.some((issue) => issue.pointer === '' && issue.keyword === 'type');
}
