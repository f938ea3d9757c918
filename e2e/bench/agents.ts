// `npm run bench -- agents`: what Tether and each real ACP adapter (Claude Code, Codex, Gemini CLI;
// pinned in e2e/package.json) add between a person and the model. Needs the built host (`npm run build`).
// Prints figures; asserts nothing (timings vary with the machine).
//
// Per adapter, one real host (`tether start`) and a loopback stand-in for the model API the adapter
// calls, driven through the control CLI as a person at the computer would, ROUNDS times:
//   first text   from `tether sessions new --agent …` to the first streamed text in the session's
//                log (the adapter's process starting, its session, the model's first chunk)
//   command      from `tether approve ID allow` to the command's output reaching the model (the
//                approval answered, the command run in the session folder, the adapter's next call)
// The command writes a file, so every adapter asks for it (Gemini CLI runs a bare `echo` unasked).
// And, as the baseline, the same stand-in called directly from here: a streamed request read to
// its first text, and the command run with `/bin/sh -c` and its output posted back.
import { spawnSync } from 'node:child_process';
import { join } from 'node:path';
import type { AgentEntry } from '../support/acp-adapters.js';
import { claudeCodeAgent, codexAgent, geminiAgent } from '../support/acp-adapters.js';
import { nthApproval, runEnd, startAdapterHost } from '../support/adapter-host.js';
import type { AnthropicStandIn } from '../support/anthropic-stand-in.js';
import { startAnthropicStandIn } from '../support/anthropic-stand-in.js';
import type { GeminiStandIn } from '../support/gemini-stand-in.js';
import { startGeminiStandIn } from '../support/gemini-stand-in.js';
import type { ModelScript, ModelStep } from '../support/model-script.js';
import type { ResponsesStandIn } from '../support/responses-stand-in.js';
import { startResponsesStandIn } from '../support/responses-stand-in.js';

const ROUNDS = 5;

interface Adapter {
  name: string;
  title: string;
  model: AnthropicStandIn | ResponsesStandIn | GeminiStandIn;
  entry: (dir: string) => AgentEntry;
  /** The model's step that runs `command` with the adapter's tool for it. */
  run: (command: string) => ModelStep;
  /** One streamed request straight to the stand-in, read to its first text: milliseconds. */
  directFirstText: () => Promise<number>;
  /** The body that posts a command's output back to the stand-in, as the adapter would. */
  resultBody: (output: string) => unknown;
  path: string;
  /** What a streamed chunk with text holds, to know the answer has begun. */
  textMarker: string;
}

const median = (values: number[]) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)]!;

/** Milliseconds from sending `body` to the first chunk of the streamed answer holding `marker`. */
async function firstChunk(url: string, body: unknown, marker: string): Promise<number> {
  const start = performance.now();
  const response = await fetch(url, {
    method: 'POST',
    headers: { 'content-type': 'application/json', 'x-api-key': 'stand-in', authorization: 'Bearer stand-in' },
    body: JSON.stringify(body),
  });
  const reader = response.body!.getReader();
  const decoder = new TextDecoder();
  let text = '';
  for (;;) {
    const { value, done } = await reader.read();
    if (done) throw new Error('the stream ended without text');
    text += decoder.decode(value, { stream: true });
    if (text.includes(marker)) {
      const ms = performance.now() - start;
      await reader.cancel();
      return ms;
    }
  }
}

const tools = [{ name: 'bash', description: 'run a command', input_schema: { type: 'object' } }];

async function main(): Promise<void> {
  const anthropic = await startAnthropicStandIn();
  const responses = await startResponsesStandIn();
  const gemini = await startGeminiStandIn();
  const geminiPath = `${gemini.url}/v1beta/models/stand-in:streamGenerateContent?alt=sse`;
  const geminiTools = [{ functionDeclarations: [{ name: 'run_shell_command' }] }];
  const adapters: Adapter[] = [
    {
      name: 'claude-code',
      title: 'Claude Code',
      model: anthropic,
      entry: (dir) => claudeCodeAgent(anthropic, join(dir, 'claude-home')),
      run: (command) => ({ tool: 'mcp__acp__Bash', input: { command, timeout: 60_000, description: 'Run it' } }),
      path: `${anthropic.url}/v1/messages`,
      textMarker: 'text_delta',
      directFirstText: () =>
        firstChunk(
          `${anthropic.url}/v1/messages`,
          { model: 'm', max_tokens: 100, stream: true, tools, messages: [{ role: 'user', content: 'hi' }] },
          'text_delta',
        ),
      resultBody: (output) => ({
        model: 'm',
        max_tokens: 100,
        stream: true,
        tools,
        messages: [{ role: 'user', content: [{ type: 'tool_result', tool_use_id: 't', content: output }] }],
      }),
    },
    {
      name: 'codex',
      title: 'Codex',
      model: responses,
      entry: (dir) => codexAgent(responses, dir),
      run: (command) => ({
        tool: 'exec_command',
        input: { cmd: command, sandbox_permissions: 'require_escalated', justification: 'May I run it?' },
      }),
      path: `${responses.url}/responses`,
      textMarker: 'output_text.delta',
      directFirstText: () =>
        firstChunk(
          `${responses.url}/responses`,
          { model: 'm', stream: true, tools: [{ type: 'function', name: 'x' }], input: 'hi' },
          'output_text.delta',
        ),
      resultBody: (output) => ({
        model: 'm',
        stream: true,
        tools: [{ type: 'function', name: 'x' }],
        input: [{ type: 'function_call_output', call_id: 'c', output }],
      }),
    },
    {
      name: 'gemini',
      title: 'Gemini CLI',
      model: gemini,
      entry: (dir) => geminiAgent(gemini, join(dir, 'gemini-home')),
      run: (command) => ({ tool: 'run_shell_command', input: { command, description: 'Run it' } }),
      path: geminiPath,
      textMarker: '"text"',
      directFirstText: () =>
        firstChunk(geminiPath, { contents: [{ role: 'user', parts: [{ text: 'hi' }] }], tools: geminiTools }, 'text'),
      resultBody: (output) => ({
        tools: geminiTools,
        contents: [
          { role: 'user', parts: [{ functionResponse: { name: 'run_shell_command', response: { output } } }] },
        ],
      }),
    },
  ];

  console.log(`ACP adapters against a stand-in model on loopback, ${ROUNDS} rounds each (median ms)`);
  for (const adapter of adapters) {
    const script: ModelScript = adapter.model.model;
    const host = await startAdapterHost((dir) => ({ [adapter.name]: adapter.entry(dir) }));
    const firstText: number[] = [];
    const firstAsk: number[] = [];
    const cli: number[] = [];
    const command: number[] = [];
    const directText: number[] = [];
    const directCommand: number[] = [];
    try {
      for (let round = 0; round < ROUNDS; round++) {
        const marker = `bench-${adapter.name}-${round}`;
        script.clear();
        script.calls.length = 0;
        script.script(
          [{ text: ['Hello', ' there.'] }],
          [adapter.run(`echo ${marker} > bench.txt && cat bench.txt`)],
          [{ text: 'Ran it.' }],
        );
        const t0 = Date.now();
        const { id, follow } = await host.newSession(adapter.name, 'say hello');
        const delta = await follow.waitFor((e) => e.type === 'message.delta');
        firstText.push(Number(delta.at) - t0);
        firstAsk.push(script.turns().at(-1)!.wall - t0);
        await runEnd(follow);
        await host.send(id, 'run the command');
        const approval = await nthApproval(follow);
        const t1 = Date.now();
        await host.approve(approval.id, 'allow');
        const call = await script.waitFor((c) => c.turn && JSON.stringify(c.body).includes(`${marker}\\n`));
        command.push(call.wall - t1);
        await runEnd(follow, 2);
        follow.stop();

        const t3 = performance.now();
        await host.cli(['approvals', '--json']);
        cli.push(performance.now() - t3);
        directText.push(await adapter.directFirstText());
        const t2 = performance.now();
        const ran = spawnSync('/bin/sh', ['-c', `echo ${marker} > bench.txt && cat bench.txt`], {
          cwd: host.project,
          encoding: 'utf8',
        });
        script.script([{ text: 'ok' }]);
        await firstChunk(adapter.path, adapter.resultBody(ran.stdout), adapter.textMarker);
        const direct = script.calls.at(-1)!;
        directCommand.push(direct.at - t2);
      }
    } finally {
      await host.stop();
    }
    const line = (what: string, through: number[], direct: number[]) =>
      console.log(
        `  ${what.padEnd(36)} through Tether ${median(through).toFixed(0).padStart(6)}   direct ${median(direct).toFixed(1).padStart(6)}   ${(median(through) / median(direct)).toFixed(0)}×`,
      );
    console.log(`${adapter.title} (${adapter.name})`);
    line('sessions new → first streamed text', firstText, directText);
    line('allowed command → output at model', command, directCommand);
    console.log(
      `  (of the first: ${median(firstAsk).toFixed(0)} ms until the adapter's first model request; a \`tether\` CLI call alone takes ${median(cli).toFixed(0)} ms)`,
    );
  }
  await anthropic.close();
  await responses.close();
  await gemini.close();
}

await main();
