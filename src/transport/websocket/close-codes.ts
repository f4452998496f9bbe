// The close codes of the websocket wire that are parley's own (4000-4999 is the range RFC 6455
// leaves to applications); the standard ones (1001 going away, 1009 too big, 1011 internal
// error) are used as the RFC defines them.

/** The connection's credentials (checked at its handshake) have expired: 4401, after HTTP's 401. */
export const CLOSE_CREDENTIALS_EXPIRED = 4401;
