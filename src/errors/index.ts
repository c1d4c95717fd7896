export { IndusagiError, errorMessage } from './base.js';
