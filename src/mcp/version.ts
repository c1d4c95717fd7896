/**
 * This package's version, for the name a client or server gives in the handshake. A constant rather
 * than package.json read at run time, so it survives bundling; tests/mcp/config.test.ts keeps it equal
 * to package.json's.
 */
export const PACKAGE_VERSION = '0.1.0';
