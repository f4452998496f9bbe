// The error the SQLite registry store raises when its file cannot be used: a file that is not a
// database, is corrupt, belongs to another program, was written by a newer parley, cannot be
// opened, is locked by another writer too long (`store_busy`, the only one worth retrying), or
// cannot commit. A StoreUnavailableError; it keeps its public name, RegistryStoreError, because
// users catch it by that name. Match it by `code`.
import { StoreUnavailableError } from '../../core/store-unavailable-error.js';

export type RegistryStoreErrorCode =
  | 'store_unreadable'
  | 'store_corrupt'
  | 'store_foreign'
  | 'store_too_new'
  | 'store_busy'
  | 'store_write_failed';

export class RegistryStoreError extends StoreUnavailableError {
  declare readonly code: RegistryStoreErrorCode;

  constructor(code: RegistryStoreErrorCode, message: string, location: string, options?: { cause?: unknown }) {
    super(code, message, location, code === 'store_busy', options);
    this.name = 'RegistryStoreError';
  }
}
