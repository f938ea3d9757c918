// The host's layers: the one place they are written down. The boundary check refuses an import
// that climbs from a lower layer to a higher one, and docs/architecture.md shows this list
// (written from it by `npm run boundaries -- --write-docs`, and checked against it by a test).

/** A layer of `host/src`: its folders (or top-level files) and why none of them imports upwards. */
export interface HostLayer {
  name: string;
  /** Top-level folders (`cli`) and files (`host.ts`) of `host/src`. */
  folders: readonly string[];
  /** Why this layer never imports one above it. */
  why: string;
}

/** From the top down. Folders of one layer may use each other, but never in a loop. */
export const HOST_LAYERS: readonly HostLayer[] = [
  { name: 'the face', folders: ['cli'], why: 'the commands a person types: nothing in the host calls them' },
  {
    name: 'the host and its wiring',
    folders: ['host.ts', 'wiring'],
    why: 'it builds every part below it once, in dependency order; only the face starts it',
  },
  {
    name: 'transports',
    folders: ['remote', 'relay', 'control'],
    why: 'a transport hands connections to the gateway and calls to the handlers; the wiring builds it, it never reaches back',
  },
  {
    name: 'the gateway',
    folders: ['gateway'],
    why: 'the gateway takes any transport, so it knows none of them',
  },
  {
    name: 'the surfaces',
    folders: ['rpc', 'share', 'push'],
    why: "what a handler needs of a part above it (the gateway's pairing, the control socket's caller) it declares itself (`GatewayControl`, `ControlCaller`), and that part fits it",
  },
  {
    name: 'sessions',
    folders: ['sessions'],
    why: 'a session knows no transport, and handlers call the session core, never the other way',
  },
  {
    name: 'execution',
    folders: ['terminals', 'machines', 'tools', 'mcp', 'plugins', 'git', 'power'],
    why: 'execution is what a run is given: a terminal is a byte stream the gateway subscribes to (`streams/` holds the stream type), machines are execution and not devices, tools and plugins are called by the loop and never call it, and handlers call terminals and machines, never the other way',
  },
  {
    name: 'the ground',
    folders: [
      'store',
      'models',
      'config',
      'stats',
      'streams',
      'blobs',
      'crypto',
      'ids.ts',
      'version.ts',
      'schema-issues.ts',
    ],
    why: 'the ground uses nothing above it',
  },
];

const LAYER_OF = new Map(HOST_LAYERS.flatMap((layer, index) => layer.folders.map((f) => [f, index] as const)));

/** Why `from` may not import `to` (both top-level names under host/src), or undefined when it may. */
export function hostLayerRefusal(from: string, to: string): string | undefined {
  const below = LAYER_OF.get(from);
  const above = LAYER_OF.get(to);
  if (below === undefined || above === undefined || above >= below) return undefined;
  const layer = HOST_LAYERS[below]!;
  return `${layer.name} (${from}) is below ${HOST_LAYERS[above]!.name} (${to}): ${layer.why}`;
}

/** Whether a top-level folder or file of host/src has its place in a layer. */
export function hasHostLayer(folder: string): boolean {
  return LAYER_OF.has(folder);
}
