// The one error a registry store raises when it cannot be used: a database file that is not
// a database, is corrupt, belongs to another program, was written by a newer parley, cannot
// be opened, or cannot commit. Match it by `code`.
export type RegistryStoreErrorCode =
  | 'store_unreadable'
  | 'store_corrupt'
  | 'store_foreign'
  | 'store_too_new'
  | 'store_busy'
  | 'store_write_failed';

export class RegistryStoreError extends Error {
  constructor(
    readonly code: RegistryStoreErrorCode,
    message: string,
    readonly location: string,
    options?: { cause?: unknown },
  ) {
    super(message, options);
    this.name = 'RegistryStoreError';
  }
}
