const MARKER = Symbol.for('indusagi.error');
const NAMES = Symbol.for('indusagi.error.names');

/**
 * Base of every error indusagi throws on purpose. `kind` is a stable machine-readable code.
 *
 * Each subclass names itself with a string literal, `static override readonly errorName: string = 'X'`: the
 * name a bundler cannot rename. `name` is set from it, and `isInstance` checks it, so `X.isInstance`
 * holds across duplicated copies of the module and after minification, where neither `instanceof`
 * nor `constructor.name` can be trusted.
 */
export class IndusagiError extends Error {
  static readonly errorName: string = 'IndusagiError';
  readonly [MARKER] = true;
  readonly kind: string;

  constructor(kind: string, message: string, options?: { cause?: unknown }) {
    super(message, options);
    const names = namesOf(new.target);
    // Non-enumerable, so it stays out of JSON and logs; a class of yours without `errorName` keeps its parent's.
    Object.defineProperty(this, NAMES, { value: names });
    this.name = names[0] ?? 'IndusagiError';
    this.kind = kind;
  }

  /**
   * True for an instance of this class or a subclass, also one made by another copy of the module.
   * Works unbound too (`errors.filter(RunFault.isInstance)`): each class hands out its own checker.
   */
  declare static isInstance: <T extends IndusagiError>(this: abstract new (...args: never[]) => T, error: unknown) => error is T;

  static {
    const checkers = new WeakMap<Function, (error: unknown) => boolean>();
    Object.defineProperty(this, 'isInstance', {
      get(this: Function) {
        let check = checkers.get(this);
        if (check === undefined) {
          const cls = this;
          check = (error) => isInstanceOf(cls, error);
          checkers.set(cls, check);
        }
        return check;
      },
    });
  }
}

function isInstanceOf(cls: Function, error: unknown): boolean {
  if (typeof error !== 'object' || error === null || (error as Record<symbol, unknown>)[MARKER] !== true) return false;
  const own = ownErrorName(cls);
  // A subclass that never named itself can only be recognised by identity.
  if (own === undefined) return error instanceof cls;
  const names = (error as Record<symbol, unknown>)[NAMES];
  return Array.isArray(names) && names.includes(own);
}

/** The message of a thrown value, whatever was thrown. */
export function errorMessage(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}

// Most derived first: the names a class and its ancestors gave themselves.
function namesOf(target: Function): string[] {
  const names: string[] = [];
  for (let cls: unknown = target; typeof cls === 'function'; cls = Object.getPrototypeOf(cls)) {
    const name = ownErrorName(cls as Function);
    if (name !== undefined) names.push(name);
  }
  return names;
}

function ownErrorName(cls: Function): string | undefined {
  return Object.hasOwn(cls, 'errorName') ? (cls as unknown as { errorName: string }).errorName : undefined;
}
