import type { RelayStandingInfo } from '@tether/shared-protocol';
import { visibleText } from '@tether/shared-protocol';
import { flag } from '../args.js';
import type { Command } from '../command.js';
import { Exit } from '../command.js';
import { DATA_DIR_OPTION, JSON_OPTION, ago, failed, printJson, withClient } from '../common.js';

export const statusCommand: Command = {
  path: ['status'],
  summary: 'show whether a host is running, and what it is doing',
  options: [DATA_DIR_OPTION, JSON_OPTION],
  arity: [0, 0],
  run: (context) =>
    withClient(context, async (client) => {
      const result = await client.call('host.status', {});
      if (failed(context, result)) return Exit.Error;
      const s = result.value;
      if (flag(context.args, 'json')) printJson(context, s);
      else {
        context.stdout.write(
          [
            `host ${s.hostId} (${visibleText(s.name)}), Tether ${s.version}, pid ${s.pid}, up since ${ago(s.startedAt)}`,
            `data dir ${s.dataDir}; default model ${s.defaultModel}`,
            `${s.sessions} sessions, ${s.runningSessions} running, ${s.pendingApprovals} approvals waiting`,
            `phones: ${visibleText(s.remote.message)}; ${s.remote.connectedDevices} connected`,
            ...(s.remote.relay
              ? [
                  `relay: ${s.remote.relay.state}, ${visibleText(s.remote.relay.message)}; ${s.remote.relay.connections} connections through it`,
                  ...(s.remote.relay.relays && s.remote.relay.relays.length > 1
                    ? s.remote.relay.relays.map((r) => `  ${relayLine(r)}`)
                    : []),
                ]
              : []),
            ...(Object.keys(s.remote.refused).length > 0
              ? [
                  `remote counters: ${Object.entries(s.remote.refused)
                    .map(([k, n]) => `${visibleText(k)}=${n}`)
                    .join(', ')}`,
                ]
              : []),
            ...(s.push
              ? [
                  `push: ${s.push.subscriptions} subscription${s.push.subscriptions === 1 ? '' : 's'}${Object.entries(
                    s.push.counters,
                  )
                    .map(([k, n]) => `, ${visibleText(k)}=${n}`)
                    .join('')}`,
                ]
              : []),
            ...(s.keepAwake ? [`keep awake: ${keepAwakeLine(s.keepAwake)}`] : []),
            ...(Object.keys(s.failures).length > 0
              ? [
                  `failures caught (please report): ${Object.entries(s.failures)
                    .map(([k, n]) => `${k}=${n}`)
                    .join(', ')}`,
                ]
              : []),
            '',
          ].join('\n'),
        );
      }
      return Exit.Ok;
    }),
};

/** The sleep inhibitor in a line: what it does now, and since when. */
export function keepAwakeLine(k: { state: string; tool: string | null; since: number; message: string }): string {
  const tool = k.tool ? ` (${visibleText(k.tool)})` : '';
  switch (k.state) {
    case 'holding':
      return `holding${tool} since ${ago(k.since)}: ${visibleText(k.message)}`;
    case 'idle':
      return `ready${tool}, nothing running`;
    case 'off':
      return 'off (--no-keep-awake): the computer may sleep mid-run';
    default:
      return `unavailable: ${visibleText(k.message)}`;
  }
}

/** One relay of several: its URL, its state since when, and why (a held one: until when). */
function relayLine(r: RelayStandingInfo): string {
  const until = r.retryAt !== undefined ? ` (asked again at ${new Date(r.retryAt).toLocaleTimeString()})` : '';
  return `${visibleText(r.url)}: ${r.state} (${ago(r.since)}), ${visibleText(r.message)}${until}`;
}
