import type { Result } from '@tether/shared-protocol';
import { CONTROL_METHODS, every, ok } from '@tether/shared-protocol';
import { ControlServer } from './control/control-server.js';
import { DEFAULT_APP_DIR, loadAppFiles } from './remote/app-files.js';
import { LanListener } from './remote/lan-listener.js';
import { needsRenewal, planListen } from './remote/start-remote.js';
import { createDispatch } from './rpc/dispatch.js';
import type { HostParts } from './wiring/build-host.js';
import { buildHost } from './wiring/build-host.js';
import { building } from './wiring/closers.js';
import type { HostOptions, RemoteOptions } from './wiring/host-options.js';

export type { HostOptions, RemoteOptions } from './wiring/host-options.js';

/** Milliseconds between checks of a Tailscale certificate's expiry: twice a day. */
const RENEW_CHECK_MS = 12 * 3600 * 1000;

/**
 * A running host: its parts (built by `buildHost`), the transports in front of them (the control
 * socket, the LAN or Tailscale listener, the relay link), and stopping it all.
 */
export class Host {
  private constructor(
    readonly parts: HostParts,
    private readonly options: HostOptions,
  ) {}

  /** Builds the parts, then opens the control socket, the listener (`remote`) and the relay link. */
  static async start(options: HostOptions): Promise<Result<Host>> {
    const built = await buildHost(options);
    if (!built.ok) return built;
    const host = new Host(built.value, options);
    // What could not be opened closes everything opened before it, the parts built included.
    const started = await building(built.value.closing.all, () => host.open());
    return started.ok ? ok(host) : started;
  }

  private async open(): Promise<Result<void>> {
    const { parts } = this;
    const { closing } = parts;
    const control = await ControlServer.listen(
      parts.paths.controlSocket,
      createDispatch(CONTROL_METHODS, parts.controlHandlers),
    );
    if (!control.ok) return control;
    closing.control.defer('control', () => control.value.close());
    closing.all.defer(
      'control-events',
      parts.log.subscribe('control', (event) => control.value.broadcast(event)),
    );
    parts.keepAwake.start();
    if (this.options.remote) {
      const listening = await this.listen(this.options.remote);
      if (!listening.ok) return listening;
    }
    const { relay } = parts;
    if (relay) {
      relay.start();
      // Registered once started, so a link never started is never stopped.
      closing.transports.defer('relay', () => relay.stop());
    }
    return ok(undefined);
  }

  /**
   * Stops cleanly: every part opened is closed once, newest first (`HostParts.closing`): devices
   * and machines told the host is stopping, the listener and relay link closed, runs interrupted
   * and recorded as such, the control socket closed, the store last. Closing twice closes once.
   */
  close(): Promise<void> {
    return this.parts.closing.all.close();
  }

  /** Starts the LAN or Tailscale listener in front of the device gateway. */
  private async listen(remote: RemoteOptions): Promise<Result<void>> {
    const { parts, options } = this;
    const { reach, clock } = parts;
    const plan = await planListen(remote, parts.paths.dir);
    if (!plan.ok) return plan;
    if (!plan.value.plan) {
      reach.message = plan.value.why;
      return ok(undefined);
    }
    const listen = plan.value.plan;
    const server = await LanListener.start({
      address: listen.address,
      port: remote.port,
      ...(listen.tls ? { tls: listen.tls } : {}),
      gateway: parts.gateway,
      machines: parts.machines.linkServer(parts.gateway.stats),
      clock,
      app: loadAppFiles(remote.appDir ?? DEFAULT_APP_DIR),
      ...(remote.extraOrigins ? { extraOrigins: remote.extraOrigins } : {}),
      connectSources: () => parts.relay?.connectSources() ?? [],
    });
    if (!server.ok) return server;
    // Closed before the runs are interrupted and the store closed, after the gateway said goodbye.
    parts.closing.transports.defer('listener', () => server.value.close());
    reach.listener = server.value;
    reach.message = `phones reach this host at ${server.value.url} (${listen.kind}${listen.tls ? ', HTTPS' : ', plain HTTP'})`;
    if (listen.kind === 'cgnat')
      options.onNotice?.({
        level: 'warning',
        text: `listening on ${listen.address} as asked: it is in 100.64.0.0/10 but Tailscale does not list it, so other customers of a carrier-grade NAT or VPN may reach it`,
      });
    if (listen.renew && listen.tls) {
      let validTo = listen.tls.validTo;
      const renew = listen.renew;
      // Renewed two weeks before expiry, without dropping connections.
      const stopRenewals = every(clock, RENEW_CHECK_MS, () => {
        if (!needsRenewal(validTo, new Date(clock.now()))) return;
        void renew().then((tls) => {
          if (!tls)
            return options.onNotice?.({
              level: 'warning',
              text: 'renewing the Tailscale certificate failed; will try again',
            });
          validTo = tls.validTo;
          reach.listener?.setTls(tls);
        });
      });
      parts.closing.all.defer('renewals', stopRenewals);
    }
    return ok(undefined);
  }
}
