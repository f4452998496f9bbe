// The OpenAPI 3.1 documents codegen makes from the operations manifests: valid for an
// independent validator, complete (every operation, every $ref resolvable), and usable by a
// common third-party client generator whose output compiles against real calls.
import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, describe, it } from 'node:test';
import { Validator } from '@seriousme/openapi-schema-validator';
import openapiTS, { astToString } from 'openapi-typescript';
import ts from 'typescript';
import { agentOpenApi } from '../../generated/openapi/agent.js';

const ROOT = join(import.meta.dirname, '..', '..');
const read = (path: string) => JSON.parse(readFileSync(join(ROOT, path), 'utf8'));

type Doc = { paths: Record<string, Record<string, any>>; components: { schemas: Record<string, any> } };

function refs(value: unknown, out: string[] = []): string[] {
  if (Array.isArray(value)) for (const item of value) refs(item, out);
  else if (value && typeof value === 'object') {
    for (const [key, inner] of Object.entries(value)) {
      if (key === '$ref' && typeof inner === 'string') out.push(inner);
      else refs(inner, out);
    }
  }
  return out;
}

function resolve(doc: unknown, pointer: string): unknown {
  assert.ok(pointer.startsWith('#/'), `local ref ${pointer}`);
  return pointer
    .slice(2)
    .split('/')
    .map((part) => part.replace(/~1/g, '/').replace(/~0/g, '~'))
    .reduce<any>((node, part) => (node === undefined ? undefined : node[part]), doc);
}

for (const service of ['agent', 'registry']) {
  describe(`generated/openapi/${service}.openapi.json`, () => {
    const doc = read(`generated/openapi/${service}.openapi.json`) as Doc;
    const manifest = read(`schemas/operations/${service}.json`);

    it('is a valid OpenAPI 3.1 document for an independent validator', async () => {
      const result = await new Validator().validate(structuredClone(doc) as never);
      assert.equal(result.valid, true, JSON.stringify(result.errors));
      assert.equal((doc as any).openapi, '3.1.0');
    });

    it('every $ref points at something in the document', () => {
      for (const ref of refs(doc)) assert.notEqual(resolve(doc, ref), undefined, ref);
    });

    for (const op of manifest.operations) {
      it(`${op.method} ${op.path} is there as ${op.name}`, () => {
        const operation = doc.paths[op.path]?.[op.method.toLowerCase()];
        assert.ok(operation, 'operation present');
        assert.equal(operation.operationId, op.name);
        assert.equal(operation.security?.length === 0, op.public, 'public routes need no credentials');
        const headers = operation.parameters.filter((p: any) => p.in === 'header').map((p: any) => p.name);
        assert.equal(headers.includes('Idempotency-Key'), op.idempotent);
        assert.equal(Boolean(operation.requestBody), Boolean(op.request));
        assert.ok(operation.responses['200'].content[op.responseContentType], op.responseContentType);
      });
    }

    it('components are the native schemas with their refs made local', () => {
      for (const [name, component] of Object.entries(doc.components.schemas)) {
        assert.equal(component.$id, undefined, `${name} has no $id`);
        assert.equal(component.title ?? name, name);
      }
      if (service === 'agent') {
        const task = read('schemas/native/task.schema.json');
        assert.deepEqual(Object.keys(doc.components.schemas.Task.properties), Object.keys(task.properties));
      }
    });
  });
}

describe('the OpenAPI module and a third-party client generator', () => {
  it('generated/openapi/agent.ts exports the same document as the JSON file', () => {
    assert.deepEqual(JSON.parse(JSON.stringify(agentOpenApi)), read('generated/openapi/agent.openapi.json'));
  });

  it('openapi-typescript turns it into types that type-check real calls, and reject wrong ones', async () => {
    // defaultNonNullable off: a default is what the server fills in, so the field stays optional in
    // request bodies (docs/operations.md says the same to users of the generator).
    const types = astToString(await openapiTS(read('generated/openapi/agent.openapi.json'), { defaultNonNullable: false }));
    const usage = `
      import type { paths, components } from './api';
      type Task = components['schemas']['Task'];
      type SendBody = paths['/tasks/']['post']['requestBody']['content']['application/json'];
      type SendAnswer = paths['/tasks/']['post']['responses']['200']['content']['application/json'];
      const body: SendBody = { id: 't1', messages: [{ role: 'user', parts: [{ type: 'text', content: 'hi' }] }] };
      declare const answer: SendAnswer;
      const state: components['schemas']['TaskState'] = answer.state ?? 'submitted';
      const task: Task = answer;
      export { body, state, task };
    `;
    const wrong = `
      import type { components } from './api';
      const state: components['schemas']['TaskState'] = 'finished';
      export { state };
    `;
    const dir = mkdtempSync(join(tmpdir(), 'parley-openapi-'));
    after(() => rmSync(dir, { recursive: true, force: true }));
    writeFileSync(join(dir, 'api.ts'), types);
    const diagnostics = (main: string) => {
      writeFileSync(join(dir, 'main.ts'), main);
      const options: ts.CompilerOptions = {
        strict: true,
        noEmit: true,
        target: ts.ScriptTarget.ES2022,
        module: ts.ModuleKind.ESNext,
        moduleResolution: ts.ModuleResolutionKind.Bundler,
        skipLibCheck: true,
        types: [],
      };
      const program = ts.createProgram([join(dir, 'main.ts')], options);
      return ts.getPreEmitDiagnostics(program).map((d) => ts.flattenDiagnosticMessageText(d.messageText, '\n'));
    };
    assert.deepEqual(diagnostics(usage), []);
    const errors = diagnostics(wrong);
    assert.equal(errors.length, 1, errors.join('\n'));
    assert.match(errors[0]!, /"finished"/);
  });
});
