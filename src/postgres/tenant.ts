import { checkText } from '../memory/options.js';
import { PostgresOptionsError } from './errors.js';

/** A store's `tenant` option: undefined (the default tenant) or a non-empty string PostgreSQL text can hold. */
export function checkTenant(tenant: unknown): string | undefined {
  if (tenant === undefined) return undefined;
  if (typeof tenant !== 'string' || tenant === '')
    throw new PostgresOptionsError(`tenant must be a non-empty string, got ${JSON.stringify(tenant)}.`);
  try {
    checkText(tenant, 'tenant');
  } catch (error) {
    throw new PostgresOptionsError((error as Error).message);
  }
  return tenant;
}
