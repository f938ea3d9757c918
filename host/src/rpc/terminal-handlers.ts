import type { Methods, Result } from '@tether/shared-protocol';
import type * as v from 'valibot';
import { fail, ok } from '@tether/shared-protocol';
import type { StreamHost } from '../streams/stream-host.js';
import type { Caller } from './caller.js';
import type { Handler } from './dispatch.js';
import type { TerminalManager } from '../terminals/terminal-manager.js';

type TerminalMethod = Extract<keyof Methods, `terminals.${string}`>;
/** The methods that read and steer a terminal, the same for a device and for `tether run`. */
type StreamMethod = 'terminals.attach' | 'terminals.detach' | 'terminals.ack' | 'terminals.input' | 'terminals.resize';

/** Spelled out rather than `Handler<Methods[M], C>`, so one table serves both method tables. */
type StreamHandler<M extends StreamMethod, C> = (
  params: v.InferOutput<Methods[M]['params']>,
  caller: C,
) => Result<v.InferInput<Methods[M]['result']>>;

/** `terminals.*` for devices: thin views of the terminal manager. */
export function terminalHandlers(terminals: TerminalManager): {
  [M in TerminalMethod]: Handler<Methods[M], Caller>;
} {
  return {
    ...terminalStreamHandlers<Caller>(terminals, (caller) => caller.connection),
    'terminals.open': async (params) => {
      const opened = await terminals.open(params);
      return opened.ok ? ok({ terminalId: opened.value.id, terminal: opened.value }) : opened;
    },
    'terminals.close': ({ terminalId }) => {
      terminals.close(terminalId);
      return ok({});
    },
    'terminals.list': () => ok({ terminals: terminals.list() }),
  };
}

/**
 * Attaching, acknowledging, typing and resizing, for any caller with a live connection to read
 * the stream on (`connectionOf`): a device, or a `tether run`/`attach` on the control socket.
 */
export function terminalStreamHandlers<C>(
  terminals: TerminalManager,
  connectionOf: (caller: C) => StreamHost | undefined,
): { [M in StreamMethod]: StreamHandler<M, C> } {
  const needsConnection = fail('unsupported', 'terminals need a connection, not a one-shot call');
  return {
    'terminals.attach': ({ terminalId, after, screen, binary }, caller) => {
      const connection = connectionOf(caller);
      return connection ? terminals.attach(terminalId, connection, after, screen, binary) : needsConnection;
    },
    'terminals.detach': ({ terminalId }, caller) => {
      const connection = connectionOf(caller);
      if (connection) terminals.detach(terminalId, connection);
      return ok({});
    },
    'terminals.ack': ({ terminalId, offset }, caller) => {
      const connection = connectionOf(caller);
      if (!connection) return needsConnection;
      const acked = terminals.ack(terminalId, connection, offset);
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
  };
}
