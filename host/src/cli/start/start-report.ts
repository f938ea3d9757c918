import { DEFAULT_DEVICE_SCOPES, formatConfirmationCode, visibleText } from '@tether/shared-protocol';
import type { PairRequestInfo } from '../../gateway/pairing-service.js';
import type { Host } from '../../host.js';
import type { McpNotice } from '../../mcp/types.js';
import type { RelayLinkState } from '../../relay/relay-link.js';
import type { RelayEntry } from '../../relay/relay-roster.js';
import { VERSION } from '../../version.js';
import { startApprovalNotice } from '../approval-lines.js';
import { jsonForTerminal } from '../common.js';
import { describePairPage, servedElsewhere } from '../pair-page-text.js';
import type { PairPrompt } from '../pair-prompt.js';
import { terminalQr } from '../terminal-qr.js';

export interface StartOutput {
  stdout: NodeJS.WritableStream;
  stderr: NodeJS.WritableStream;
  /** `--json`: one JSON object a line on stdout. */
  json: boolean;
  relayOnly: boolean;
  /** Draw QR codes with colours (stdout is a terminal). */
  tty: boolean;
  /** Asks the person at the terminal about a pair request; absent with --json or no terminal. */
  prompt?: PairPrompt;
}

/**
 * What `tether start` tells the person (or, with --json, a program) while the host runs. Events
 * can arrive while the host is still starting; until `attach` those that need the host are dropped
 * (a pair request then waits for `tether pair allow`, as the person is told once it is ready).
 */
export class StartReport {
  private host: Host | undefined;
  private relayShown = false;

  constructor(private readonly out: StartOutput) {}

  attach(host: Host): void {
    this.host = host;
  }

  emit(event: Record<string, unknown>): void {
    this.out.stdout.write(`${jsonForTerminal(event)}\n`);
  }

  notice(notice: McpNotice): void {
    if (this.out.json) this.emit({ event: 'notice', level: notice.level, text: notice.text });
    else this.out.stderr.write(`[${notice.level}] ${visibleText(notice.text, { multiline: true })}\n`);
  }

  relayState(state: RelayLinkState): void {
    const { out } = this;
    const host = this.host;
    const relay = host?.parts.relay;
    if (!host || !relay) return;
    if (state.name === 'linked') {
      const link = host.parts.reach.pairLink();
      const pairUrl = link.ok ? link.value.relay?.link : undefined;
      if (out.json) return this.emit({ event: 'relay', state: 'linked', url: relay.url, pairUrl });
      if (!out.relayOnly || this.relayShown || !pairUrl) {
        out.stdout.write(`Relay: ${relay.message()}.\n`);
        return;
      }
      this.relayShown = true;
      out.stdout.write(
        `Linked to the relay at ${relay.url}. Scan with your phone's camera to pair, from any network (one device, valid 10 minutes; \`tether pair\` for another):\n\n`,
      );
      out.stdout.write(`${terminalQr(pairUrl, out.tty)}\n${pairUrl}\n\n`);
    } else if (state.name === 'waiting' || state.name === 'stopped') {
      if (out.json) {
        return this.emit({
          event: 'relay',
          state: state.name,
          url: relay.url,
          code: state.error.code,
          reason: state.error.message,
        });
      }
      out.stderr.write(`[info] ${visibleText(relay.message())}\n`);
    }
  }

  /** A relay refused this host: one clear line, naming it, why, and when it is asked again. */
  relayHeld(entry: RelayEntry): void {
    if (entry.standing.name !== 'held') return;
    const { error, retryAt } = entry.standing;
    if (this.out.json) {
      return this.emit({
        event: 'relay',
        state: 'held',
        url: entry.url,
        code: error.code,
        reason: error.message,
        retryAt,
      });
    }
    this.out.stderr.write(
      `[warning] relay ${visibleText(entry.url)}: ${visibleText(error.message)}; skipping it until ${new Date(retryAt).toLocaleTimeString()}\n`,
    );
  }

  pairRequest(request: PairRequestInfo): void {
    const { out } = this;
    if (out.json) {
      return this.emit({
        event: 'pair.request',
        id: request.id,
        label: request.label,
        code: request.code,
        fingerprint: request.fingerprint,
        secure: request.secure,
        page: request.page,
        scopes: request.scopes,
      });
    }
    if (out.prompt && this.host) return out.prompt.ask(request, this.host.parts.gateway.pairing);
    const limited = request.scopes.length < DEFAULT_DEVICE_SCOPES.length;
    const why = !request.secure
      ? 'over plain HTTP'
      : servedElsewhere(request.page)
        ? "from a page this computer didn't serve"
        : 'sent by a program through a relay';
    out.stdout.write(
      `Pair request ${request.id} from '${visibleText(request.label)}', code ${formatConfirmationCode(request.code)}. ${describePairPage(request.page).replace(/\n/g, ' ')}\nCheck the phone shows the same code, then: tether pair allow ${request.id}${limited ? ` (${why} it gets only ${request.scopes.join(', ')}; for more, only if you trust that page, add --scopes watch,approve,chat,terminal)` : ''}\n`,
    );
  }

  pairSettled(id: string): void {
    if (this.out.json) this.emit({ event: 'pair.settled', id });
    else this.out.prompt?.cancel(id);
  }

  /** The host is up: where phones reach it and how to pair the first one. */
  ready(host: Host): void {
    if (this.out.json) this.readyJson(host);
    else this.readyText(host);
  }

  stopping(signal: NodeJS.Signals): void {
    if (!this.out.json) this.out.stdout.write(`\nStopping (${signal}): interrupting runs and closing the store…\n`);
  }

  stopped(): void {
    if (this.out.json) this.emit({ event: 'stopped' });
  }

  private readyJson(host: Host): void {
    const remote = host.parts.reach.listener;
    const link = host.parts.reach.pairLink();
    const pair = link.ok ? link.value : undefined;
    this.emit({
      event: 'ready',
      hostId: host.parts.identity.hostId,
      dataDir: host.parts.paths.dir,
      controlSocket: host.parts.paths.controlSocket,
      model: host.parts.defaultModel,
      version: VERSION,
    });
    if (remote && pair) {
      this.emit({
        event: 'listening',
        url: remote.url,
        pairUrl: pair.link,
        mode: remote.mode,
        expiresAt: pair.expiresAt,
      });
    } else {
      this.emit({
        event: 'not-listening',
        reason: this.out.relayOnly ? 'relay only: listening on no network address' : host.parts.reach.message,
      });
    }
  }

  private readyText(host: Host): void {
    const { stdout, relayOnly, tty } = this.out;
    const remote = host.parts.reach.listener;
    const link = host.parts.reach.pairLink();
    const pair = link.ok ? link.value : undefined;
    stdout.write(
      [
        `Tether ${VERSION}: host ${host.parts.identity.hostId} is running.`,
        `  data dir   ${host.parts.paths.dir}`,
        `  model      ${host.parts.defaultModel}${host.parts.defaultModel === 'demo' ? ' (built in; set ANTHROPIC_API_KEY or OPENAI_API_KEY, or use --model, for a real one)' : ''}`,
        `  phones     ${remote ? remote.url : host.parts.relay ? `through the relay at ${host.parts.relay.url} only` : 'none can reach this host yet'}`,
        ...(host.parts.relay && remote ? [`  relay      ${host.parts.relay.url}`] : []),
        '',
      ].join('\n'),
    );
    if (!remote && relayOnly) stdout.write('Linking to the relay…\n');
    else if (!remote) {
      stdout.write(
        `${visibleText(host.parts.reach.message, { multiline: true })}\nSessions and the local CLI work: tether sessions new "hello"\n`,
      );
    } else {
      if (!remote.secureChannel) {
        stdout.write(
          'Plain HTTP: nobody listening on the network can read anything (all traffic after the app page is sealed),\n' +
            'but someone able to change traffic on it (a hostile Wi-Fi, ARP spoofing) can serve the phone a different\n' +
            'app page. So new phones may only follow sessions and answer approvals unless you allow more here\n' +
            '(tether pair allow ID --scopes …), and the app cannot be installed, notify or use its camera.\n' +
            'Serve HTTPS instead: --tailscale-cert (with Tailscale), --tls-cert/--tls-key, or a relay. See docs/security.md.\n\n',
        );
      }
      stdout.write(
        `Scan with your phone's camera to pair (one device, valid 10 minutes; \`tether pair\` for another):\n\n`,
      );
      stdout.write(`${terminalQr(pair!.link, tty)}\n${pair!.link}\n\n`);
    }
    host.parts.log.subscribe('start prompt', (event) => {
      if (event.type === 'approval.requested') stdout.write(startApprovalNotice(event.approval));
    });
  }
}
