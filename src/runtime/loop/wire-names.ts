import type { Block, Turn } from '../contract/turn.js';
import type { ToolNameMap } from '../tools/names.js';

/**
 * The context as the model sees it: tool names inside `tool_call` blocks sanitized. Turns inside the
 * loop, the store and snapshots keep the ORIGINAL names. The mirror grows with the context, so each
 * turn is converted once, not once per step; when no name changes, it holds the context's own turns.
 *
 * The mirror is append-only: nothing but `push` ever touches it, and `reset` starts a new array rather
 * than emptying the old one. So the first `n` turns of a mirror handed out when it held `n` stay those
 * turns for good, and a request can copy them when its invoker first reads them (`defineMessages`)
 * instead of every step copying the whole context whether the invoker reads it or not.
 */
export class ModelView {
  private readonly renames: boolean;
  private mirror: Turn[] = [];

  constructor(readonly names: ToolNameMap) {
    let renames = false;
    for (const [original, sanitized] of names.toModel) if (original !== sanitized) renames = true;
    this.renames = renames;
  }

  /**
   * The mirror brought up to `context`: its first `context.length` turns never change afterwards (the
   * array itself keeps growing). `context` must only have grown since the last call or `reset`.
   */
  of(context: readonly Turn[]): readonly Turn[] {
    // A context shorter than the mirror was replaced without a reset: convert it again rather than send a stale one.
    if (this.mirror.length > context.length) this.mirror = [];
    const mirror = this.mirror;
    if (this.renames) for (let i = mirror.length; i < context.length; i++) mirror.push(renameCalls(context[i], this.names.toModel));
    else for (let i = mirror.length; i < context.length; i++) mirror.push(context[i]);
    return mirror;
  }

  /** Forgets the mirror; call it when the context was replaced rather than grown. Never truncates it: see the class. */
  reset(): void {
    this.mirror = [];
  }
}

/**
 * Gives `request` its `messages`: the first `length` turns of `mirror` (a `ModelView` mirror, whose
 * first `length` turns never change), copied into a fresh array the first time they are read and that
 * same array on every read after. So `messages` is the invoker's to keep, exactly as if it had been
 * copied when the request was made, while an invoker that never reads it (an in-process model) costs
 * no copy of the context: on a long conversation that copy was most of a step's garbage. The property
 * is own, enumerable and writable, so a spread (`{ ...request }`) and `JSON.stringify` see it as they
 * would a plain one.
 */
export function defineMessages(request: object, mirror: readonly Turn[], length: number): void {
  // One accessor pair for every request and the state in private fields stamped on the request (see
  // `SentTurns`): a getter closed over each request's own state would leave every request in
  // dictionary mode, and slow to build and to read.
  Object.defineProperty(request, 'messages', SentTurns.descriptor);
  new SentTurns(request, mirror, length);
}

// A base class whose constructor returns the object it is given: a subclass's private fields are then
// added to that object (a plain request), which gets no prototype, no visible property, nothing else.
class Stamped {
  constructor(target: object) {
    return target as Stamped;
  }
}

class SentTurns extends Stamped {
  readonly #mirror: readonly Turn[];
  readonly #length: number;
  #messages: Turn[] | undefined;

  constructor(target: object, mirror: readonly Turn[], length: number) {
    super(target);
    this.#mirror = mirror;
    this.#length = length;
  }

  static readonly descriptor: PropertyDescriptor = {
    enumerable: true,
    configurable: true,
    get(this: SentTurns): Turn[] {
      return (this.#messages ??= this.#mirror.slice(0, this.#length));
    },
    set(this: SentTurns, value: Turn[]) {
      this.#messages = value;
    },
  };
}

/** The reply with the model's (sanitized) tool names mapped back to the original ones. */
export function withOriginalNames(turn: Turn, names: ToolNameMap): Turn {
  return renameCalls(turn, names.toOriginal);
}

// Unknown names pass through unchanged, so a call to a tool that does not exist round-trips as the model wrote it.
function renameCalls(turn: Turn, map: ReadonlyMap<string, string>): Turn {
  let blocks: Block[] | undefined;
  for (let i = 0; i < turn.blocks.length; i++) {
    const block = turn.blocks[i];
    if (block.kind !== 'tool_call') continue;
    const name = map.get(block.name);
    if (name === undefined || name === block.name) continue;
    blocks ??= turn.blocks.slice();
    blocks[i] = { ...block, name };
  }
  return blocks ? { role: turn.role, blocks } : turn;
}
