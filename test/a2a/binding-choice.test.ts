// The outbound client's choice among a card's interfaces, row by row: the card's order among
// the bindings parley speaks, a forced binding, protocol versions, the same-origin rule (an
// interface elsewhere is passed over for a later one on the card's origin), and how a gRPC
// interface's `host:port` is read (its host must be the card's; TLS from its scheme or the card's).
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { create } from '@bufbuild/protobuf';
import { AgentCardSchema } from '../../generated/proto/lf/a2a/v1/a2a_pb.js';
import { chooseInterface, type ChoiceOptions } from '../../src/a2a/client/binding-choice.js';
import { A2aClientError } from '../../src/a2a/client/errors.js';

const CARD_URL = 'http://agent.test:8080/.well-known/agent-card.json';

function card(...interfaces: [binding: string, url: string, version?: string][]) {
  return create(AgentCardSchema, {
    supportedInterfaces: interfaces.map(([protocolBinding, url, protocolVersion = '1.0']) => ({
      protocolBinding,
      url,
      protocolVersion,
    })),
  });
}

const rows: {
  name: string;
  interfaces: [string, string, string?][];
  options?: ChoiceOptions;
  cardUrl?: string;
  chosen: string;
}[] = [
  {
    name: 'the first the client speaks, in the card’s order',
    interfaces: [
      ['HTTP+JSON', 'http://agent.test:8080/rest'],
      ['JSONRPC', 'http://agent.test:8080/'],
    ],
    chosen: 'HTTP+JSON http://agent.test:8080/rest',
  },
  {
    name: 'an unknown binding is passed over',
    interfaces: [
      ['SOAP', 'http://agent.test:8080/soap'],
      ['JSONRPC', 'http://agent.test:8080/'],
    ],
    chosen: 'JSONRPC http://agent.test:8080/',
  },
  {
    name: 'binding names are read without case, a patch version is ignored',
    interfaces: [['jsonrpc', 'http://agent.test:8080/', '1.0.3']],
    chosen: 'JSONRPC http://agent.test:8080/',
  },
  {
    name: 'another protocol version is passed over',
    interfaces: [
      ['JSONRPC', 'http://agent.test:8080/v03', '0.3'],
      ['HTTP+JSON', 'http://agent.test:8080/rest'],
    ],
    chosen: 'HTTP+JSON http://agent.test:8080/rest',
  },
  {
    name: 'a forced binding, though later in the list',
    interfaces: [
      ['JSONRPC', 'http://agent.test:8080/'],
      ['GRPC', 'agent.test:50051'],
    ],
    options: { force: 'GRPC' },
    chosen: 'GRPC grpc://agent.test:50051',
  },
  {
    name: 'a relative URL is read against the card’s address',
    interfaces: [['HTTP+JSON', '/a2a/rest']],
    chosen: 'HTTP+JSON http://agent.test:8080/a2a/rest',
  },
  {
    name: 'an interface on another origin is passed over for a later one on the card’s',
    interfaces: [
      ['JSONRPC', 'http://elsewhere.test:8080/'],
      ['HTTP+JSON', 'http://agent.test:8080/rest'],
    ],
    chosen: 'HTTP+JSON http://agent.test:8080/rest',
  },
  {
    name: 'cross-origin allowed: the first is taken',
    interfaces: [
      ['JSONRPC', 'http://elsewhere.test:8080/'],
      ['HTTP+JSON', 'http://agent.test:8080/rest'],
    ],
    options: { allowCrossOrigin: true },
    chosen: 'JSONRPC http://elsewhere.test:8080/',
  },
  {
    name: 'gRPC on the card’s host, on a port of its own',
    interfaces: [['GRPC', 'agent.test:50051']],
    chosen: 'GRPC grpc://agent.test:50051',
  },
  {
    name: 'gRPC from a card served over https uses TLS',
    interfaces: [['GRPC', 'agent.test:50051']],
    cardUrl: 'https://agent.test/.well-known/agent-card.json',
    chosen: 'GRPC grpcs://agent.test:50051',
  },
  // The card came over https, so the credentials the gRPC calls carry never travel in clear,
  // whatever scheme the card writes (before, grpc:// and http:// meant plaintext gRPC).
  {
    name: 'gRPC written grpc:// on a card served over https still uses TLS',
    interfaces: [['GRPC', 'grpc://agent.test:50051']],
    cardUrl: 'https://agent.test/.well-known/agent-card.json',
    chosen: 'GRPC grpcs://agent.test:50051',
  },
  {
    name: 'gRPC written http:// on a card served over https still uses TLS',
    interfaces: [['GRPC', 'http://agent.test:50051']],
    cardUrl: 'https://agent.test/.well-known/agent-card.json',
    chosen: 'GRPC grpcs://agent.test:50051',
  },
  {
    name: 'gRPC written grpcs:// uses TLS',
    interfaces: [['GRPC', 'grpcs://agent.test:50051']],
    chosen: 'GRPC grpcs://agent.test:50051',
  },
  {
    name: 'gRPC written https:// with its port implied',
    interfaces: [['GRPC', 'https://agent.test/']],
    chosen: 'GRPC grpcs://agent.test:443',
  },
  {
    name: 'gRPC without a port is passed over',
    interfaces: [
      ['GRPC', 'agent.test'],
      ['JSONRPC', 'http://agent.test:8080/'],
    ],
    chosen: 'JSONRPC http://agent.test:8080/',
  },
  {
    name: 'gRPC on another host is passed over',
    interfaces: [
      ['GRPC', 'elsewhere.test:50051'],
      ['JSONRPC', 'http://agent.test:8080/'],
    ],
    chosen: 'JSONRPC http://agent.test:8080/',
  },
];

describe('chooseInterface', () => {
  for (const row of rows) {
    test(row.name, () => {
      const chosen = chooseInterface(card(...row.interfaces), row.cardUrl ?? CARD_URL, row.options);
      assert.equal(`${chosen.binding} ${chosen.url}`, row.chosen);
    });
  }

  const refusals: {
    name: string;
    interfaces: [string, string, string?][];
    options?: ChoiceOptions;
    code: string;
    mentions: RegExp;
  }[] = [
    { name: 'no interface at all', interfaces: [], code: 'a2a_incompatible_card', mentions: /JSONRPC, HTTP\+JSON or GRPC/ },
    {
      name: 'the forced binding is not on the card',
      interfaces: [['JSONRPC', 'http://agent.test:8080/']],
      options: { force: 'HTTP+JSON' },
      code: 'a2a_incompatible_card',
      mentions: /HTTP\+JSON interface/,
    },
    {
      name: 'every usable interface is on another origin',
      interfaces: [['JSONRPC', 'http://agent.test:9090/']],
      code: 'a2a_cross_origin',
      mentions: /agent\.test:9090/,
    },
  ];
  for (const row of refusals) {
    test(`refused: ${row.name}`, () => {
      assert.throws(
        () => chooseInterface(card(...row.interfaces), CARD_URL, row.options),
        (error) => error instanceof A2aClientError && error.code === row.code && row.mentions.test(error.message),
      );
    });
  }
});
