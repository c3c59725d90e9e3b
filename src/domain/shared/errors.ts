/**
 * Errors the domain raises; the HTTP layer maps `status` and `code` to the contract's error body.
 * Services throw these and never a framework error, so they stay usable from the CLI and tests.
 */
export interface ErrorDetail {
  /** Where the problem is: a field path (`body.labels[2]`) or a bulk item index. */
  field?: string;
  index?: number;
  message: string;
  [key: string]: unknown;
}

export class DomainError extends Error {
  readonly status: number;
  readonly code: string;
  readonly details?: ErrorDetail[];

  constructor(status: number, code: string, message: string, details?: ErrorDetail[]) {
    super(message);
    this.name = new.target.name;
    this.status = status;
    this.code = code;
    this.details = details;
  }
}

export class ValidationError extends DomainError {
  constructor(message: string, details?: ErrorDetail[]) {
    super(400, 'validation_failed', message, details);
  }
}

export class NotFoundError extends DomainError {
  constructor(what: string, details?: ErrorDetail[]) {
    super(404, 'not_found', `${what} not found`, details);
  }
}

export class ForbiddenError extends DomainError {
  constructor(message: string) {
    super(403, 'forbidden', message);
  }
}

export class ConflictError extends DomainError {
  constructor(message: string, details?: ErrorDetail[]) {
    super(409, 'conflict', message, details);
  }
}

export class UnauthorizedError extends DomainError {
  /** Distinguishes a bad token (RFC 6750 invalid_token) from a missing one. */
  readonly invalidToken: boolean;

  constructor(message: string, invalidToken: boolean) {
    super(401, 'unauthorized', message);
    this.invalidToken = invalidToken;
  }
}

/** A Range outside the bytes of the file asked for. */
export class RangeNotSatisfiableError extends DomainError {
  constructor(message: string) {
    super(416, 'range_not_satisfiable', message);
  }
}

export class PayloadTooLargeError extends DomainError {
  constructor(message: string) {
    super(413, 'payload_too_large', message);
  }
}
