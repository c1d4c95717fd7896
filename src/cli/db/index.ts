// Database administration commands.
export { runDb } from './migrate.js';
