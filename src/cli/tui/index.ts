// Terminal UI primitives the chat draws with: display width of text, a persistent screen with a
// differentially redrawn live region, and a list chosen from with the arrow keys.
export { clusterWidth, graphemes, padToWidth, textWidth, truncateToWidth } from './width.js';
export { Screen } from './screen.js';
export type { Frame, Printable, ScreenOutput } from './screen.js';
export { SelectList } from './select.js';
export type { Choice, SelectStyle } from './select.js';
