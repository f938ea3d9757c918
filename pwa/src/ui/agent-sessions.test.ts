import { describe, expect, it } from 'vitest';
import { folderText, listingError } from './agent-sessions.js';

describe("an agent's earlier sessions on the new-session screen", () => {
  it('says where each ran, next to the folder asked about', () => {
    expect(folderText('/home/me/app', '/home/me/app')).toBe('this folder');
    expect(folderText('/home/me/app', '/home/me/app/web')).toBe('web');
    expect(folderText('/home/me/app/', '/home/me/app/web/src')).toBe('web/src');
    expect(folderText('/home/me/app', '/home/me/apple')).toBe('/home/me/apple');
  });

  it('says why a listing failed, and that an older computer cannot list them', () => {
    expect(listingError({ code: 'unknown-method', message: 'unknown method agents.sessions' }, 'Claude Code')).toBe(
      "This computer's Tether cannot list an agent's sessions yet: update it.",
    );
    expect(listingError({ code: 'unavailable', message: 'it exited with code 1' }, 'Claude Code')).toBe(
      "Could not list Claude Code's sessions: it exited with code 1",
    );
  });
});
