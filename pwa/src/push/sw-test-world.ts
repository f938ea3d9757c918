import type { ApprovalPush, Decision } from '@tether/shared-protocol';
import { generateBoxKeyPair, toBase64Url } from '@tether/shared-protocol';
import type { HostRecord } from '../data/records.js';
import type { AnswerOutcome, NotificationSpec } from './notification-view.js';
import type { AppWindow, ShownNotification } from './sw-push.js';
import { SwPush } from './sw-push.js';

/** The service worker's notification handling with its world in memory, for its tests. */

export const HOST_ID = toBase64Url(new Uint8Array(16).fill(7));
export const host = generateBoxKeyPair();
export const device = generateBoxKeyPair();
export const record: HostRecord = {
  hostId: HOST_ID,
  name: 'studio\u202e',
  apiBase: 'https://studio.example.ts.net:8443',
  deviceId: toBase64Url(new Uint8Array(16).fill(9)),
  keyStorage: 'raw',
  deviceSecretKey: toBase64Url(device.secretKey),
  hostBoxPublicKey: toBase64Url(host.publicKey),
  hostSignPublicKey: toBase64Url(new Uint8Array(32)),
  scopes: ['watch', 'approve'],
  pairedAt: 1,
  lastSeenAt: null,
  recentFolders: [],
};

export const approvalPush = (lockScreen: 'approve' | 'deny-only' = 'approve'): ApprovalPush => ({
  v: 1,
  type: 'approval',
  hostId: HOST_ID,
  approvalId: 'a_1',
  sessionId: 's_1',
  title: 'Fix the build',
  summary: 'rm -rf build && make',
  kind: 'shell',
  tool: 'shell',
  place: 'local',
  lockScreen,
});

export function world(
  options: { actions?: boolean; windows?: AppWindow[]; answer?: AnswerOutcome; hold?: Promise<void> } = {},
) {
  const shown: NotificationSpec[] = [];
  const closed: string[] = [];
  const opened: string[] = [];
  const answers: [string, Decision][] = [];
  const push = new SwPush({
    showNotification: (spec) => (shown.push(spec), Promise.resolve()),
    getNotifications: (tag) =>
      Promise.resolve(
        // As a browser does: a notification replaces the one shown before with its tag.
        shown
          .filter((s, i) => !shown.slice(i + 1).some((later) => later.options.tag === s.options.tag))
          .filter((s) => tag === undefined || s.options.tag === tag)
          .map<ShownNotification>((s) => ({
            tag: s.options.tag,
            data: s.options.data,
            close: () => closed.push(s.options.tag),
          })),
      ),
    windows: () => Promise.resolve(options.windows ?? []),
    openWindow: (url) => (opened.push(url), Promise.resolve(undefined)),
    scopeUrl: 'https://studio.example.ts.net:8443/',
    hosts: () => Promise.resolve([record]),
    answer: async (_record, id, decision) => {
      answers.push([id, decision]);
      await options.hold;
      return options.answer ?? { kind: 'approved' };
    },
    platform: { actions: options.actions ?? true },
  });
  const click = (action: string) => {
    const spec = shown[shown.length - 1]!;
    return push.onClick(
      { tag: spec.options.tag, data: spec.options.data, close: () => closed.push(spec.options.tag) },
      action,
    );
  };
  return { push, shown, closed, opened, answers, click };
}
