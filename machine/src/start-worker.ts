import type { ResourceLimits } from 'node:worker_threads';
import { Worker } from 'node:worker_threads';
import { fileURLToPath } from 'node:url';

/**
 * Starts the worker module `name`, which sits next to this file. Built, that is `name.js` in
 * `dist`. Run from the sources (under vitest or tsx) this file is itself `.ts`, and a worker
 * thread cannot load TypeScript on its own, so the worker first loads tsx (a development
 * dependency, installed wherever the sources are run) and imports the module through it, with
 * this package's tsconfig.json, whose paths lead to the sources of shared-protocol too (as vitest's
 * aliases do), not to its build.
 */
export function startWorker(name: string, workerData: unknown, resourceLimits: ResourceLimits): Worker {
  const here = import.meta.url;
  // None of this process's Node flags: a worker needs none, and some (--input-type) stop a file
  // worker from loading at all.
  const common = { workerData, resourceLimits, execArgv: [] };
  if (!here.endsWith('.ts')) return new Worker(new URL(`./${name}.js`, here), common);
  const tsx = import.meta.resolve('tsx/esm/api');
  const entry = new URL(`./${name}.ts`, here).href;
  const options = { parentURL: here, tsconfig: fileURLToPath(new URL('../tsconfig.json', here)) };
  const boot = `import(${JSON.stringify(tsx)}).then((tsx) => tsx.tsImport(${JSON.stringify(entry)}, ${JSON.stringify(options)}));`;
  return new Worker(boot, { ...common, eval: true });
}
