// The authenticator the transport tests share: it accepts the credential `good` only.
import type { Authenticator } from '../../src/auth/authenticator.js';

export const keyAuthenticator: Authenticator = {
  scheme: { type: 'apiKey', scheme: null, description: 'test key', metadata: {} },
  authenticate: async (credentials) => {
    if (credentials !== 'good') throw new Error('Invalid API key');
    return { principal_id: 'tester', token: credentials, expires_at: null, metadata: {} };
  },
  refreshToken: async (context) => context,
};
