// Routes whose path holds named parts, `{name}`, each standing for one non-empty path segment
// (possibly with literal text around it: A2A's HTTP+JSON `/tasks/{id}:cancel`). The dispatcher
// looks a request up in its exact table first, so a table without templates pays nothing; only
// a path that misses every exact route is tried against the templates, the most specific first:
// segment by segment, a literal beats a part with literal text around it, which beats a bare
// part (`/tasks/{id}:cancel` before `/tasks/{id}`, `/rest/tasks/{id}` before `/rest/{tenant}/tasks`).

/** A path template, compiled once: what it matches and how specific it is. */
export class PathTemplate {
  private readonly pattern: RegExp;
  private readonly names: readonly string[];
  /** Per segment: 2 literal, 1 a part with literal text around it, 0 a bare part. */
  readonly rank: readonly number[];

  constructor(readonly path: string) {
    const names: string[] = [];
    const rank: number[] = [];
    const source = path
      .split('/')
      .map((segment) => {
        const parts = [...segment.matchAll(/\{([^{}]+)\}/g)];
        if (parts.length === 0) {
          rank.push(2);
          return literal(segment);
        }
        if (parts.length > 1) throw new Error(`route ${path}: one {name} per segment`);
        const part = parts[0]!;
        names.push(part[1]!);
        const before = segment.slice(0, part.index);
        const after = segment.slice(part.index + part[0].length);
        rank.push(before || after ? 1 : 0);
        return `${literal(before)}([^/]+?)${literal(after)}`;
      })
      .join('/');
    this.pattern = new RegExp(`^${source}$`);
    this.names = names;
    this.rank = rank;
  }

  /** Whether a path has named parts at all. */
  static isTemplate(path: string): boolean {
    return path.includes('{');
  }

  /** The named parts of `path` as they were sent (still percent-encoded), or null when it does not match. */
  match(path: string): Record<string, string> | null {
    const found = this.pattern.exec(path);
    if (!found) return null;
    const values: Record<string, string> = {};
    this.names.forEach((name, at) => {
      values[name] = found[at + 1]!;
    });
    return values;
  }
}

/** Orders templates most specific first (see the top of this file). */
function bySpecificity(a: PathTemplate, b: PathTemplate): number {
  const length = Math.min(a.rank.length, b.rank.length);
  for (let at = 0; at < length; at++) {
    const difference = b.rank[at]! - a.rank[at]!;
    if (difference !== 0) return difference;
  }
  return b.rank.length - a.rank.length;
}

/** Templated routes of one endpoint table, keyed `METHOD template` as the table is. */
export class RouteTemplates<T> {
  private readonly routes: { readonly method: string; readonly template: PathTemplate; readonly value: T }[] = [];

  add(method: string, path: string, value: T): void {
    this.routes.push({ method, template: new PathTemplate(path), value });
    this.routes.sort((a, b) => bySpecificity(a.template, b.template));
  }

  get size(): number {
    return this.routes.length;
  }

  /** The most specific route for `method` whose template matches `path`. */
  find(method: string, path: string): T | undefined {
    for (const route of this.routes) {
      if (route.method === method && route.template.match(path)) return route.value;
    }
    return undefined;
  }

  /** The methods some template matching `path` answers (for a 405's Allow). */
  methodsFor(path: string): string[] {
    const methods = new Set<string>();
    for (const route of this.routes) if (route.template.match(path)) methods.add(route.method);
    return [...methods];
  }
}

function literal(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
}
