// The same-origin rule for an A2A card's JSON-RPC interface: scheme, hostname and effective
// port (the scheme's default when none is written) must equal the card address's, or the card
// is refused before any request goes to the interface.

const DEFAULT_PORTS: Readonly<Record<string, string>> = { 'http:': '80', 'https:': '443' };

export function sameOrigin(a: string, b: string): boolean {
  let left: URL;
  let right: URL;
  try {
    left = new URL(a);
    right = new URL(b);
  } catch {
    return false;
  }
  const port = (url: URL) => url.port || DEFAULT_PORTS[url.protocol] || '';
  return (
    left.protocol === right.protocol && left.hostname.toLowerCase() === right.hostname.toLowerCase() && port(left) === port(right)
  );
}
