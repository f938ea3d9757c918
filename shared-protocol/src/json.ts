import { utf8Decode, utf8Encode } from './encoding.js';

/** JSON.parse that never throws: undefined for invalid JSON or invalid UTF-8. */
export function parseJson(text: string): { value: unknown } | undefined {
  try {
    return { value: JSON.parse(text) as unknown };
  } catch {
    return undefined;
  }
}

export function parseJsonBytes(bytes: Uint8Array): { value: unknown } | undefined {
  const text = utf8Decode(bytes);
  return text === undefined ? undefined : parseJson(text);
}

export function jsonBytes(value: unknown): Uint8Array {
  return utf8Encode(JSON.stringify(value));
}
