/**
 * Which of an engine's errors callers act on, as the typed storage errors of src/storage/errors.ts
 * (services catch those with `instanceof`). Every query's errors pass through here, by the
 * classifying driver (src/storage/engine/classifying-driver.ts) or the dialect's own runners.
 */
import { Deadlock, ForeignKeyViolation, UniqueViolation } from '../errors.ts';

export interface ErrorClassifier {
  /** `error` as a typed storage error when it is one, else as it is. */
  classify(error: unknown): unknown;
}

const codeOf = (error: unknown) => (error as { code?: unknown } | null)?.code;

export const sqliteErrors: ErrorClassifier = {
  classify(error) {
    const code = codeOf(error);
    if (code === 'SQLITE_CONSTRAINT_UNIQUE' || code === 'SQLITE_CONSTRAINT_PRIMARYKEY') {
      return new UniqueViolation('unique key violated', { cause: error });
    }
    if (code === 'SQLITE_CONSTRAINT_FOREIGNKEY') return new ForeignKeyViolation('foreign key violated', { cause: error });
    return error;
  },
};

export const postgresErrors: ErrorClassifier = {
  classify(error) {
    const code = codeOf(error);
    if (code === '23505') return new UniqueViolation('unique key violated', { cause: error });
    if (code === '23503') return new ForeignKeyViolation('foreign key violated', { cause: error });
    // 40P01: PostgreSQL aborted the transaction to break a deadlock.
    if (code === '40P01') return new Deadlock('deadlock detected', { cause: error });
    return error;
  },
};
