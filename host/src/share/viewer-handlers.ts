import type { MethodName, Methods, ProtocolError, SessionEvent } from '@tether/shared-protocol';
import { VIEW_METHODS, fail, ok, protocolError, viewScope } from '@tether/shared-protocol';
import type { Caller } from '../rpc/caller.js';
import type { Handlers } from '../rpc/dispatch.js';
import type { ViewerView } from './viewer-view.js';

type Table = Partial<Handlers<Methods, Caller>>;

/**
 * Whether a share link's viewer may call `method` at all: only what following its one session
 * needs (`VIEW_METHODS`), photos only when the link was made with them. Everything else is
 * `forbidden`, whatever scope the method asks of a device, none included. Which session a call
 * names is checked once its params are read (`viewerHandlers`).
 */
export function authorizeViewer(method: MethodName, caller: Caller): ProtocolError | undefined {
  const viewer = caller.viewer;
  if (!viewer) return protocolError('forbidden', 'not a share link');
  if (!Object.prototype.hasOwnProperty.call(VIEW_METHODS, method)) {
    return protocolError('forbidden', `a share link may only follow its session; ${method} is not open to it`);
  }
  if (method === 'blobs.read' && !viewer.includePhotos) {
    return protocolError('forbidden', 'this link was made without photos and files');
  }
  return undefined;
}

/**
 * The viewer's handlers, made from the device's: the same reads, held to the link's own session,
 * with what they return masked as the viewer's events are (`ViewerView`). `host.info` says who the
 * host is and what the link allows, and nothing of its folders, models or agents.
 */
export function viewerHandlers(device: Table, view: ViewerView): Table {
  const elsewhere = (sessionId: string, caller: Caller) =>
    sessionId === caller.viewer?.sessionId
      ? undefined
      : fail('forbidden', 'a share link shows only the session it was made for');
  const absent = (method: MethodName) => fail('unsupported', `${method} is not offered here`);
  return {
    'host.info': async (params, caller) => {
      const viewer = caller.viewer!;
      const info = (await device['host.info']?.(params, caller)) ?? absent('host.info');
      if (!info.ok) return info;
      const { hostId, name, version, protocolVersion, deviceId } = info.value;
      return ok({
        ...{ hostId, name, version, protocolVersion, deviceId },
        ...{ scopes: [], features: [], models: [], defaultModel: '', roots: [] },
        view: {
          sessionId: viewer.sessionId,
          scope: viewScope(viewer.sessionId),
          name: viewer.name,
          includePhotos: viewer.includePhotos,
          expiresAt: viewer.expiresAt,
        },
      });
    },
    'sessions.watch': async (params, caller) => {
      const watched = elsewhere(params.id, caller) ?? (await device['sessions.watch']?.(params, caller));
      if (!watched) return absent('sessions.watch');
      return watched.ok ? ok({ session: view.summary(watched.value.session) }) : watched;
    },
    'sessions.unwatch': async (params, caller) =>
      elsewhere(params.id, caller) ??
      (await device['sessions.unwatch']?.(params, caller)) ??
      absent('sessions.unwatch'),
    'sessions.history': async (params, caller) => {
      const page = elsewhere(params.id, caller) ?? (await device['sessions.history']?.(params, caller));
      if (!page) return absent('sessions.history');
      const photos = caller.viewer!.includePhotos;
      // The schema says `unknown` (a client decodes each); the device's handler reads them from the log.
      const events = page.ok ? (page.value.events as SessionEvent[]) : [];
      return page.ok ? ok({ ...page.value, events: events.map((e) => view.event(e, photos)) }) : page;
    },
    'blobs.read': async (params, caller) =>
      elsewhere(params.sessionId, caller) ?? (await device['blobs.read']?.(params, caller)) ?? absent('blobs.read'),
  };
}
