import type { Methods } from '@tether/shared-protocol';
import { fail, ok } from '@tether/shared-protocol';
import type { Caller } from '../rpc/caller.js';
import type { Handler } from '../rpc/dispatch.js';
import type { TerminalManager } from './terminal-manager.js';

type TerminalMethod = Extract<keyof Methods, `terminals.${string}`>;

/** `terminals.*` for devices: thin views of the terminal manager. */
export function terminalHandlers(terminals: TerminalManager): {
  [M in TerminalMethod]: Handler<Methods[M], Caller>;
} {
  const needsConnection = fail('unsupported', 'terminals need a connection, not a one-shot call');
  return {
    'terminals.open': async (params) => {
      const opened = await terminals.open(params);
      return opened.ok ? ok({ terminalId: opened.value.id, terminal: opened.value }) : opened;
    },
    'terminals.attach': ({ terminalId, after }, caller) =>
      caller.connection ? terminals.attach(terminalId, caller.connection, after) : needsConnection,
    'terminals.detach': ({ terminalId }, caller) => {
      if (caller.connection) terminals.detach(terminalId, caller.connection);
      return ok({});
    },
    'terminals.ack': ({ terminalId, offset }, caller) => {
      if (!caller.connection) return needsConnection;
      const acked = terminals.ack(terminalId, caller.connection, offset);
      return acked.ok ? ok({}) : acked;
    },
    // Never logged: what is typed into a shell may be a password.
    'terminals.input': ({ terminalId, data }) => {
      const written = terminals.input(terminalId, data);
      return written.ok ? ok({}) : written;
    },
    'terminals.resize': ({ terminalId, cols, rows }) => {
      const resized = terminals.resize(terminalId, cols, rows);
      return resized.ok ? ok({}) : resized;
    },
    'terminals.close': ({ terminalId }) => {
      terminals.close(terminalId);
      return ok({});
    },
    'terminals.list': () => ok({ terminals: terminals.list() }),
  };
}
