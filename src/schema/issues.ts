/**
 * One reason a value does not match its schema: where (a JSON Pointer, RFC 6901: `/address/zip`,
 * `/items/0`; empty for the value as a whole) and what is wrong.
 */
export type SchemaIssue = { path: string; message: string };

/** A JSON Pointer from path keys, escaping `~` and `/` inside keys as RFC 6901 says. */
export function pointerOf(keys: ReadonlyArray<PropertyKey>): string {
  let pointer = '';
  for (const key of keys) pointer += `/${String(key).replace(/~/g, '~0').replace(/\//g, '~1')}`;
  return pointer;
}

/** The issues as lines a model (or a person) can act on, one per issue: `- /city: expected string`. */
export function formatIssues(issues: readonly SchemaIssue[]): string {
  return issues.map((issue) => `- ${issue.path === '' ? '(the whole value)' : issue.path}: ${issue.message}`).join('\n');
}
