import { describe, expect, it } from 'vitest';
import type { CappedSocket } from './socket-cap.js';
import { SocketCap } from './socket-cap.js';

let nextPort = 40_000;

/** A socket as the cap sees one, with its timer run by hand. */
class FakeSocket implements CappedSocket {
  readonly remotePort = nextPort++;
  destroyed = false;
  timeoutMs = 0;
  private onTimeout: (() => void) | undefined;
  private onClose: (() => void) | undefined;

  constructor(readonly remoteAddress: string) {}

  setTimeout(ms: number, onTimeout?: () => void): void {
    this.timeoutMs = ms;
    if (onTimeout) this.onTimeout = onTimeout;
  }

  /** The idle timer fires (whatever set it last). */
  idle(): void {
    if (this.timeoutMs > 0) this.onTimeout?.();
  }

  destroy(): void {
    if (this.destroyed) return;
    this.destroyed = true;
    this.onClose?.();
  }

  once(_event: 'close', listener: () => void): void {
    this.onClose = listener;
  }
}

function cap(perRange = 2, uncapped?: (address: string) => boolean) {
  const seen = { refused: 0, silent: 0 };
  const c = new SocketCap({
    perRange,
    firstByteMs: 5_000,
    ...(uncapped ? { uncapped } : {}),
    onRefused: () => seen.refused++,
    onSilent: () => seen.silent++,
  });
  const open = (address: string) => {
    const socket = new FakeSocket(address);
    c.admit(socket);
    return socket;
  };
  return { cap: c, seen, open };
}

describe('the socket cap', () => {
  it('holds each address range to its share, closing one more at once, and makes room as sockets close', () => {
    const { cap: c, seen, open } = cap(2);
    const [a, b] = [open('2001:db8:1:2::1'), open('2001:db8:1:2::ffff')];
    const third = open('2001:db8:1:2:3:4:5:6');
    expect([a.destroyed, b.destroyed, third.destroyed]).toEqual([false, false, true]);
    expect(seen.refused).toBe(1);
    // Other ranges are untouched: another /64, an IPv4 address, NAT64 clients by what they embed.
    for (const other of ['2001:db8:1:3::1', '192.0.2.1', '64:ff9b::198.51.100.1', '64:ff9b::198.51.100.2']) {
      expect(open(other).destroyed).toBe(false);
    }
    expect(open('::ffff:192.0.2.1').destroyed).toBe(false);
    expect(open('192.0.2.1').destroyed).toBe(true);
    a.destroy();
    expect(open('2001:db8:1:2::9').destroyed).toBe(false);
    expect(c.size).toBe(7);
  });

  it('never caps an uncapped peer (a trusted proxy)', () => {
    const { seen, open } = cap(1, (address) => address === '10.0.0.2');
    const sockets = Array.from({ length: 10 }, () => open('10.0.0.2'));
    expect(sockets.some((s) => s.destroyed)).toBe(false);
    expect(seen.refused).toBe(0);
  });

  it('closes a socket silent past the first-byte deadline, and only while it is silent', () => {
    const { cap: c, seen, open } = cap(8);
    const silent = open('192.0.2.7');
    const speaking = open('192.0.2.7');
    c.awaitFirstRequest(silent);
    c.awaitFirstRequest(speaking);
    expect(silent.timeoutMs).toBe(5_000);
    c.started(speaking);
    expect(speaking.timeoutMs).toBe(0);
    silent.idle();
    expect([silent.destroyed, seen.silent]).toEqual([true, 1]);
    // A later idle timeout the server sets itself (keep-alive) is not counted as silence.
    speaking.setTimeout(5_000);
    speaking.idle();
    expect(seen.silent).toBe(1);
  });

  it('forgets a released socket: its range has room again while it stays open', () => {
    const { cap: c, open } = cap(1);
    const upgraded = open('198.51.100.9');
    c.awaitFirstRequest(upgraded);
    c.release(upgraded);
    expect(upgraded.timeoutMs).toBe(0);
    expect(open('198.51.100.9').destroyed).toBe(false);
    // Its close later does not take room from the socket that replaced it.
    upgraded.destroy();
    expect(open('198.51.100.9').destroyed).toBe(true);
  });
});
