import type { KeyObject } from 'node:crypto';
import { createCipheriv, createDecipheriv, createSecretKey } from 'node:crypto';
import type { LinkAead } from '@tether/shared-protocol';
import { LINK_TAG_BYTES, checkLinkAead, typescriptLinkAead } from '@tether/shared-protocol';

/**
 * The machine link's ChaCha20-Poly1305 from OpenSSL (`node:crypto`): about 1.5 GB/s here against
 * tweetnacl's XSalsa20-Poly1305 at about 60 MB/s, which was four fifths of a 1 MiB read's time
 * through a machine (docs/performance.md, "Machine link"). Both ends of a link are Node programs,
 * so both use this one; the bytes are those of the TypeScript reference (the vectors check both).
 */
const CIPHER = 'chacha20-poly1305';

export const nodeLinkAead: LinkAead = {
  name: 'node:crypto',
  key: (raw) => {
    // Parsed once per direction; a KeyObject keeps the key out of JavaScript's heap copies.
    const key: KeyObject = createSecretKey(raw);
    return {
      seal: (nonce, aad, parts, out, offset) => {
        const cipher = createCipheriv(CIPHER, key, nonce, { authTagLength: LINK_TAG_BYTES });
        let length = 0;
        for (const part of parts) length += part.length;
        cipher.setAAD(aad, { plaintextLength: length });
        let at = offset;
        for (const part of parts) {
          const sealed = cipher.update(part);
          out.set(sealed, at);
          at += sealed.length;
        }
        cipher.final();
        out.set(cipher.getAuthTag(), at);
      },
      open: (nonce, aad, sealed) => {
        if (sealed.length < LINK_TAG_BYTES) return undefined;
        const end = sealed.length - LINK_TAG_BYTES;
        const decipher = createDecipheriv(CIPHER, key, nonce, { authTagLength: LINK_TAG_BYTES });
        decipher.setAAD(aad, { plaintextLength: end });
        decipher.setAuthTag(sealed.subarray(end));
        const plain = decipher.update(sealed.subarray(0, end));
        try {
          decipher.final();
        } catch {
          // The tag did not match: nothing of `plain` may be used.
          return undefined;
        }
        return plain;
      },
    };
  },
};

let chosen: LinkAead | undefined;

/**
 * The AEAD this process seals machine links with: OpenSSL's when it gives RFC 8439's answers here
 * (an OpenSSL built without ChaCha20 throws, and the check says no), else the TypeScript one.
 * Checked once per process.
 */
export function chooseLinkAead(): LinkAead {
  chosen ??= checkLinkAead(nodeLinkAead) ? nodeLinkAead : typescriptLinkAead;
  return chosen;
}
