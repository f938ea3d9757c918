import type { Command } from './command.js';

/** Every `tether …` command, in the order `tether --help` lists them. */
export const COMMANDS: Command[] = [];
