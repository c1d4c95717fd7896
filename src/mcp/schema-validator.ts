import type { jsonSchemaValidator } from '@modelcontextprotocol/sdk/validation/types.js';
import { compileJsonSchema, formatIssues } from '../schema/index.js';

// The SDK's JSON Schema checks through indusagi's validator, so a client does not build an Ajv of its
// own (milliseconds per connection); the client checks output schemas itself, with the same validator.
export const schemaValidator: jsonSchemaValidator = {
  getValidator<T>(schema: object) {
    const check = compileJsonSchema(schema, 'MCP schema');
    return (input: unknown) => {
      const issues = check(input);
      return issues.length === 0
        ? { valid: true as const, data: input as T, errorMessage: undefined }
        : { valid: false as const, data: undefined, errorMessage: formatIssues(issues) };
    };
  },
};
