import { describe, expect, it } from 'vitest';
import { MASK, maskSecrets } from './secret-mask.js';
import { looksRandom } from './secret-shapes.js';

/** Each case: a text, and every secret in it that must not be shown. */
const SECRETS: [string, ...string[]][] = [
  ['curl -H "Authorization: Bearer sk-live-abc123def456" https://api.example.com', 'sk-live-abc123def456'],
  ["curl -H 'Authorization: token ghp_x1y2z3w4v5u6t7s8r9q0'", 'ghp_x1y2z3w4v5u6t7s8r9q0'],
  ['curl -H "Proxy-Authorization: Basic dXNlcjpwYXNz" x', 'dXNlcjpwYXNz'],
  ['curl -H "X-Api-Key: live4fa9e2" -H "Cookie: session=s3ss10n-v4lue" x', 'live4fa9e2', 's3ss10n-v4lue'],
  ['http POST example.com bearer eyJhbGciOiJIUzI1NiJ9', 'eyJhbGciOiJIUzI1NiJ9'],
  ['mysql -u root password=hunter2 db', 'hunter2'],
  ['psql "host=db user=me PASSWORD=Tr0ub4dor&3"', 'Tr0ub4dor'],
  ['deploy --token abcd1234 --env prod', 'abcd1234'],
  ['export API_KEY=zz9-plural-z-alpha', 'zz9-plural-z-alpha'],
  ['PGPASSWORD=hunter2 psql -h db', 'hunter2'],
  ['git clone https://me:s3cr3t-pat@github.com/me/repo', 's3cr3t-pat'],
  ['psql postgres://app:Pg-p4ss@db.internal/app', 'Pg-p4ss'],
  ['echo AKIAIOSFODNN7EXAMPLEwJalrXUtnFEMIK7MDENGbPxRfiCY', 'AKIAIOSFODNN7EXAMPLEwJalrXUtnFEMIK7MDENGbPxRfiCY'],
  // Each form the review found shown on a lock screen.
  ['curl -u admin:Sup3rS3cret https://api.example.com/v1', 'Sup3rS3cret'],
  ['curl --user admin:hunter22 -X POST x', 'hunter22'],
  ['curl -uadmin:gl0bal-pw x', 'gl0bal-pw'],
  ['curl --user="ops:qu0ted pw" x', 'qu0ted pw'],
  ['mysql -u root -pS3cretPass appdb', 'S3cretPass'],
  ['sudo mysqldump -uroot -pdumpPass1 --all-databases', 'dumpPass1'],
  ['mysql --password=S3cretPass appdb', 'S3cretPass'],
  ["sshpass -p 'my pass word' ssh deploy@web1", 'my pass word'],
  ['sshpass -pAnotherOne ssh web2', 'AnotherOne'],
  ['redis-cli -h cache -a R3disPass ping', 'R3disPass'],
  ['redis-cli --pass R3disPass ping', 'R3disPass'],
  ['gh api --access-token t0kenValue /user', 't0kenValue'],
  ['az login --service-principal --client-secret cl1entS3cret -t tenant', 'cl1entS3cret'],
  ['tool --client-secret=s3cr3tValue --db-password pw9 --api-key=k3y', 's3cr3tValue', 'pw9', 'k3y'],
  ['docker login -u me -p Passw0rd registry.example.com', 'Passw0rd'],
  ['ldapsearch -x -D cn=admin -w LdapPass1 -b dc=example', 'LdapPass1'],
  ['smbclient //srv/share -U alice%Sm6Pass', 'Sm6Pass'],
  ['openssl pkcs12 -in a.p12 -passin pass:P12pass', 'P12pass'],
  // Token shapes, however short their surroundings.
  ['echo AKIAIOSFODNN7EXAMPLE', 'AKIAIOSFODNN7EXAMPLE'],
  ['git push https://x-access-token:ghs_16C7e42F292c6912E7710c838347Ae178B4a@github.com/o/r', 'ghs_16C7e42F292c6912E7710c838347Ae178B4a'], // prettier-ignore
  ['use github_pat_11ABCDEFG0123456789_abcdefghij for it', 'github_pat_11ABCDEFG0123456789_abcdefghij'],
  ['SLACK=xoxb-1234-5678-abcdefgh notify', 'xoxb-1234-5678-abcdefgh'],
  ['stripe charges list --api-key sk_live_4eC39HqLyjWDarjtT1zdp7dc', 'sk_live_4eC39HqLyjWDarjtT1zdp7dc'],
  ['anthropic sk-ant-api03-abcdefghijklmnopqrstuv', 'sk-ant-api03-abcdefghijklmnopqrstuv'],
  ['key AIzaSyA1b2C3d4E5f6G7h8I9j0K1l2M3n4O5p6Q', 'AIzaSyA1b2C3d4E5f6G7h8I9j0K1l2M3n4O5p6Q'],
  ['auth eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiIxMjM0NTY3ODkwIn0.dozjgNryP4J3jVmNHl0w5N', 'eyJzdWIiOiIxMjM0NTY3ODkwIn0'],
  [
    'printf "-----BEGIN OPENSSH PRIVATE KEY-----\nb3BlbnNzaC1rZXk\n-----END OPENSSH PRIVATE KEY-----"',
    'b3BlbnNzaC1rZXk',
  ],
  // A session title is the task's first line, written by a person.
  ['Deploy the site with token ghp_aB3dE6gH9jK2mN5pQ8sT1vW4yZ7bC0eF3hJ6 and password hunter2', 'ghp_aB3dE6gH9jK2mN5pQ8sT1vW4yZ7bC0eF3hJ6', 'hunter2'], // prettier-ignore
  ['the admin password is swordfish, use it', 'swordfish'],
];

describe('secrets masked for the lock screen', () => {
  it.each(SECRETS)('masks every secret in %s', (text, ...secrets) => {
    const out = maskSecrets(text);
    expect(out.masked).toBe(true);
    for (const secret of secrets) expect(out.text).not.toContain(secret);
    expect(out.text).toContain(MASK);
  });

  it.each([
    'ls -la',
    'npm test -- --reporter=dot',
    'cat /usr/local/lib/node_modules/typescript/lib/typescript.js',
    'git commit -m "Authorization flow explained"',
    'git commit -m "Fix the password reset page"',
    'rm -rf node_modules/.cache',
    'echo internationalisation_considerations',
    'git checkout 3f2c1a9',
    'mkdir -p src/components && ssh -p 2222 build-box uptime',
    'docker run -p 8080:80 -u 1000:1000 nginx',
    'curl -s http://127.0.0.1:8080/health',
    'docker login --password-stdin -u me registry.example.com',
    'gcloud auth print-access-token --token-file creds.json',
    'mysql -p appdb',
  ])('leaves %s as it is', (action) => {
    expect(maskSecrets(action)).toEqual({ text: action, masked: false });
  });

  it('keeps the rest of the command readable', () => {
    expect(maskSecrets('curl -H "Authorization: Bearer abc.def.ghi" https://x.test/a').text).toBe(
      `curl -H "Authorization: Bearer ${MASK}" https://x.test/a`,
    );
    expect(maskSecrets('curl -u admin:Sup3rS3cret https://x.test').text).toBe(`curl -u admin:${MASK} https://x.test`);
    expect(maskSecrets("sshpass -p 'a b' ssh h").text).toBe(`sshpass -p '${MASK}' ssh h`);
  });

  it('tells a key from a word or a path', () => {
    expect(looksRandom('9f86d081884c7d659a2feaa0c55ad015a3bf4f1b2b0b822cd15d6c15b0f00a08')).toBe(true);
    expect(looksRandom('supercalifragilisticexpialidocious')).toBe(false);
    expect(looksRandom('src/components/settings/panel2/index.tsx')).toBe(false);
  });

  it.each([
    ['named values', `${'password='.repeat(20_000)}${'a1'.repeat(50_000)}`],
    ['flag names', `curl --${'pass-'.repeat(20_000)}! ${'-u '.repeat(20_000)}`],
    ['program words', `${'mysql '.repeat(30_000)}${'-p'.repeat(10_000)}`],
    ['header names', `x-${'key'.repeat(30_000)} ${'a-'.repeat(30_000)}`],
    ['spaces', `password${' '.repeat(100_000)}Authorization${' '.repeat(100_000)}`],
    ['quotes', `"${'a'.repeat(100_000)} '${'b '.repeat(50_000)}`],
    ['schemes', `${'a.'.repeat(50_000)}://${'b:'.repeat(20_000)}`],
  ])('stays linear on hostile %s', (_what, hostile) => {
    // About 200 KB each: linear work is well under a second even on a loaded machine; a quadratic
    // pattern takes tens of seconds here (the URL pattern before this one did).
    const started = performance.now();
    maskSecrets(hostile);
    expect(performance.now() - started).toBeLessThan(3000);
  });
});
