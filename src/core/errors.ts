// The spec names errors by Python exception kind; this module is where each kind becomes a
// TypeScript class. docs/errors.md has the table. Match with `instanceof` and `code`.

/** Spec `ValueError` for configuration: names the field, the value and the rule broken. */
export class ConfigError extends RangeError {
  readonly code = 'invalid_config';
  constructor(
    readonly field: string,
    readonly value: unknown,
    readonly rule: string,
  ) {
    super(`${field}: ${rule} (got ${describe(value)})`);
    this.name = 'ConfigError';
  }
}

/** Spec `ValueError` for an argument that is not one of the accepted values. */
export class InvalidArgumentError extends RangeError {
  constructor(
    message: string,
    readonly code: string = 'invalid_argument',
  ) {
    super(message);
    this.name = 'InvalidArgumentError';
  }
}

/** Spec `ImportError`: an optional package a feature needs is not installed. */
export class MissingDependencyError extends Error {
  readonly code = 'missing_dependency';
  constructor(
    readonly packageName: string,
    readonly feature: string,
    options?: { cause?: unknown },
  ) {
    super(`${feature} needs the optional package "${packageName}": npm install ${packageName}`, options);
    this.name = 'MissingDependencyError';
  }
}

/** Spec `RuntimeError` for calling something in a state that does not allow it. */
export class StateError extends Error {
  constructor(
    message: string,
    readonly code: string = 'invalid_state',
  ) {
    super(message);
    this.name = 'StateError';
  }
}

export function describe(value: unknown): string {
  if (typeof value === 'string') return JSON.stringify(value);
  if (typeof value === 'number' || typeof value === 'boolean' || value == null) return String(value);
  try {
    return JSON.stringify(value);
  } catch {
    return Object.prototype.toString.call(value);
  }
}

/**
 * Loads an optional package (or a subpath of one, such as `js-tiktoken/lite`), turning "not
 * installed" into a MissingDependencyError that names the package to install.
 */
export async function importOptional<T>(specifier: string, feature: string): Promise<T> {
  try {
    return (await import(specifier)) as T;
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    if (code === 'ERR_MODULE_NOT_FOUND' || code === 'MODULE_NOT_FOUND') {
      throw new MissingDependencyError(packageOf(specifier), feature, { cause: error });
    }
    throw error;
  }
}

/** The npm package a bare specifier names: `@scope/name` or `name`, without any subpath. */
function packageOf(specifier: string): string {
  const segments = specifier.split('/');
  return segments.slice(0, specifier.startsWith('@') ? 2 : 1).join('/');
}
