import { PassThrough } from 'node:stream';
import { describe, expect, it } from 'vitest';
import type { PairRequestInfo } from '../../gateway/pairing-service.js';
import { StartReport } from './start-report.js';

function streams() {
  const stdout = new PassThrough();
  const stderr = new PassThrough();
  const read = (s: PassThrough) => () => (s.read() as Buffer | null)?.toString() ?? '';
  return { stdout, stderr, out: read(stdout), err: read(stderr) };
}

const request: PairRequestInfo = {
  id: 'p1',
  label: 'iPhone\u202e',
  code: '123456',
  fingerprint: 'ab:cd',
  createdAt: 1,
  secure: false,
  page: { from: 'none' },
  scopes: ['watch', 'approve'],
};

describe('StartReport', () => {
  it('with --json, prints one JSON object a line for each event', () => {
    const s = streams();
    const report = new StartReport({ stdout: s.stdout, stderr: s.stderr, json: true, relayOnly: false, tty: false });
    report.pairRequest(request);
    report.pairSettled('p1');
    report.notice({ level: 'warning', text: 'mcp server gone' });
    report.stopping('SIGINT');
    report.stopped();
    const lines = s
      .out()
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l) as Record<string, unknown>);
    expect(lines).toEqual([
      {
        event: 'pair.request',
        id: 'p1',
        label: 'iPhone\u202e',
        code: '123456',
        fingerprint: 'ab:cd',
        secure: false,
        page: { from: 'none' },
        scopes: ['watch', 'approve'],
      },
      { event: 'pair.settled', id: 'p1' },
      { event: 'notice', level: 'warning', text: 'mcp server gone' },
      { event: 'stopped' },
    ]);
    expect(s.err()).toBe('');
  });

  it('in text, tells the person how to allow a pair request, with its label made visible and what it gets', () => {
    const s = streams();
    const report = new StartReport({ stdout: s.stdout, stderr: s.stderr, json: false, relayOnly: false, tty: false });
    report.pairRequest(request);
    const text = s.out();
    expect(text).toContain('Pair request p1 from');
    expect(text).not.toContain('\u202e');
    expect(text).toContain('code 123 456');
    expect(text).toContain('tether pair allow p1 (over plain HTTP it gets only watch, approve;');
    report.notice({ level: 'info', text: 'line one\nline two' });
    expect(s.err()).toBe('[info] line one\nline two\n');
    report.stopping('SIGTERM');
    expect(s.out()).toBe('\nStopping (SIGTERM): interrupting runs and closing the store…\n');
  });

  it('says nothing of the relay before the host is attached', () => {
    const s = streams();
    const report = new StartReport({ stdout: s.stdout, stderr: s.stderr, json: true, relayOnly: true, tty: false });
    report.relayState({ name: 'linked' });
    expect(s.out()).toBe('');
  });
});
