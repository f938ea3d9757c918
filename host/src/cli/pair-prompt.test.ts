import type { DeviceInfo, PairPage, Result } from '@tether/shared-protocol';
import { ok } from '@tether/shared-protocol';
import { PassThrough } from 'node:stream';
import { afterEach, describe, expect, it } from 'vitest';
import type { PairRequestInfo } from '../gateway/pairing-service.js';
import type { PairAnswers } from './pair-prompt.js';
import { PairPrompt } from './pair-prompt.js';

/** The prompt on plain streams (no PTY): what it printed, and what it allowed or denied. */
function setup() {
  const input = new PassThrough();
  const output = new PassThrough();
  let printed = '';
  output.on('data', (chunk: Buffer) => (printed += chunk.toString()));
  const prompt = new PairPrompt(input, output);
  const allowed: string[] = [];
  const granted: (readonly string[] | undefined)[] = [];
  const denied: string[] = [];
  const answers: PairAnswers = {
    allow: (id, scopes): Result<DeviceInfo> => {
      allowed.push(id);
      granted.push(scopes);
      return ok({
        id: `dev-${id}`,
        label: id,
        scopes: ['watch'],
        fingerprint: 'aaaa',
        createdAt: 0,
        lastSeenAt: null,
        revoked: false,
      });
    },
    deny: (id) => {
      denied.push(id);
      return ok({});
    },
  };
  const type = async (text: string) => {
    input.write(text);
    await new Promise((resolve) => setImmediate(resolve));
  };
  const since = (mark: number) => printed.slice(mark);
  return { prompt, answers, allowed, granted, denied, type, printed: () => printed, since };
}

function request(id: string, label: string, code: string, secure = true, page?: PairPage): PairRequestInfo {
  return {
    id,
    label,
    code,
    fingerprint: 'aaaa-bbbb-cccc-dddd-eeee',
    createdAt: 0,
    secure,
    page: page ?? { from: 'host', origin: secure ? 'https://laptop.tail1234.ts.net:7420' : 'http://192.168.1.20:7420' },
    scopes:
      secure && (page === undefined || page.from === 'host')
        ? ['watch', 'approve', 'chat', 'terminal']
        : ['watch', 'approve'],
  };
}

let open: PairPrompt | undefined;
afterEach(() => open?.close());

describe('PairPrompt', () => {
  it('asks one request at a time, naming its label and code, and allows on y', async () => {
    const s = setup();
    open = s.prompt;
    s.prompt.ask(request('p_1', 'iPhone · Safari', '482913'), s.answers);
    s.prompt.ask(request('p_2', 'Pixel · Chrome', '100200'), s.answers);
    expect(s.printed()).toContain("Pair 'iPhone · Safari'? code 482 913");
    expect(s.printed()).not.toContain('Pixel');
    await s.type('y\n');
    expect(s.allowed).toEqual(['p_1']);
    expect(s.printed()).toContain("Paired 'iPhone · Safari' (code 482 913)");
    expect(s.printed()).toContain("Pair 'Pixel · Chrome'? code 100 200");
    await s.type('\n');
    expect(s.denied).toEqual(['p_2']);
    expect(s.printed()).toContain("Denied 'Pixel · Chrome' (code 100 200)");
  });

  it('never lets a y typed for a withdrawn question land on the next request', async () => {
    const s = setup();
    open = s.prompt;
    s.prompt.ask(request('p_1', 'iPhone · Safari', '482913'), s.answers);
    s.prompt.ask(request('p_2', 'iPhone · Safari', '482914'), s.answers);
    // The first request is answered elsewhere (or gives up) while the person is about to type y.
    s.prompt.cancel('p_1');
    const mark = s.printed().length;
    expect(s.since(mark)).not.toContain('Pair ');
    expect(s.printed()).toContain("'iPhone · Safari' (code 482 913) was answered elsewhere or is no longer waiting");
    expect(s.printed()).toContain('Press Enter to go on to the next pair request');
    await s.type('y\n');
    expect(s.allowed).toEqual([]);
    expect(s.denied).toEqual([]);
    // The y was spent on the withdrawn question; only now is the next one asked, by name and code.
    expect(s.since(mark)).toContain("Pair 'iPhone · Safari'? code 482 914");
    await s.type('y\n');
    expect(s.allowed).toEqual(['p_2']);
  });

  it('after a withdrawn question, holds a new request until Enter', async () => {
    const s = setup();
    open = s.prompt;
    s.prompt.ask(request('p_1', 'iPad', '111111'), s.answers);
    s.prompt.cancel('p_1');
    const mark = s.printed().length;
    s.prompt.ask(request('p_2', 'Phone', '222222'), s.answers);
    expect(s.since(mark)).toContain('Another pair request is waiting: press Enter to see it.');
    expect(s.since(mark)).not.toContain("Pair 'Phone'");
    await s.type('\n');
    expect(s.since(mark)).toContain("Pair 'Phone'? code 222 222");
    expect(s.allowed).toEqual([]);
  });

  it('drops a queued request given up before it was asked, without asking it', async () => {
    const s = setup();
    open = s.prompt;
    s.prompt.ask(request('p_1', 'iPad', '111111'), s.answers);
    s.prompt.ask(request('p_2', 'Phone', '222222'), s.answers);
    s.prompt.cancel('p_2');
    await s.type('n\n');
    expect(s.denied).toEqual(['p_1']);
    expect(s.printed()).not.toContain("Pair 'Phone'");
  });

  it('says over plain HTTP what the device gets, and how to give it more at the computer', () => {
    const s = setup();
    open = s.prompt;
    s.prompt.ask(request('p_9', 'Phone', '333333', false), s.answers);
    expect(s.printed()).toContain('Over plain HTTP, allowed here this device gets only: watch, approve');
    expect(s.printed()).toContain('tether pair allow p_9 --scopes watch,approve,chat,terminal');
  });

  it('names the page the phone loaded the app from, as the host knows it', () => {
    const s = setup();
    open = s.prompt;
    s.prompt.ask(request('p_1', 'Phone', '111111'), s.answers);
    expect(s.printed()).toContain(
      'The phone loaded the app from this computer, https://laptop.tail1234.ts.net:7420 (its browser says so).',
    );
    expect(s.printed()).toContain('[y/N]');
    expect(s.printed()).not.toContain('Answer r');
  });

  it('for a relay’s page: says who decides what the app does, y allows watch and approve, r (I run this relay) allows more', async () => {
    const s = setup();
    open = s.prompt;
    const relay: PairPage = { from: 'relay', origin: 'https://relay.example.com', app: true };
    s.prompt.ask(request('p_1', 'iPhone · Safari', '482913', true, relay), s.answers);
    s.prompt.ask(request('p_2', 'iPad · Safari', '100200', true, relay), s.answers);
    expect(s.printed()).toContain(
      'The phone loaded the app from the relay at https://relay.example.com: the request came through it.',
    );
    expect(s.printed()).toContain('Whoever runs that relay decides what the app does on the phone.');
    expect(s.printed()).toContain('Allowed with y, this device gets only: watch, approve.');
    expect(s.printed()).toContain(
      'Answer r instead if you run this relay yourself: then it gets watch, approve, chat, terminal',
    );
    expect(s.printed()).toContain('does the phone show the same code? [y/r/N]');
    await s.type('y\n');
    expect(s.allowed).toEqual(['p_1']);
    expect(s.granted).toEqual([undefined]);
    await s.type('r\n');
    expect(s.allowed).toEqual(['p_1', 'p_2']);
    expect(s.granted[1]).toEqual(['watch', 'approve', 'chat', 'terminal']);
  });

  it('through a relay that serves no app: says a program holding the link sent it, and offers no r', async () => {
    const s = setup();
    open = s.prompt;
    // The person's own forward-only relay: no page of it could have sent this (its pages are 404s
    // and it answers no cross-origin pair request), whatever page showed the link.
    const forwarder: PairPage = { from: 'relay', origin: 'https://mine.example.com', app: false };
    s.prompt.ask(request('p_1', 'iPhone · Safari', '482913', true, forwarder), s.answers);
    expect(s.printed()).not.toContain('The phone loaded the app from the relay');
    expect(s.printed()).toContain('came through the relay at https://mine.example.com, which serves no app');
    expect(s.printed()).toContain('a program holding the pairing link sent it');
    expect(s.printed()).toContain('Allowed with y, this device gets only: watch, approve.');
    expect(s.printed()).toContain('tether pair allow p_1 --scopes watch,approve,chat,terminal');
    expect(s.printed()).not.toContain('Answer r');
    expect(s.printed()).toContain('does the phone show the same code? [y/N]');
    await s.type('r\n');
    expect(s.allowed).toEqual([]);
    expect(s.denied).toEqual(['p_1']);
  });

  it('takes r only where it was offered: on the host’s own page it denies, like any other answer', async () => {
    const s = setup();
    open = s.prompt;
    s.prompt.ask(request('p_1', 'Phone', '111111', false), s.answers);
    await s.type('r\n');
    expect(s.allowed).toEqual([]);
    expect(s.denied).toEqual(['p_1']);
  });

  it('shows a hostile origin with its hidden characters made visible', () => {
    const s = setup();
    open = s.prompt;
    s.prompt.ask(
      request('p_1', 'Phone', '111111', true, { from: 'other', origin: 'https://a.example\u001b[2J\u202eexe.moc' }),
      s.answers,
    );
    expect(s.printed()).not.toContain('\u001b[2J');
    expect(s.printed()).not.toContain('\u202e');
    expect(s.printed()).toContain('https://a.example⟨ESC⟩[2J');
    expect(s.printed()).toContain('Answer r instead if that site is yours');
  });
});
