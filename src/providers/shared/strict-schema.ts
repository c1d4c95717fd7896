// OpenAI's strict structured outputs take a subset of JSON Schema. Both ways to OpenAI (the Responses
// invoker, and an AI SDK OpenAI model) ask strict mode for a schema only when it fits.

/** Keywords strict mode does not take: a schema using any of them goes non-strict. */
const NOT_STRICT = [
  'allOf',
  'oneOf',
  'not',
  'if',
  'then',
  'else',
  'dependentRequired',
  'dependentSchemas',
  'patternProperties',
  'unevaluatedProperties',
  'unevaluatedItems',
  'propertyNames',
  'contains',
  'minContains',
  'maxContains',
  'minProperties',
  'maxProperties',
  'uniqueItems',
];

/**
 * `schema` as OpenAI's strict mode takes it, or undefined when it cannot. Strict mode wants every object
 * to list all its properties as required and to forbid others (`additionalProperties: false`), down
 * through properties, items, `anyOf` and definitions, and no keyword it lacks (`NOT_STRICT`). An object
 * that leaves `additionalProperties` unset (as zod's input schemas do) is closed in the copy returned:
 * that admits no answer the schema refuses, and the conductor validates against the schema as given. An
 * optional property, or an object that allows others, is not changed: strict mode is then not asked.
 */
export function strictFit(schema: object): Record<string, unknown> | undefined {
  const closed = close(schema) as Record<string, unknown>;
  return strictSchema(closed) ? closed : undefined;
}

/** Whether strict mode takes `schema` as it is (see `strictFit`). */
export function strictSchema(schema: unknown): boolean {
  if (!isNode(schema)) return false;
  if (NOT_STRICT.some((keyword) => keyword in schema)) return false;
  if (describesObject(schema)) {
    if (schema.additionalProperties !== false) return false;
    const required = Array.isArray(schema.required) ? schema.required : [];
    if (!Object.keys((schema.properties ?? {}) as object).every((key) => required.includes(key))) return false;
  }
  return subschemas(schema).every(strictSchema);
}

/** Whether the schema is of one object (the root OpenAI takes for a JSON answer). */
export function isObjectSchema(schema: Record<string, unknown>): boolean {
  const type = schema.type;
  return type === 'object' || (Array.isArray(type) && type.length === 1 && type[0] === 'object');
}

/** A copy of `schema` with `additionalProperties: false` on each object that leaves it unset, where strict mode looks. */
function close(schema: unknown): unknown {
  if (!isNode(schema)) return schema;
  const copy: Record<string, unknown> = { ...schema };
  if (describesObject(copy) && !('additionalProperties' in copy)) copy.additionalProperties = false;
  const map = (record: unknown) =>
    isNode(record) ? Object.fromEntries(Object.entries(record).map(([key, value]) => [key, close(value)])) : record;
  if (copy.properties !== undefined) copy.properties = map(copy.properties);
  if (copy.items !== undefined) copy.items = Array.isArray(copy.items) ? copy.items.map(close) : close(copy.items);
  if (Array.isArray(copy.prefixItems)) copy.prefixItems = copy.prefixItems.map(close);
  if (Array.isArray(copy.anyOf)) copy.anyOf = copy.anyOf.map(close);
  if (copy.$defs !== undefined) copy.$defs = map(copy.$defs);
  if (copy.definitions !== undefined) copy.definitions = map(copy.definitions);
  return copy;
}

function subschemas(node: Record<string, unknown>): unknown[] {
  return [
    ...Object.values((node.properties ?? {}) as object),
    ...(Array.isArray(node.items) ? node.items : node.items !== undefined ? [node.items] : []),
    ...(Array.isArray(node.prefixItems) ? node.prefixItems : []),
    ...(Array.isArray(node.anyOf) ? node.anyOf : []),
    ...Object.values((node.$defs ?? {}) as object),
    ...Object.values((node.definitions ?? {}) as object),
  ];
}

function describesObject(node: Record<string, unknown>): boolean {
  return isObjectSchema(node) || node.properties !== undefined;
}

function isNode(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}
