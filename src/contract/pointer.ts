// JSON pointers (RFC 6901) as the checker uses them: built token by token while walking two
// schemas side by side, and read back to find a `$ref` target.

export function childPointer(pointer: string, ...tokens: Array<string | number>): string {
  return tokens.reduce<string>((at, token) => `${at}/${String(token).replace(/~/g, '~0').replace(/\//g, '~1')}`, pointer);
}

export function pointerTokens(pointer: string): string[] | undefined {
  if (pointer === '') return [];
  if (!pointer.startsWith('/')) return undefined;
  return pointer
    .slice(1)
    .split('/')
    .map((token) => token.replace(/~1/g, '/').replace(/~0/g, '~'));
}

/** The value at `pointer` in `document`, or undefined when there is none. */
export function valueAt(document: unknown, pointer: string): unknown {
  const tokens = pointerTokens(pointer);
  if (tokens === undefined) return undefined;
  let at: unknown = document;
  for (const token of tokens) {
    if (at === null || typeof at !== 'object' || !Object.hasOwn(at, token)) return undefined;
    at = (at as Record<string, unknown>)[token];
  }
  return at;
}

/** Whether `prefix` names `pointer` itself or a place that contains it. */
export function pointerContains(prefix: string, pointer: string): boolean {
  return prefix === '' || pointer === prefix || pointer.startsWith(`${prefix}/`);
}
