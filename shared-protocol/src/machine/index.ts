export * from './machine-limits.js';
export * from './link-aead.js';
export * from './link-frame.js';
export * from './link-handshake.js';
export * from './link-peer.js';
export * from './link-open.js';
export * from './machine-methods.js';
