import { describe, expect, it } from 'vitest';
import { decodeEvent } from './events.js';
import {
  MAX_TERMINAL_OUTPUT_FRAME_BYTES,
  TERMINAL_OUTPUT_TAG,
  decodeTerminalOutput,
  encodeTerminalOutput,
  terminalOutputBytes,
} from './terminal-output-frame.js';

describe('binary terminal output', () => {
  it('carries the id, the offset and the bytes as they are', () => {
    const data = Uint8Array.of(0, 0x1b, 0x5b, 0xff, 0x0a);
    const plain = encodeTerminalOutput('t_ab:1', 2 ** 40 + 3, data);
    expect([...plain.subarray(0, 8)]).toEqual([TERMINAL_OUTPUT_TAG, 6, 0x74, 0x5f, 0x61, 0x62, 0x3a, 0x31]);
    expect(plain.length).toBe(2 + 6 + 8 + data.length);
    const decoded = decodeTerminalOutput(plain);
    expect(decoded).toEqual({ terminalId: 't_ab:1', offset: 2 ** 40 + 3, data });
    // The same event as a JSON one, its data as bytes: the event schema takes it.
    const event = decodeEvent({ type: 'terminal.output', ...decoded });
    expect(event.kind === 'event' && event.event).toMatchObject({ type: 'terminal.output', offset: 2 ** 40 + 3 });
    expect(terminalOutputBytes(data)).toBe(data);
    expect(terminalOutputBytes('AAE')).toEqual(Uint8Array.of(0, 1));
  });

  it('refuses what is not a well-formed message', () => {
    const good = encodeTerminalOutput('t1', 5, Uint8Array.of(1, 2));
    const broken = (edit: (bytes: Uint8Array) => Uint8Array) => decodeTerminalOutput(edit(good.slice()));
    expect(decodeTerminalOutput(new Uint8Array(0))).toBeUndefined();
    expect(broken((b) => ((b[0] = 0x7b), b))).toBeUndefined(); // JSON's first byte
    expect(broken((b) => ((b[1] = 0), b))).toBeUndefined(); // no id
    expect(broken((b) => ((b[1] = 65), b))).toBeUndefined(); // an id longer than any id, or than the frame
    expect(broken((b) => ((b[2] = 0x20), b))).toBeUndefined(); // a character no id has
    expect(broken((b) => b.subarray(0, 2 + 2 + 7))).toBeUndefined(); // the offset cut short
    expect(broken((b) => ((b[4] = 0xff), b))).toBeUndefined(); // an offset past 2^53
    const large = encodeTerminalOutput('t1', 0, new Uint8Array(MAX_TERMINAL_OUTPUT_FRAME_BYTES + 1));
    expect(decodeTerminalOutput(large)).toBeUndefined();
    expect(decodeTerminalOutput(good.subarray(0, 12))).toEqual({
      terminalId: 't1',
      offset: 5,
      data: new Uint8Array(0),
    });
  });

  it('is refused by the event schema with more bytes than an event holds', () => {
    const event = { type: 'terminal.output', terminalId: 't1', offset: 0, data: new Uint8Array(256 * 1024 + 1) };
    expect(decodeEvent(event).kind).not.toBe('event');
  });
});
