import type { OptionSpec } from './args.js';

/** `--name VALUE`, given once. */
export function valueOption(name: string, value: string, description: string): OptionSpec {
  return { name, type: 'string', value, description };
}

/** `--name VALUE`, given as many times as wanted. */
export function repeatedOption(name: string, value: string, description: string): OptionSpec {
  return { name, type: 'list', value, description };
}

/** `--name`, which takes no value. */
export function flagOption(name: string, description: string): OptionSpec {
  return { name, type: 'boolean', description };
}
