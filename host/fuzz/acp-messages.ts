import type { AcpWorld } from './acp-world.js';
import type { FuzzKit } from './fuzz-kit.js';

/**
 * What a hostile ACP agent sends its client, as JSON values before they become lines: every kind
 * of `session/update` with odd fields, `session/request_permission` with odd options and tool
 * calls, `fs/*` and `terminal/*` requests with hostile params, and things that are not requests
 * at all. Values are built to pass the SDK's schemas often (so the client's own code is reached)
 * and to fail them sometimes.
 */
export class AcpMessages {
  /** Terminal ids the client gave out, for later terminal requests. */
  readonly terminals: string[] = [];

  constructor(
    private readonly k: FuzzKit,
    private readonly world: AcpWorld,
    private readonly sessionId: () => string,
  ) {}

  /** A request (it has an id) or a notification. */
  next(id: number): { method: string; params: unknown; request: boolean } {
    const k = this.k;
    const roll = k.random();
    if (roll < 0.45) return { method: 'session/update', params: this.update(), request: false };
    if (roll < 0.57) return { method: 'session/request_permission', params: this.permission(), request: true };
    if (roll < 0.67) return { method: 'fs/read_text_file', params: this.read(), request: true };
    if (roll < 0.75) return { method: 'fs/write_text_file', params: this.write(), request: true };
    if (roll < 0.85) return { method: 'terminal/create', params: this.terminal(), request: true };
    if (roll < 0.95) {
      const method = k.pick(['terminal/output', 'terminal/wait_for_exit', 'terminal/kill', 'terminal/release']);
      const terminalId =
        this.terminals.length > 0 && k.chance(0.8) ? k.pick(this.terminals) : k.pick(['term_x', '', '__proto__']);
      return { method, params: { sessionId: this.sessionId(), terminalId }, request: true };
    }
    const method = k.pick([
      'session/prompt',
      'session/new',
      'nope',
      '',
      'fs/delete',
      'session/cancel',
      'terminal/create',
    ]);
    return { method, params: k.pick([{}, null, [], 'x', { sessionId: id }]), request: k.chance(0.7) };
  }

  /** Large values are few: each costs the whole pipeline (JSON, the SDK's checks, the log) dearly. */
  private big(n: number): number {
    return this.k.chance(0.01) ? n : this.k.pick([1, 10, 200]);
  }

  private text(): string {
    const k = this.k;
    return k.pick([
      'hello',
      '',
      'line one\nline two',
      '\u001b[31mred\u001b[0m \u202eevil\u202c \u200b',
      'x'.repeat(this.big(140_000)),
      '\ud800 lone',
      '<script>alert(1)</script>',
      'ü'.repeat(50),
    ]);
  }

  private block(): unknown {
    const k = this.k;
    return k.pick([
      { type: 'text', text: this.text() },
      { type: 'image', data: 'AAAA', mimeType: k.pick(['image/png', '', 'x'.repeat(300)]) },
      { type: 'audio', data: 'AAAA', mimeType: 'audio/wav' },
      { type: 'resource_link', uri: k.pick(['file:///etc/passwd', 'javascript:alert(1)', '']), name: this.text() },
      { type: 'resource', resource: { uri: 'file:///x', text: this.text() } },
      { type: 'resource', resource: { uri: 'file:///x', blob: 'AAAA' } },
      { type: 'nope', text: 'x' },
    ]);
  }

  private toolContent(): unknown[] {
    const k = this.k;
    const items = Array.from({ length: k.int(4) }, () =>
      k.pick([
        { type: 'content', content: this.block() },
        {
          type: 'diff',
          path: k.pick(this.world.paths()),
          oldText: k.pick([null, 'old\n', undefined]),
          newText: this.text(),
        },
        { type: 'terminal', terminalId: this.terminals.length > 0 ? k.pick(this.terminals) : 'term_none' },
      ]),
    );
    return k.chance(0.002)
      ? Array.from({ length: 3000 }, () => items[0] ?? { type: 'content', content: this.block() })
      : items;
  }

  private toolCallId(): string {
    return this.k.pick(['call_1', 'call_2', `call_${this.k.int(2000)}`, '', 'x'.repeat(500), '__proto__']);
  }

  private toolFields(): Record<string, unknown> {
    const k = this.k;
    const fields: Record<string, unknown> = { toolCallId: this.toolCallId() };
    if (k.chance(0.7)) fields.title = this.text();
    if (k.chance(0.7))
      fields.kind = k.pick(['read', 'edit', 'delete', 'move', 'search', 'execute', 'think', 'fetch', 'other', 'bogus']);
    if (k.chance(0.6)) fields.status = k.pick(['pending', 'in_progress', 'completed', 'failed', 'weird']);
    if (k.chance(0.5)) fields.content = this.toolContent();
    if (k.chance(0.4)) {
      fields.locations = Array.from({ length: this.big(200) }, () => ({
        path: k.pick(this.world.paths()),
        ...(k.chance(0.5) ? { line: k.pick([0, 1, -5, 1.5, 2 ** 53]) } : {}),
      }));
    }
    if (k.chance(0.5)) fields.rawInput = this.rawInput();
    if (k.chance(0.2)) fields.rawOutput = { out: this.text() };
    if (k.chance(0.2)) fields.name = k.pick(['shell', 'write_file', 'Read', 'a b/c', '']);
    return fields;
  }

  private rawInput(): unknown {
    const k = this.k;
    return k.pick([
      { command: k.pick(['echo hi', 'rm -rf /', 'ls\nrm -rf ~', '', '   ']) },
      { command: ['sh', '-c', 'echo hi'] },
      { command: ['ls', '-la', "it's"] },
      { cmd: 'make' },
      { command: 5 },
      { path: k.pick(this.world.paths()) },
      'text',
      null,
      Array.from({ length: this.big(5000) }, (_, i) => i),
    ]);
  }

  private update(): unknown {
    const k = this.k;
    const roll = k.random();
    let update: Record<string, unknown>;
    if (roll < 0.25) update = { sessionUpdate: 'agent_message_chunk', content: this.block() };
    else if (roll < 0.5) update = { sessionUpdate: k.pick(['tool_call', 'tool_call_update']), ...this.toolFields() };
    else if (roll < 0.6) {
      update = {
        sessionUpdate: 'plan',
        entries: Array.from({ length: k.chance(0.1) ? 0 : this.big(300) }, () => ({
          content: this.text(),
          priority: k.pick(['high', 'medium', 'low', 'urgent']),
          status: k.pick(['pending', 'in_progress', 'completed', 'done']),
        })),
      };
    } else if (roll < 0.7) {
      update = {
        sessionUpdate: 'notice',
        severity: k.pick(['info', 'warning', 'error', 'fatal']),
        title: this.text(),
        description: k.chance(0.5) ? this.text() : undefined,
      };
    } else {
      update = k.pick<Record<string, unknown>>([
        { sessionUpdate: 'agent_thought_chunk', content: this.block() },
        { sessionUpdate: 'user_message_chunk', content: this.block() },
        { sessionUpdate: 'available_commands_update', availableCommands: [{ name: 'x', description: 'y' }] },
        { sessionUpdate: 'current_mode_update', currentModeId: 'plan' },
        { sessionUpdate: 'usage_update', used: 5, size: 10 },
        { sessionUpdate: 'session_info_update', title: this.text() },
        { sessionUpdate: 'nope' },
        {},
      ]);
    }
    return { sessionId: this.sessionId(), update };
  }

  private permission(): unknown {
    const k = this.k;
    const kinds = ['allow_once', 'allow_always', 'reject_once', 'reject_always'];
    const options = Array.from({ length: k.pick([0, 1, 2, 3, 4, 4, 4, 6]) }, (_, i) => ({
      optionId: k.pick([`o${i}`, `o${i}`, 'same', '', 'x'.repeat(200)]),
      name: k.pick(['Allow', 'Reject', '', this.text()]),
      kind: k.chance(0.9) ? k.pick(kinds) : 'maybe',
    }));
    return { sessionId: this.sessionId(), toolCall: this.toolFields(), options };
  }

  private read(): unknown {
    const k = this.k;
    return {
      sessionId: this.sessionId(),
      path: k.pick(this.world.paths()),
      ...(k.chance(0.3) ? { line: k.pick([0, 1, 2, -1, 1e9, 1.5, null]) } : {}),
      ...(k.chance(0.3) ? { limit: k.pick([0, 1, 5, -3, 1e9, null]) } : {}),
    };
  }

  private write(): unknown {
    const k = this.k;
    return {
      sessionId: this.sessionId(),
      path: k.pick(this.world.paths()),
      content: k.pick(['new text\n', '', 'x'.repeat(k.chance(0.05) ? this.big(3 * 1024 * 1024) : 10)]),
    };
  }

  private terminal(): unknown {
    const k = this.k;
    const env = Array.from({ length: k.chance(0.5) ? 0 : k.chance(0.5) ? 1 : this.big(300) }, () => ({
      name: k.pick(['FOO', 'BASH_ENV', 'LD_PRELOAD', 'ld_preload', 'PATH', 'BASH_FUNC_f%%', '', 'A=B', 'NODE_OPTIONS']),
      value: k.pick(['1', './x.sh', '', 'x'.repeat(this.big(40_000))]),
    }));
    return {
      sessionId: this.sessionId(),
      command: k.pick([
        'echo hi',
        'ls',
        'sh',
        '',
        '   ',
        'rm -rf /',
        'x'.repeat(this.big(200_000)),
        'echo "$(cat ~/.ssh/id_rsa)"',
      ]),
      ...(k.chance(0.4)
        ? { args: k.pick([[], ['-c', 'echo hi'], ['a b', "it's"], Array.from({ length: this.big(5000) }, () => 'a')]) }
        : {}),
      ...(env.length > 0 || k.chance(0.1) ? { env } : {}),
      ...(k.chance(0.3) ? { cwd: k.pick([...this.world.paths(), 'sub', '..', null]) } : {}),
      ...(k.chance(0.2) ? { outputByteLimit: k.pick([0, 1, 10, -1, 1e12]) } : {}),
    };
  }
}
