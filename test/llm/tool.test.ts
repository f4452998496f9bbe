// tool(): what a tool definition must be (a name the providers accept, an object input schema
// that compiles, a run function), and its argument check in words a model can act on.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { InvalidArgumentError } from '../../src/core/errors.js';
import { tool } from '../../src/llm/tool.js';

const input = {
  type: 'object',
  properties: { n: { type: 'integer', minimum: 1 }, day: { type: 'string', format: 'date' } },
  required: ['n'],
};

test('a tool checks its arguments against its input schema, formats included', () => {
  const double = tool<{ n: number }>({ name: 'double', description: 'Doubles n', input, run: ({ n }) => n * 2 });
  assert.equal(double.check({ n: 2 }), null);
  assert.equal(double.check({ n: 2, day: '2026-11-25' }), null);
  assert.match(double.check({}) ?? '', /must have required property 'n'/);
  assert.match(double.check({ n: 0 }) ?? '', /\/n must be >= 1/);
  assert.match(double.check({ n: 1, day: 'tomorrow' }) ?? '', /\/day must match format "date"/);
  assert.deepEqual(double.parameters, input);
});

test('a bad tool definition is refused when it is made', () => {
  const run = () => null;
  for (const name of ['', 'has space', 'x'.repeat(65), 'dots.not.allowed']) {
    assert.throws(() => tool({ name, description: '', input, run }), InvalidArgumentError, name);
  }
  assert.throws(() => tool({ name: 'list', description: '', input: { type: 'array' }, run }), /must be of type object/);
  assert.throws(
    () => tool({ name: 'broken', description: '', input: { type: 'object', properties: { a: { type: 'nope' } } }, run }),
    /does not compile/,
  );
  assert.throws(() => tool({ name: 'no_run', description: '', input } as never), /needs a run function/);
});
