import { describe, expect, it } from 'vitest';
import { StderrTail } from './stderr-tail.js';

describe('StderrTail', () => {
  it('is empty before anything is written', () => {
    expect(new StderrTail().text()).toBe('');
  });

  it('joins lines split across chunks, bytes or text', () => {
    const tail = new StderrTail();
    tail.push(new TextEncoder().encode('first li'));
    tail.push('ne\r\nsecond\n');
    tail.push('unfinished');
    expect(tail.text()).toBe('first line\nsecond\nunfinished');
  });

  it('decodes a UTF-8 character split between chunks', () => {
    const tail = new StderrTail();
    const bytes = new TextEncoder().encode('é\n');
    tail.push(bytes.slice(0, 1));
    tail.push(bytes.slice(1));
    expect(tail.text()).toBe('é');
  });

  it('keeps only the last lines and says how many it dropped', () => {
    const tail = new StderrTail(3, 100);
    for (let i = 1; i <= 10; i++) tail.push(`line ${i}\n`);
    expect(tail.text()).toBe('[7 earlier lines not kept]\nline 8\nline 9\nline 10');
  });

  it('cuts overlong lines, finished or not', () => {
    const tail = new StderrTail(5, 10);
    tail.push(`${'a'.repeat(50)}\n`);
    for (let i = 0; i < 100; i++) tail.push('b'.repeat(1000));
    expect(tail.text()).toBe(`${'a'.repeat(10)}…\n${'b'.repeat(10)}…`);
  });
});
