// Check a payload against parley's schemas without ajv set-up: every schema has a standalone
// validator, by type (validateTask) or by name (validate('task', ...), the names `parley
// schemas` lists). A valid result narrows the value to its type; an invalid one lists each
// problem with a JSON pointer.
import { validate, validateTask } from 'parley-agents/validators';

const incoming: unknown = JSON.parse('{"id": "t-1", "state": "paused"}');

const result = validateTask(incoming);
if (result.valid) {
  console.log(`valid task ${result.value.id}`);
} else {
  for (const issue of result.errors) console.log(`invalid: ${issue.pointer} ${issue.message}`);
}

const message = validate('a2a:Message', { messageId: 'm-1', role: 'ROLE_USER', parts: [{ text: 'hi' }] });
console.log(`a2a message valid: ${message.valid}`);
