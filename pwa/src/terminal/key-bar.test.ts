import { describe, expect, it } from 'vitest';
import { KeyBarState, controlCharacter, keySequence } from './key-bar.js';

describe('the key bar', () => {
  it('turns a key into its control character while Ctrl is on', () => {
    expect(controlCharacter('c')).toBe('\x03');
    expect(controlCharacter('C')).toBe('\x03');
    expect(controlCharacter('[')).toBe('\x1b');
    expect(controlCharacter('d')).toBe('\x04');
    expect(controlCharacter('é')).toBeUndefined();
  });

  it('applies a one-shot Ctrl to the next key only', () => {
    const bar = new KeyBarState();
    expect(bar.tap('ctrl')).toBe('once');
    expect(bar.apply('c')).toBe('\x03');
    expect(bar.state('ctrl')).toBe('off');
    expect(bar.apply('c')).toBe('c');
  });

  it('keeps a locked Ctrl on until it is tapped again', () => {
    const bar = new KeyBarState();
    bar.tap('ctrl');
    expect(bar.tap('ctrl')).toBe('locked');
    expect(bar.apply('a')).toBe('\x01');
    expect(bar.apply('e')).toBe('\x05');
    expect(bar.tap('ctrl')).toBe('off');
    expect(bar.apply('a')).toBe('a');
  });

  it('sends Alt as an escape prefix, with Ctrl too', () => {
    const bar = new KeyBarState();
    bar.tap('alt');
    expect(bar.apply('b')).toBe('\x1bb');
    bar.tap('alt');
    bar.tap('ctrl');
    expect(bar.apply('x')).toBe('\x1b\x18');
  });

  it('leaves a paste alone and the modifier armed', () => {
    const bar = new KeyBarState();
    bar.tap('ctrl');
    expect(bar.apply('ls -la')).toBe('ls -la');
    expect(bar.state('ctrl')).toBe('once');
  });

  it('sends arrows the way the program asked for', () => {
    expect(keySequence('up', false)).toBe('\x1b[A');
    expect(keySequence('up', true)).toBe('\x1bOA');
    expect(keySequence('esc', false)).toBe('\x1b');
    expect(keySequence('tab', false)).toBe('\t');
  });

  it('uses a one-shot modifier up on a bar key', () => {
    const bar = new KeyBarState();
    bar.tap('ctrl');
    expect(bar.applyKey('\x1b[A')).toBe('\x1b[A');
    expect(bar.state('ctrl')).toBe('off');
    bar.tap('alt');
    expect(bar.applyKey('\x1b[A')).toBe('\x1b\x1b[A');
  });
});
