import type { AppHost } from './app-host.js';
import { startAppHost } from './app-host.js';
import type { LongRunModel } from './long-run-model.js';
import { startLongRunModel } from './long-run-model.js';
import type { RelayProcess } from './relay-process.js';
import type { MadeLink } from './share-link.js';
import { shareSession, startSessionAtComputer } from './share-link.js';

/**
 * What a share spec starts, kept as it is started so that `stop` (in `afterEach`) ends whatever
 * came up, even when a later step failed: a relay, a host, a long-run model.
 */
export class ShareRig {
  relay: RelayProcess | undefined;
  host: AppHost | undefined;
  model: LongRunModel | undefined;

  /**
   * A host on a model whose run takes `steps` steps, a session started at the computer on it, and
   * a share link to that session. With `relayOnly`, the host listens nowhere and is reached through
   * that relay only.
   */
  async longRun(steps: number, relayOnly?: string): Promise<{ host: AppHost; sessionId: string; made: MadeLink }> {
    this.model = await startLongRunModel(steps, { stepMs: 15 });
    const host = (this.host = await startAppHost({
      model: `openai-compatible:fake@${this.model.url}`,
      args: ['--max-model-calls', '1000'],
      files: { 'notes.txt': 'a line\n' },
      ...(relayOnly ? { relayOnly } : {}),
    }));
    const sessionId = await startSessionAtComputer(host, 'Start the long run');
    return { host, sessionId, made: await shareSession(host, sessionId) };
  }

  async stop(): Promise<void> {
    await this.host?.stop();
    await this.relay?.stop();
    await this.model?.close();
    this.host = this.relay = this.model = undefined;
  }
}
