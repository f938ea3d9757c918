/**
 * A small built app, as the servers of the app load it (path under the app's folder → text): a
 * page, a service worker, a manifest, a file of an unknown kind, and a hashed script big enough
 * to be precompressed. Tests write it to a folder and add the compressed forms they need.
 */
export const APP_FIXTURE_SCRIPT = 'export const words = ["approve", "deny", "session"];\n'.repeat(100);

export const APP_FIXTURE: Readonly<Record<string, string>> = {
  'index.html': '<!doctype html><title>Tether</title>',
  'sw.js': 'self.addEventListener("fetch", () => {});',
  'manifest.webmanifest': '{"name":"Tether"}',
  'notes.xyz': 'plain',
  'assets/app-1.js': APP_FIXTURE_SCRIPT,
};

/** A fetch `Response`, the part `describeResponse` reads. */
interface FetchedResponse {
  status: number;
  headers: { get(name: string): string | null };
  text(): Promise<string>;
}

/** What a response to a request for an app file says, header by header, and its body as text. */
export async function describeResponse(r: FetchedResponse) {
  return {
    status: r.status,
    type: r.headers.get('content-type'),
    cache: r.headers.get('cache-control'),
    vary: r.headers.get('vary'),
    encoding: r.headers.get('content-encoding'),
    body: await r.text(),
  };
}
