import { describe, expect, it } from 'vitest';
import { messageBoxOffReason } from './device-scopes.js';

describe("the message box's reason to be off", () => {
  it('says what the device may do', () => {
    expect(messageBoxOffReason(['watch'])).toBe('This device may only watch');
    expect(messageBoxOffReason(['watch', 'approve'])).toBe(
      'This device may watch and answer approvals, not send messages',
    );
    expect(messageBoxOffReason(['watch', 'approve', 'chat'])).toBeUndefined();
    expect(messageBoxOffReason(['watch', 'chat', 'terminal'])).toBeUndefined();
  });
});
