import headless from '@xterm/headless';
import { describe, expect, it } from 'vitest';
import { TerminalScreen } from './terminal-screen.js';

const bytes = (text: string) => new TextEncoder().encode(text);

/** What a fresh terminal of the same size shows after being given `data`: its visible lines. */
async function render(data: Uint8Array, cols: number, rows: number): Promise<string[]> {
  const terminal = new headless.Terminal({ cols, rows, allowProposedApi: true });
  await new Promise<void>((resolve) => terminal.write(data, resolve));
  const buffer = terminal.buffer.active;
  const lines = [];
  for (let y = 0; y < rows; y++) lines.push(buffer.getLine(buffer.viewportY + y)?.translateToString(true) ?? '');
  const cursor = [buffer.cursorX, buffer.cursorY];
  terminal.dispose();
  return [...lines, `cursor ${cursor.join(',')} ${buffer.type}`];
}

describe('a terminal screen', () => {
  it('reads back the visible screen as text, colours and cursor moves gone', async () => {
    const screen = new TerminalScreen(30, 4, () => undefined);
    screen.write(bytes('one\r\n\x1b[31mtwo\x1b[0m   \r\n\x1b[4;3HDo you want to proceed?'));
    await screen.settled();
    expect(screen.lines()).toEqual(['one', 'two', '', '  Do you want to proceed?']);
    screen.dispose();
    expect(screen.lines()).toEqual([]);
  });

  it('snapshots what the output drew, so a fresh terminal shows the same screen', async () => {
    const screen = new TerminalScreen(20, 5, () => undefined);
    const output = bytes('$ ls\r\na  b  c\r\n$ vi x\r\n\x1b[?1049h\x1b[2J\x1b[H~\r\n~\r\n\x1b[5;1H"x" [New]\x1b[1;1H');
    screen.write(output);
    await screen.settled();
    const snapshot = screen.snapshot();
    expect(snapshot.offset).toBe(output.length);
    expect(await render(snapshot.data, 20, 5)).toEqual(await render(output, 20, 5));
    expect((await render(snapshot.data, 20, 5)).at(-1)).toBe('cursor 0,0 alternate');
    screen.dispose();
  });

  it('counts what is written and not yet parsed, and says when it caught up after falling behind', async () => {
    let caughtUp = 0;
    const screen = new TerminalScreen(80, 24, () => caughtUp++);
    screen.write(new Uint8Array(100 * 1024).fill(0x61));
    expect(screen.behind).toBe(true);
    await screen.settled();
    expect(screen.lag).toBe(0);
    expect(caughtUp).toBe(1);
    screen.dispose();
  });

  it('keeps a UTF-8 character split across two writes whole', async () => {
    const screen = new TerminalScreen(10, 2, () => undefined);
    const euro = bytes('€');
    screen.write(euro.subarray(0, 1));
    screen.write(euro.subarray(1));
    await screen.settled();
    expect((await render(screen.snapshot().data, 10, 2))[0]).toBe('€');
    screen.dispose();
  });
});
