// Test doubles for code that uses this package: a PTY in memory.
export { FakePty, FakePtyPort } from '../terminal/fake-pty.js';
export {
  CREDENTIAL_FILES,
  CREDENTIAL_NEEDLE,
  LISTED_IN_CONFIG,
  LISTED_IN_HOME,
  writeCredentialHome,
} from './credential-home.js';
