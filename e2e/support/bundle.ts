import { build } from 'vite';

/** Bundles a module (and what it imports, as built packages) into one script for a page. */
export async function bundleForPage(entry: string, globalName: string): Promise<string> {
  const output = await build({
    configFile: false,
    logLevel: 'silent',
    build: {
      write: false,
      minify: false,
      lib: { entry, formats: ['iife'], name: globalName, fileName: () => 'bundle.js' },
    },
  });
  const results = Array.isArray(output) ? output : [output];
  for (const result of results) {
    if (!('output' in result)) continue;
    for (const chunk of result.output) if (chunk.type === 'chunk') return chunk.code;
  }
  throw new Error(`bundling ${entry} produced no script`);
}
