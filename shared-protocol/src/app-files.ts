import { APP_FILE_TYPES } from './app-headers.js';

/**
 * The app's files as every server of the app holds them (the host's remote-control listener, a
 * relay): read into memory once, at start, and answered from that map by Hono's `serveStatic`. No
 * request path ever reaches a file system: there is nothing to traverse.
 */

/** Content codings the build precompresses to (`<file>.br`, `<file>.gz`), in order of preference. */
export const APP_ENCODINGS = ['br', 'gzip'] as const;
export type AppEncoding = (typeof APP_ENCODINGS)[number];

/** The suffix of each coding's precompressed file, as `serveStatic` asks for it. */
export const APP_ENCODING_SUFFIX: Readonly<Record<AppEncoding, string>> = { br: '.br', gzip: '.gz' };

export interface AppFile {
  body: Uint8Array;
  type: string;
  /** Named by content hash (Vite's `assets/`): cacheable for good where the server allows it. */
  immutable: boolean;
  /** The same bytes compressed at build time, when that made them smaller. */
  encoded?: Partial<Record<AppEncoding, Uint8Array>>;
}

export type AppFiles = ReadonlyMap<string, AppFile>;

/** What the options need of a request's context: setting a response header. */
interface HeaderSetter {
  header(name: string, value: string): void;
}

/** `APP_FILE_TYPES` keyed as `serveStatic`'s `mimes` are: by extension without its dot. */
const MIMES: Record<string, string> = Object.fromEntries(
  Object.entries(APP_FILE_TYPES).map(([ext, type]) => [ext.slice(1), type]),
);

/**
 * The options of Hono's `serveStatic` (`hono/serve-static`) that serve `files`: `getContent` over
 * the map, and `precompressed`, which picks the first of brotli and gzip that the request accepts
 * and the file has. A compressed form is only ever handed out for the file just found for the same
 * request, so `x.br` is no path of its own. Each file gets its own Content-Type, `cacheControl`'s
 * answer, and `Vary: Accept-Encoding` when it has a compressed form, whichever form was sent.
 */
export function appFileOptions(files: AppFiles, cacheControl: (file: AppFile) => string) {
  const found = new WeakMap<object, { path: string; file: AppFile }>();
  const content = (path: string, c: object): Uint8Array | null => {
    const hit = found.get(c);
    if (hit) {
      const encoding = APP_ENCODINGS.find((e) => path === `${hit.path}${APP_ENCODING_SUFFIX[e]}`);
      return (encoding && hit.file.encoded?.[encoding]) || null;
    }
    const file = files.get(path);
    if (!file) return null;
    found.set(c, { path, file });
    return file.body;
  };
  return {
    root: '/',
    precompressed: true,
    mimes: MIMES,
    rewriteRequestPath: (path: string) => (path === '/' ? '/index.html' : path),
    getContent: (path: string, c: object) => Promise.resolve(content(path, c) as Uint8Array<ArrayBuffer> | null),
    onFound: (path: string, c: HeaderSetter) => {
      const file = files.get(path);
      if (!file) return;
      c.header('Content-Type', file.type);
      c.header('Cache-Control', cacheControl(file));
      if (file.encoded) c.header('Vary', 'Accept-Encoding');
    },
  };
}
