import { editFileTool, listDirTool, readFileTool, writeFileTool } from './file-tools.js';
import { searchTool } from './search-tool.js';
import { shellTool } from './shell-tool.js';
import type { AnyTool } from './tool.js';
import { asAnyTool } from './tool.js';

/** The tools every agent session has, besides those of MCP servers. */
export const BUILTIN_TOOLS: readonly AnyTool[] = [
  asAnyTool(shellTool),
  asAnyTool(readFileTool),
  asAnyTool(writeFileTool),
  asAnyTool(editFileTool),
  asAnyTool(listDirTool),
  asAnyTool(searchTool),
];
