import type { RelayLinkStatus } from '@tether/shared-protocol';
import { visibleText } from '@tether/shared-protocol';
import { existsSync, statSync } from 'node:fs';
import { createServer } from 'node:net';
import { networkInterfaces } from 'node:os';
import { join } from 'node:path';
import { dataPaths, resolveDataDir } from '../../config/data-dir.js';
import { ControlClient } from '../../control/control-client.js';
import { DEFAULT_APP_DIR } from '../../remote/app-files.js';
import { chooseBindAddress, classifyAddress, interfacesFrom } from '../../remote/bind-address.js';
import { DEFAULT_PORT } from '../../remote/start-remote.js';
import { tailscaleSelf } from '../../remote/tailscale.js';
import { checkRelay } from '../../relay/relay-doctor.js';
import { flag, stringOption } from '../args.js';
import type { Command, CommandContext } from '../command.js';
import { Exit } from '../command.js';
import { DATA_DIR_OPTION, JSON_OPTION, jsonForTerminal } from '../common.js';
import { flagOption, valueOption } from '../option.js';

type Level = 'ok' | 'warning' | 'problem' | 'info';
interface Check {
  level: Level;
  what: string;
  fix?: string;
}

export const doctorCommand: Command = {
  path: ['doctor'],
  summary: 'check what phones would get from this computer, and how to fix what is missing',
  options: [
    DATA_DIR_OPTION,
    valueOption('bind', 'WHERE', 'as for tether start (default auto)'),
    valueOption('port', 'N', `as for tether start (default ${DEFAULT_PORT})`),
    valueOption('tls-cert', 'FILE', 'as for tether start'),
    flagOption('tailscale-cert', 'as for tether start'),
    valueOption('relay', 'URL', "check this relay (default: the running host's, if it has one)"),
    JSON_OPTION,
  ],
  arity: [0, 0],
  run: runDoctor,
};

async function runDoctor(context: CommandContext): Promise<number> {
  const checks: Check[] = [];
  const dir = resolveDataDir(stringOption(context.args, 'data-dir'), context.env);
  const paths = dataPaths(dir);
  checks.push(...checkDataDir(paths.dir, paths.identity));

  const tailscale = await tailscaleSelf();
  // Only Tailscale itself can say a 100.64.0.0/10 address is its own (see bind-address.ts).
  const confirmed = tailscale.ok && tailscale.value.running ? tailscale.value.addresses : [];
  const unconfirmed = !tailscale.ok
    ? `Tailscale could not confirm it (${tailscale.error.message})`
    : tailscale.value.running
      ? undefined
      : 'Tailscale is not running, so it is not its address';
  const interfaces = interfacesFrom(networkInterfaces());
  const bind = stringOption(context.args, 'bind') ?? 'auto';
  const choice = chooseBindAddress(bind, interfaces, confirmed, unconfirmed);
  const seen = interfaces
    .filter((i) => !i.internal)
    .map((i) => `${i.address} (${i.name}: ${classifyAddress(i.address, confirmed)})`);
  if (choice.ok && choice.value.kind === 'cgnat') {
    checks.push({
      level: 'warning',
      what: `would listen on ${choice.value.address}, as named: it is in 100.64.0.0/10 but not a Tailscale address, so other customers of a carrier-grade NAT or VPN may reach it`,
      fix: 'use --bind auto (Tailscale or LAN) unless you trust that network',
    });
  } else if (choice.ok) {
    checks.push({
      level: 'ok',
      what: `would listen on ${choice.value.address} (${choice.value.kind}${choice.value.interface ? `, ${choice.value.interface}` : ''}); addresses here: ${seen.join(', ') || 'none'}`,
    });
  } else {
    checks.push({
      level: choice.error.code === 'invalid-params' ? 'problem' : 'warning',
      what: choice.error.message,
      fix:
        choice.error.code === 'invalid-params'
          ? 'use --bind auto, or name a Tailscale or private LAN address'
          : 'install Tailscale, join a LAN, or use a relay',
    });
  }

  if (!tailscale.ok) {
    checks.push({
      level: 'info',
      what: `Tailscale: ${tailscale.error.message}`,
      fix: 'https://tailscale.com/download gives phones a private, encrypted path and an HTTPS certificate',
    });
  } else {
    checks.push({
      level: 'ok',
      what: `Tailscale: ${tailscale.value.dnsName || 'no MagicDNS name'} (${tailscale.value.addresses.join(', ')})`,
    });
    checks.push(
      tailscale.value.httpsEnabled
        ? {
            level: 'ok',
            what: 'Tailscale HTTPS certificates are enabled: start with --tailscale-cert for the full app',
          }
        : {
            level: 'warning',
            what: 'Tailscale HTTPS certificates are not enabled',
            fix: 'admin console → DNS → enable HTTPS Certificates, then --tailscale-cert',
          },
    );
  }

  const https = Boolean(stringOption(context.args, 'tls-cert')) || flag(context.args, 'tailscale-cert');
  const loopback = choice.ok && choice.value.kind === 'loopback';
  checks.push(
    https || loopback
      ? {
          level: 'ok',
          what: 'TLS mode: HTTPS: the phone gets everything (install, notifications, camera, pairing, terminals)',
        }
      : {
          level: 'warning',
          what: 'TLS mode: plain HTTP: someone able to change traffic on the network can serve the phone a different app, so new phones only watch and approve unless allowed more (tether pair allow ID --scopes …); no install, notifications or camera',
          fix: '--tailscale-cert, or --tls-cert/--tls-key with a certificate the phone trusts, or a relay',
        },
  );

  const portText = stringOption(context.args, 'port') ?? String(DEFAULT_PORT);
  if (choice.ok) checks.push(await checkPort(choice.value.address, Number(portText)));

  const client = await ControlClient.connect(paths.controlSocket);
  let linked: RelayLinkStatus | undefined;
  if (client.ok) {
    const status = await client.value.call('host.status', {});
    client.value.close();
    if (status.ok) {
      linked = status.value.remote.relay;
      checks.push({
        level: 'info',
        what: `a host is running (pid ${status.value.pid}); ${status.value.remote.message}`,
      });
    }
  } else {
    checks.push({ level: 'info', what: 'no host is running with this data dir', fix: 'tether start' });
  }

  const relayUrl = stringOption(context.args, 'relay') ?? linked?.url;
  if (relayUrl !== undefined)
    checks.push(...(await checkRelay(relayUrl, linked?.url === relayUrl ? linked : undefined)));

  checks.push(
    existsSync(join(DEFAULT_APP_DIR, 'index.html'))
      ? { level: 'ok', what: 'the app is built' }
      : { level: 'problem', what: 'the app is not built, so phones would get an empty page', fix: 'npm run build' },
  );
  const major = Number(process.versions.node.split('.')[0]);
  checks.push(
    major >= 20
      ? { level: 'ok', what: `Node ${process.versions.node}` }
      : { level: 'problem', what: `Node ${process.versions.node}`, fix: 'Node 20 or later' },
  );

  if (flag(context.args, 'json')) context.stdout.write(`${jsonForTerminal(checks, 2)}\n`);
  else {
    for (const c of checks)
      // Checks quote interface names, Tailscale's answers and the running host's message: escaped.
      context.stdout.write(
        `${c.level.padEnd(8)}${visibleText(c.what)}${c.fix ? `\n        → ${visibleText(c.fix)}` : ''}\n`,
      );
  }
  return checks.some((c) => c.level === 'problem') ? Exit.Error : Exit.Ok;
}

function checkDataDir(dir: string, keyFile: string): Check[] {
  if (!existsSync(dir))
    return [{ level: 'info', what: `data dir ${dir} does not exist yet (tether start creates it, owner-only)` }];
  const checks: Check[] = [];
  const stat = statSync(dir);
  checks.push(
    (stat.mode & 0o077) === 0
      ? { level: 'ok', what: `data dir ${dir} is owner-only` }
      : {
          level: 'problem',
          what: `data dir ${dir} is open to others (mode ${(stat.mode & 0o777).toString(8)})`,
          fix: `chmod 700 ${dir}`,
        },
  );
  if (existsSync(keyFile)) {
    const mode = statSync(keyFile).mode & 0o777;
    checks.push(
      (mode & 0o077) === 0
        ? { level: 'ok', what: 'host key file is owner-only' }
        : {
            level: 'problem',
            what: `host key file is readable by others (mode ${mode.toString(8)})`,
            fix: `chmod 600 ${keyFile}`,
          },
    );
  }
  return checks;
}

function checkPort(address: string, port: number): Promise<Check> {
  return new Promise((resolve) => {
    const server = createServer();
    server.once('error', (error: NodeJS.ErrnoException) =>
      resolve(
        error.code === 'EADDRINUSE'
          ? {
              level: 'warning',
              what: `port ${port} on ${address} is in use (a running host, or something else)`,
              fix: '--port N, or --port 0 for a free one',
            }
          : { level: 'problem', what: `cannot listen on ${address}:${port}: ${error.message}` },
      ),
    );
    server.listen(port, address, () =>
      server.close(() => resolve({ level: 'ok', what: `port ${port} on ${address} is free` })),
    );
  });
}
