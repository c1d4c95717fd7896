const MARKER = Symbol.for('indusagi.error');

/**
 * Base of every error indusagi throws on purpose. `kind` is a stable machine-readable code;
 * `isInstance` works across duplicated module copies (no reliance on `instanceof`).
 */
export class IndusagiError extends Error {
  readonly [MARKER] = true;
  readonly kind: string;

  constructor(kind: string, message: string, options?: { cause?: unknown }) {
    super(message, options);
    this.name = new.target.name;
    this.kind = kind;
  }

  static isInstance(error: unknown): error is IndusagiError {
    return typeof error === 'object' && error !== null && (error as Record<symbol, unknown>)[MARKER] === true;
  }
}

/** The message of a thrown value, whatever was thrown. */
export function errorMessage(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}

/**
 * Subclasses get a working `isInstance` by naming themselves: it checks the marker and the class name,
 * so it survives bundling copies of the module.
 */
export function isErrorNamed<T extends IndusagiError>(error: unknown, name: string): error is T {
  return IndusagiError.isInstance(error) && error.name === name;
}
