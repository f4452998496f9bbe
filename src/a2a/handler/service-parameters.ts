// The A2A service parameters the JSON-RPC binding carries as HTTP headers, and the media type
// of the body. A request without `A2A-Version` is, as the A2A specification says, a 0.3
// request; this boundary speaks 1.0 only (any 1.0.x: patch numbers never count), so both that
// and any other version get VersionNotSupportedError (-32009).
import { A2aError } from '../errors/a2a-error.js';
import { A2A_PROTOCOL_VERSION } from '../card/agent-card.js';

/** What a request without the header is taken to speak. */
const ABSENT_VERSION = '0.3';

const JSON_TYPES = new Set(['application/json', 'application/a2a+json']);

/** Refuses a body labelled as anything but JSON (-32005); an unlabelled body is read as JSON. */
export function checkMediaType(header: string | undefined): void {
  if (!header) return;
  const type = header.split(';', 1)[0]!.trim().toLowerCase();
  if (JSON_TYPES.has(type)) return;
  throw new A2aError('contentTypeNotSupported', `Content-Type ${JSON.stringify(header)} is not supported; send application/json`);
}

export function checkVersion(header: string | undefined): void {
  const asked = header?.trim() || ABSENT_VERSION;
  const match = /^(\d+)\.(\d+)(?:\.\d+)?$/.exec(asked);
  if (match && Number(match[1]) === 1 && Number(match[2]) === 0) return;
  throw new A2aError(
    'versionNotSupported',
    `A2A version ${asked}${header?.trim() ? '' : ' (no A2A-Version header)'} is not supported; this agent speaks ${A2A_PROTOCOL_VERSION}`,
    { supported: A2A_PROTOCOL_VERSION },
  );
}
