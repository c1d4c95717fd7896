/** A thread's metadata with `changes` merged in, key by key; a key set to null is removed. */
export function mergeMetadata(current: Record<string, unknown>, changes: Record<string, unknown>): Record<string, unknown> {
  const merged = { ...current };
  for (const [key, value] of Object.entries(changes)) {
    if (value === null) delete merged[key];
    else merged[key] = value;
  }
  return merged;
}
