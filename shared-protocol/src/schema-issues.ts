import type * as v from 'valibot';

/** `mcpServers.github.args[0]`; keys that are not plain words are quoted. */
function issuePath(path: readonly { key: unknown }[] | undefined): string {
  let out = '';
  for (const item of path ?? []) {
    const key = item.key;
    if (typeof key === 'number') out += `[${key}]`;
    else if (typeof key === 'string' && /^[A-Za-z0-9_$-]+$/.test(key)) out += out === '' ? key : `.${key}`;
    else out += `[${JSON.stringify(String(key))}]`;
  }
  return out;
}

/**
 * Schema issues in words a person (or a model) can act on: `path: message; …`, every issue at once
 * so one fix covers them all, at most `max` of them so a badly wrong input stays readable.
 */
export function describeIssues(issues: readonly v.BaseIssue<unknown>[], max = 5): string {
  const shown = issues.slice(0, max).map((issue) => {
    const path = issuePath(issue.path);
    return path === '' ? issue.message : `${path}: ${issue.message}`;
  });
  const more = issues.length - shown.length;
  return shown.join('; ') + (more > 0 ? ` (and ${more} more)` : '');
}
