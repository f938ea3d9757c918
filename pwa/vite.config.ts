import { fileURLToPath } from 'node:url';
import preact from '@preact/preset-vite';
import { defineConfig } from 'vite';
import { VitePWA } from 'vite-plugin-pwa';
import { precompressPlugin } from './scripts/precompress.js';

/**
 * The theme colour is the top bar's (`--surface` in src/styles/base.css), so that a browser's or an
 * installed app's status bar runs into it, as iOS's translucent one does. A manifest holds one
 * colour, the light scheme's; index.html's theme-color metas give it for light and `--surface` of
 * the dark scheme for dark. The background (`--bg`) colours the splash screen. A browser test
 * (e2e/tests/app-layout.spec.ts) fails when these drift apart.
 */
const THEME_COLOUR = '#ffffff';
/** Modules that only define things (see rolldownOptions below). */
const SIDE_EFFECT_FREE = /[\\/](node_modules[\\/]tweetnacl|shared-protocol[\\/]src)[\\/]/;
const BACKGROUND_COLOUR = '#f6f7f9';

export default defineConfig({
  // Relative asset paths: the same build is served at `/` by the host and from any path by a relay.
  base: './',
  resolve: {
    // Bundled from source, so the app never depends on shared-protocol having been built first.
    alias: [
      {
        find: /^@tether\/shared-protocol$/,
        replacement: fileURLToPath(new URL('../shared-protocol/src/index.ts', import.meta.url)),
      },
    ],
  },
  build: {
    target: 'es2022',
    outDir: 'dist',
    emptyOutDir: true,
    // Every browser the app supports knows modulepreload; the polyfill would only cost bytes.
    modulePreload: { polyfill: false },
    // No data: URLs for assets: everything is a file the service worker precaches.
    assetsInlineLimit: 0,
    rolldownOptions: {
      // Neither shared-protocol (its modules only define things) nor tweetnacl (CommonJS that only
      // fills in its exports) has side effects. Said so, the bundler places each of their modules
      // with the code that uses it: otherwise everything the shared-protocol index re-exports
      // lands where the index does (the first chunk), and tweetnacl with any importer of a constant.
      // The sealed channel and its crypto then load after the first screen (connection-kit.ts).
      treeshake: { moduleSideEffects: (id: string) => !SIDE_EFFECT_FREE.test(id) },
    },
  },
  plugins: [
    preact({ prerender: { enabled: false } }),
    VitePWA({
      strategies: 'injectManifest',
      srcDir: 'src',
      filename: 'sw.ts',
      // Registered by the app itself, and only in a secure context (where it can work).
      injectRegister: false,
      // The icons are already among globPatterns' files; listing them twice would duplicate entries.
      includeManifestIcons: false,
      manifest: {
        id: './',
        name: 'Tether',
        short_name: 'Tether',
        description: 'Follow and steer the coding agents running on your computers.',
        start_url: './',
        scope: './',
        display: 'standalone',
        orientation: 'any',
        theme_color: THEME_COLOUR,
        background_color: BACKGROUND_COLOUR,
        icons: [
          { src: 'icons/icon-192.png', sizes: '192x192', type: 'image/png', purpose: 'any' },
          { src: 'icons/icon-512.png', sizes: '512x512', type: 'image/png', purpose: 'any' },
          { src: 'icons/maskable-512.png', sizes: '512x512', type: 'image/png', purpose: 'maskable' },
        ],
      },
      injectManifest: {
        // A classic worker script: module service workers are newer than some iOS versions in use.
        rollupFormat: 'iife',
        globPatterns: ['**/*.{js,css,html,png,webmanifest}'],
        // The QR decoder is the biggest file; still precached so "Add a computer" works offline.
        maximumFileSizeToCacheInBytes: 1024 * 1024,
      },
    }),
    precompressPlugin(),
  ],
});
