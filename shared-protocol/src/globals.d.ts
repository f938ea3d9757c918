// The few runtime globals shared-protocol relies on, declared by hand so that neither the DOM
// library nor @types/node enters this package's build: both browsers and Node provide them.

declare class TextEncoder {
  encode(input?: string): Uint8Array;
}

declare class TextDecoder {
  constructor(label?: string, options?: { fatal?: boolean; ignoreBOM?: boolean });
  decode(input?: Uint8Array): string;
}

declare function setTimeout(callback: () => void, ms?: number): unknown;
declare function clearTimeout(handle: unknown): void;
declare function queueMicrotask(callback: () => void): void;

/** WHATWG URL, the part the relay address helpers use. */
declare class URL {
  constructor(url: string, base?: string);
  readonly protocol: string;
  readonly host: string;
  readonly pathname: string;
  readonly username: string;
  readonly password: string;
}
