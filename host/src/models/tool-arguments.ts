/**
 * A tool call's raw arguments as a JSON object. The APIs want tool inputs in the transcript to
 * be objects; arguments that are not one were already answered with a tool error by the loop, so
 * `{}` keeps the transcript valid without pretending the model said something else.
 */
export function parseToolInput(raw: string): Record<string, unknown> {
  try {
    const value: unknown = JSON.parse(raw);
    if (typeof value === 'object' && value !== null && !Array.isArray(value)) return value as Record<string, unknown>;
  } catch {
    // Malformed: fall through.
  }
  return {};
}

/** The raw arguments when they are a JSON object, else `{}`: the text form of parseToolInput. */
export function toolArgumentsText(raw: string): string {
  try {
    const value: unknown = JSON.parse(raw);
    if (typeof value === 'object' && value !== null && !Array.isArray(value)) return raw;
  } catch {
    // Malformed: fall through.
  }
  return '{}';
}
