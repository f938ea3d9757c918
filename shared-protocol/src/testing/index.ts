export * from './manual-clock.js';
export * from './seeded-random.js';
