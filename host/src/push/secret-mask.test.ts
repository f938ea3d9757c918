import { describe, expect, it } from 'vitest';
import { MASK, looksRandom, maskSecrets } from './secret-mask.js';

describe('secrets masked for the lock screen', () => {
  it.each([
    ['curl -H "Authorization: Bearer sk-live-abc123def456" https://api.example.com', 'sk-live-abc123def456'],
    ["curl -H 'Authorization: token ghp_x1y2z3w4v5u6t7s8r9q0'", 'ghp_x1y2z3w4v5u6t7s8r9q0'],
    ['curl -H "Proxy-Authorization: Basic dXNlcjpwYXNz" x', 'dXNlcjpwYXNz'],
    ['http POST example.com bearer eyJhbGciOiJIUzI1NiJ9', 'eyJhbGciOiJIUzI1NiJ9'],
    ['mysql -u root password=hunter2 db', 'hunter2'],
    ['psql "host=db user=me PASSWORD=Tr0ub4dor&3"', 'Tr0ub4dor'],
    ['deploy --token abcd1234 --env prod', 'abcd1234'],
    ['export API_KEY=zz9-plural-z-alpha', 'zz9-plural-z-alpha'],
    ['git clone https://me:s3cr3t-pat@github.com/me/repo', 's3cr3t-pat'],
    ['echo AKIAIOSFODNN7EXAMPLEwJalrXUtnFEMIK7MDENGbPxRfiCY', 'AKIAIOSFODNN7EXAMPLEwJalrXUtnFEMIK7MDENGbPxRfiCY'],
  ])('masks the secret in %s', (action, secret) => {
    const out = maskSecrets(action);
    expect(out.masked).toBe(true);
    expect(out.text).not.toContain(secret);
    expect(out.text).toContain(MASK);
  });

  it.each([
    'ls -la',
    'npm test -- --reporter=dot',
    'cat /usr/local/lib/node_modules/typescript/lib/typescript.js',
    'git commit -m "Authorization flow explained"',
    'rm -rf node_modules/.cache',
    'echo internationalisation_considerations',
    'git checkout 3f2c1a9',
  ])('leaves %s as it is', (action) => {
    expect(maskSecrets(action)).toEqual({ text: action, masked: false });
  });

  it('keeps the rest of the command readable', () => {
    expect(maskSecrets('curl -H "Authorization: Bearer abc.def.ghi" https://x.test/a').text).toBe(
      `curl -H "Authorization: Bearer ${MASK}" https://x.test/a`,
    );
  });

  it('tells a key from a word or a path', () => {
    expect(looksRandom('9f86d081884c7d659a2feaa0c55ad015a3bf4f1b2b0b822cd15d6c15b0f00a08')).toBe(true);
    expect(looksRandom('supercalifragilisticexpialidocious')).toBe(false);
    expect(looksRandom('src/components/settings/panel2/index.tsx')).toBe(false);
  });

  it('stays linear on hostile input', () => {
    const hostile = `${'password='.repeat(20_000)}${'a1'.repeat(50_000)}`;
    const started = performance.now();
    maskSecrets(hostile);
    expect(performance.now() - started).toBeLessThan(500);
  });
});
