/**
 * True when `value` (parsed JSON) nests objects or arrays more than `max` levels deep. Walked with a
 * stack of its own, not by recursion: a body 120k levels deep fits in well under a megabyte, and
 * anything recursive over it (JSON.stringify, a schema check) overflows the call stack.
 */
export function nestedDeeperThan(value: unknown, max: number): boolean {
  const stack: Array<[unknown, number]> = [[value, 0]];
  while (stack.length > 0) {
    const [item, depth] = stack.pop()!;
    if (typeof item !== 'object' || item === null) continue;
    if (depth + 1 > max) return true;
    for (const child of Array.isArray(item) ? item : Object.values(item)) {
      if (typeof child === 'object' && child !== null) stack.push([child, depth + 1]);
    }
  }
  return false;
}
