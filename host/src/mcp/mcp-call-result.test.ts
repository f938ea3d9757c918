import { describe, expect, it } from 'vitest';
import { MAX_MCP_OUTPUT_CHARS, toMcpCallResult } from './mcp-call-result.js';

describe('toMcpCallResult', () => {
  it('joins text content with newlines and keeps isError', () => {
    expect(
      toMcpCallResult({
        content: [
          { type: 'text', text: 'one' },
          { type: 'text', text: 'two' },
        ],
        isError: true,
      }),
    ).toEqual({ output: 'one\ntwo', isError: true });
  });

  it('summarises binary content with its type and decoded size', () => {
    const data = Buffer.alloc(1234).toString('base64');
    const result = toMcpCallResult({
      content: [
        { type: 'image', mimeType: 'image/png', data },
        { type: 'audio', mimeType: 'audio/wav', data: Buffer.alloc(5).toString('base64') },
        { type: 'resource_link', name: 'notes', uri: 'file:///notes.md', mimeType: 'text/markdown' },
        { type: 'resource', resource: { uri: 'file:///a.txt', text: 'hello' } },
        { type: 'resource', resource: { uri: 'file:///b.bin', mimeType: 'application/zip', blob: 'AAAA' } },
      ],
    });
    expect(result).toEqual({
      isError: false,
      output: [
        '[image image/png, 1234 bytes]',
        '[audio audio/wav, 5 bytes]',
        '[resource link notes: file:///notes.md (text/markdown)]',
        '[resource file:///a.txt]\nhello',
        '[resource file:///b.bin (application/zip), 3 bytes]',
      ].join('\n'),
    });
  });

  it('falls back to structuredContent and to the old toolResult form', () => {
    expect(toMcpCallResult({ content: [], structuredContent: { n: 1 } }).output).toBe('{\n  "n": 1\n}');
    expect(toMcpCallResult({ toolResult: 'plain' })).toEqual({ output: 'plain', isError: false });
  });

  it('cuts output past the limit and says how much', () => {
    const result = toMcpCallResult({ content: [{ type: 'text', text: 'x'.repeat(MAX_MCP_OUTPUT_CHARS + 10) }] });
    expect(result.output.startsWith('x'.repeat(MAX_MCP_OUTPUT_CHARS))).toBe(true);
    expect(result.output.endsWith('\n[output cut: 10 more characters]')).toBe(true);
  });
});
