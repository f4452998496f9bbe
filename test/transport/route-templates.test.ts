// Route templates (transport/route-templates.ts): a {name} part matches one non-empty segment,
// literal text around it must match too, and of several templates that match a path the most
// specific wins, whatever order they were added in.
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { PathTemplate, RouteTemplates } from '../../src/transport/route-templates.js';

describe('route templates', () => {
  const rows: Array<[template: string, path: string, expected: Record<string, string> | null]> = [
    ['/tasks/{id}', '/tasks/abc', { id: 'abc' }],
    ['/tasks/{id}', '/tasks/', null],
    ['/tasks/{id}', '/tasks/a/b', null],
    ['/tasks/{id}:cancel', '/tasks/abc:cancel', { id: 'abc' }],
    ['/tasks/{id}:cancel', '/tasks/a:b:cancel', { id: 'a:b' }],
    ['/tasks/{id}:cancel', '/tasks/:cancel', null],
    ['/tasks/{id}:cancel', '/tasks/abc', null],
    ['/r/{tenant}/tasks/{id}', '/r/acme/tasks/t%2F1', { tenant: 'acme', id: 't%2F1' }],
    ['/a.b/{x}', '/aXb/1', null],
  ];
  for (const [template, path, expected] of rows) {
    test(`${template} against ${path}`, () => {
      assert.deepEqual(new PathTemplate(template).match(path), expected);
    });
  }

  test('the most specific template wins: literal, then a part with text around it, then a bare part', () => {
    const routes = new RouteTemplates<string>();
    // Added least specific first, so the order of adding cannot be what decides.
    routes.add('GET', '/r/{tenant}/tasks', 'list in a tenant');
    routes.add('GET', '/r/tasks/{id}', 'get');
    routes.add('POST', '/r/tasks/{id}', 'post');
    routes.add('GET', '/r/tasks/{id}:subscribe', 'subscribe');
    assert.equal(routes.find('GET', '/r/tasks/tasks'), 'get');
    assert.equal(routes.find('GET', '/r/acme/tasks'), 'list in a tenant');
    assert.equal(routes.find('GET', '/r/tasks/x:subscribe'), 'subscribe');
    assert.equal(routes.find('GET', '/r/tasks/x'), 'get');
    assert.equal(routes.find('DELETE', '/r/tasks/x'), undefined);
    assert.deepEqual(routes.methodsFor('/r/tasks/x').sort(), ['GET', 'POST']);
    assert.deepEqual(routes.methodsFor('/elsewhere'), []);
  });

  test('two parts in one segment are refused when the route is built', () => {
    assert.throws(() => new PathTemplate('/x/{a}{b}'), /one \{name\} per segment/);
  });
});
