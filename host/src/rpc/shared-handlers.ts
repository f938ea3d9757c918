import type { AnsweredBy, Approval, Decision, DeviceInfo, Result } from '@tether/shared-protocol';
import { fail, ok } from '@tether/shared-protocol';
import type { ApprovalBroker } from '../sessions/approval-broker.js';
import type { DeviceRecord, DeviceStore } from '../store/device-store.js';

/**
 * Handler bodies that the device methods and the control socket share: they differ only in who
 * is answering and in how a revoked device's connections are closed.
 */

/** A device as others may see it: everything but its public key. */
export function publicDeviceInfo(device: DeviceRecord): DeviceInfo {
  const { publicKey: _key, ...info } = device;
  return info;
}

/**
 * Records an answer from `by`. `noteKept` says why a note given with it does not reach the agent
 * (ApprovalBroker.answer): the answer did not come from a surface that may send messages.
 */
export function answerApproval(
  approvals: ApprovalBroker,
  params: { id: string; decision: Decision; note?: string; prefix?: string },
  by: AnsweredBy,
  noteKept?: string,
): Result<{ approval: Approval }> {
  const answered = approvals.answer(
    params.id,
    {
      decision: params.decision,
      ...(params.note !== undefined ? { note: params.note } : {}),
      ...(params.prefix !== undefined ? { prefix: params.prefix } : {}),
      ...(noteKept !== undefined ? { noteKept } : {}),
    },
    by,
  );
  return answered.ok ? ok({ approval: answered.value }) : answered;
}

/** Marks a device revoked; the caller closes its connections when its answer allows. */
export function revokeDevice(devices: DeviceStore, id: string, now: number): Result<DeviceRecord> {
  const device = devices.get(id);
  if (!device) return fail('not-found', `no device ${id}`);
  devices.revoke(id, now);
  return ok(device);
}
