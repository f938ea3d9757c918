/**
 * The first byte of every binary message says what it is. Binary messages travel as WebSocket
 * binary messages, as HTTP bodies (`application/octet-stream`) and inside relay envelopes.
 */
export const MessageKind = {
  /** Handshake, device → host: device id, ephemeral key and timestamp. */
  Hello: 0x01,
  /** Handshake, host → device: the host's ephemeral key, bound to the hello. */
  Welcome: 0x02,
  /** A sealed frame on an established channel. */
  Frame: 0x03,
  /** A one-shot call: a hello-like header with one sealed request inside. */
  Call: 0x04,
  /** The sealed reply to a one-shot call. */
  CallReply: 0x05,
} as const;

export type MessageKind = (typeof MessageKind)[keyof typeof MessageKind];
