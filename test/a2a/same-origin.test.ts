// The same-origin rule for a card's JSON-RPC interface (spec: "Outbound protocol choice",
// cross-origin rule): scheme, host name and effective port must all match. The port is the one
// a mutation could drop unnoticed, so it is pinned here both ways: a different port is another
// origin, and a port written out equal to the scheme's default is the same one.
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { sameOrigin } from '../../src/a2a/client/same-origin.js';

describe('sameOrigin', () => {
  const cases: [string, string, string, boolean][] = [
    ['same address', 'http://agent.example:8080/.well-known/agent-card.json', 'http://agent.example:8080/', true],
    ['another port on the same host', 'http://agent.example:8080/', 'http://agent.example:8081/', false],
    ['a written port against the implied default', 'http://agent.example:8080/', 'http://agent.example/', false],
    ['http port 80 written out', 'http://agent.example/', 'http://agent.example:80/rpc', true],
    ['https port 443 written out', 'https://agent.example:443/', 'https://agent.example/rpc', true],
    ["http's default port under https", 'https://agent.example/', 'https://agent.example:80/', false],
    ['host names compare without case', 'http://Agent.Example:9000/', 'http://agent.example:9000/', true],
    ['another host', 'http://agent.example/', 'http://other.example/', false],
    ['another scheme', 'http://agent.example/', 'https://agent.example/', false],
    ['not a URL', 'http://agent.example/', 'not a url', false],
  ];
  for (const [name, card, rpc, same] of cases) {
    test(`${name}: ${same ? 'same origin' : 'another origin'}`, () => {
      assert.equal(sameOrigin(card, rpc), same);
      assert.equal(sameOrigin(rpc, card), same, 'the rule is symmetric');
    });
  }
});
