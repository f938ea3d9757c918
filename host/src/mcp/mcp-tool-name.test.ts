import { describe, expect, it } from 'vitest';
import { MAX_TOOL_NAME_CHARS, mcpToolName } from './mcp-tool-name.js';

describe('mcpToolName', () => {
  it('prefixes the server and keeps a valid tool name as is', () => {
    expect(mcpToolName('github', 'create_issue', new Set())).toBe('mcp__github__create_issue');
  });

  it('replaces characters model APIs refuse', () => {
    expect(mcpToolName('fs', 'read.file/v2 (fast)', new Set())).toBe('mcp__fs__read_file_v2__fast_');
  });

  it('cuts to 64 characters', () => {
    const name = mcpToolName('s', 'x'.repeat(100), new Set());
    expect(name).toHaveLength(MAX_TOOL_NAME_CHARS);
    expect(name.startsWith('mcp__s__xxx')).toBe(true);
  });

  it('adds a suffix on a clash, staying within 64 characters', () => {
    const taken = new Set(['mcp__a__b__c']);
    expect(mcpToolName('a__b', 'c', taken)).toBe('mcp__a__b__c_2');
    taken.add('mcp__a__b__c_2');
    expect(mcpToolName('a', 'b.c', new Set(['mcp__a__b_c']))).toBe('mcp__a__b_c_2');
    expect(mcpToolName('a', 'b__c', taken)).toBe('mcp__a__b__c_3');

    const long = mcpToolName('s', 'y'.repeat(100), new Set());
    const next = mcpToolName('s', 'y'.repeat(90), new Set([long]));
    expect(next).toHaveLength(MAX_TOOL_NAME_CHARS);
    expect(next.endsWith('_2')).toBe(true);
  });
});
