export * from './manual-clock.js';
export * from './seeded-random.js';
export * from './mutations.js';
export * from './fake-host.js';
export * from './scripted-random.js';
export * from './vectors.js';
export * from './fuzz-budget.js';
export * from './machine-link-vectors.js';
