// Transport equivalence (A2A 1.0 section 5.1, the conformance kit's idea): the same scenarios
// (binding-scenarios.ts) over every binding parley serves (binding-columns.ts) give the same
// answers, each the scenario's expected one. A new binding is one more column.
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { COLUMNS } from './binding-columns.js';
import { NotExpressible } from './grpc/binding-column.js';
import { SCENARIOS, scenarioHandler } from './binding-scenarios.js';

describe('A2A bindings: the same scenarios give the same answers', () => {
  for (const column of COLUMNS) {
    test(column.name, async (t) => {
      const call = await column.open(t, scenarioHandler);
      for (const [at, scenario] of SCENARIOS.entries()) {
        await t.test(scenario.name, async (step) => {
          let answer: unknown;
          try {
            answer = await scenario.run(call, `scenario-${at}`);
          } catch (error) {
            // A request this binding's wire cannot carry (a JSON-only mistake over protobuf).
            if (error instanceof NotExpressible) return step.skip(`${column.name} cannot send it: ${error.message}`);
            throw error;
          }
          assert.deepEqual(answer, scenario.expected);
        });
      }
    });
  }
});
