export { IndusagiError, isErrorNamed } from './base.js';
