// The configured authenticator's scheme as A2A 1.0 declares schemes: a named SecurityScheme
// and a requirement naming it. API keys travel in the X-API-Key header (parley also takes
// `Authorization: ApiKey`); HTTP schemes keep their name; OAuth delegation is a token endpoint
// a client exchanges credentials at; mutual TLS and OpenID Connect have direct twins.
import { create, type JsonObject } from '@bufbuild/protobuf';
import type { SecurityScheme as NativeScheme } from '../../../generated/types/index.js';
import {
  SecurityRequirementSchema,
  SecuritySchemeSchema,
  type SecurityRequirement,
  type SecurityScheme,
} from '../../../generated/proto/lf/a2a/v1/a2a_pb.js';

export interface A2aSecurity {
  readonly schemes: Record<string, SecurityScheme>;
  readonly requirements: SecurityRequirement[];
}

/** The key the scheme is declared under (as on the native card). */
function schemeKey(scheme: NativeScheme): string {
  return scheme.type === 'http' ? `${scheme.scheme ?? 'http'}` : scheme.type;
}

export function securityToA2a(scheme: NativeScheme): A2aSecurity {
  const key = schemeKey(scheme);
  return {
    schemes: { [key]: schemeToA2a(scheme) },
    requirements: [create(SecurityRequirementSchema, { schemes: { [key]: { list: [] } } })],
  };
}

function schemeToA2a(scheme: NativeScheme): SecurityScheme {
  const description = scheme.description ?? '';
  const metadata = (scheme.metadata ?? {}) as JsonObject;
  switch (scheme.type) {
    case 'apiKey':
      return create(SecuritySchemeSchema, {
        scheme: { case: 'apiKeySecurityScheme', value: { description, location: 'header', name: 'X-API-Key' } },
      });
    case 'http': {
      const name = scheme.scheme ?? 'bearer';
      const bearerFormat = name === 'bearer' ? 'JWT' : '';
      return create(SecuritySchemeSchema, {
        scheme: {
          case: 'httpAuthSecurityScheme',
          value: { description, scheme: name.charAt(0).toUpperCase() + name.slice(1), bearerFormat },
        },
      });
    }
    case 'oauth2': {
      const tokenUrl = typeof metadata.exchange_endpoint === 'string' ? metadata.exchange_endpoint : '';
      return create(SecuritySchemeSchema, {
        scheme: {
          case: 'oauth2SecurityScheme',
          value: { description, flows: { flow: { case: 'clientCredentials', value: { tokenUrl, scopes: {} } } } },
        },
      });
    }
    case 'openIdConnect': {
      const url =
        typeof metadata.open_id_connect_url === 'string'
          ? metadata.open_id_connect_url
          : typeof metadata.url === 'string'
            ? metadata.url
            : '';
      return create(SecuritySchemeSchema, {
        scheme: { case: 'openIdConnectSecurityScheme', value: { description, openIdConnectUrl: url } },
      });
    }
    case 'mutualTLS':
      return create(SecuritySchemeSchema, { scheme: { case: 'mtlsSecurityScheme', value: { description } } });
  }
}
