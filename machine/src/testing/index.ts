// Test doubles for code that uses this package: a PTY in memory.
export { FakePty, FakePtyPort } from '../terminal/fake-pty.js';
