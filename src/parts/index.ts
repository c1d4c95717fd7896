export type { AgentPart, AgentTextPart, AgentToolPart, AgentMemoryPart, AgentContextPart } from './types.js';
