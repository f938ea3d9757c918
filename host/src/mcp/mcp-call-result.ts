/**
 * Turns an MCP `tools/call` result into the text the model reads. Text content is kept as is;
 * binary content is summarised (the model cannot see it through a text tool result, and base64
 * would only burn context); embedded text resources are kept, headed by their URI.
 */
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import type { CallToolResult, ContentBlock } from '@modelcontextprotocol/sdk/types.js';
import type { McpCallResult } from './types.js';

/**
 * The most characters of output handed to the model, about 25k tokens: one tool result should
 * not fill a context window. The SDK already refuses a single stdio message over 10 MB.
 */
export const MAX_MCP_OUTPUT_CHARS = 100_000;

/** What `Client.callTool` resolves to: a current result, or the pre-2024-11 `toolResult` form. */
export type RawCallToolResult = Awaited<ReturnType<Client['callTool']>>;

export function toMcpCallResult(raw: RawCallToolResult): McpCallResult {
  if (!isCallToolResult(raw)) return { output: capOutput(stringify(raw.toolResult)), isError: false };
  let output = raw.content.map(describeContent).join('\n');
  // A tool with an output schema may answer only in structuredContent; the model still needs it.
  if (output === '' && raw.structuredContent !== undefined) output = stringify(raw.structuredContent);
  return { output: capOutput(output), isError: raw.isError === true };
}

export function describeContent(block: ContentBlock): string {
  switch (block.type) {
    case 'text':
      return block.text;
    case 'image':
    case 'audio':
      return `[${block.type} ${block.mimeType}, ${base64Bytes(block.data)} bytes]`;
    case 'resource_link':
      return `[resource link ${block.name}: ${block.uri}${block.mimeType ? ` (${block.mimeType})` : ''}]`;
    case 'resource': {
      const { resource } = block;
      const mime = resource.mimeType ? ` (${resource.mimeType})` : '';
      if ('text' in resource) return `[resource ${resource.uri}${mime}]\n${resource.text}`;
      return `[resource ${resource.uri}${mime}, ${base64Bytes(resource.blob)} bytes]`;
    }
  }
}

export function capOutput(output: string): string {
  if (output.length <= MAX_MCP_OUTPUT_CHARS) return output;
  const cut = output.length - MAX_MCP_OUTPUT_CHARS;
  return `${output.slice(0, MAX_MCP_OUTPUT_CHARS)}\n[output cut: ${cut} more characters]`;
}

function isCallToolResult(raw: RawCallToolResult): raw is CallToolResult {
  return Array.isArray(raw.content);
}

/** Decoded size of base64 text, without decoding it. */
function base64Bytes(data: string): number {
  const trimmed = data.replace(/\s/g, '');
  const padding = trimmed.endsWith('==') ? 2 : trimmed.endsWith('=') ? 1 : 0;
  return Math.max(0, Math.floor((trimmed.length * 3) / 4) - padding);
}

function stringify(value: unknown): string {
  return typeof value === 'string' ? value : (JSON.stringify(value, null, 2) ?? '');
}
