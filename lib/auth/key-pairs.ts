/**
 * Chef key material: RSA key pairs in the formats Chef's tools read, and the
 * check of a public key someone hands us. Generation runs on libuv's thread
 * pool (crypto.generateKeyPair), never on the event loop: a 2048-bit RSA key
 * takes tens to hundreds of milliseconds of CPU.
 */
import { createPublicKey, generateKeyPair } from 'node:crypto';
import { badRequest } from '@/lib/errors';

/** Chef's client-name rule. */
export const CHEF_CLIENT_NAME = /^[A-Za-z0-9_.-]{1,255}$/;
/** Chef's key-name rule. */
export const KEY_NAME = /^[A-Za-z0-9_.-]{1,255}$/;

/** A new RSA key pair in the formats Chef's tools read (PKCS#1 private key, SPKI public key), generated off the event loop. */
export function generateChefKeyPair(): Promise<{ publicKey: string; privateKey: string }> {
  return new Promise((resolve, reject) => {
    generateKeyPair(
      'rsa',
      { modulusLength: 2048, publicKeyEncoding: { type: 'spki', format: 'pem' }, privateKeyEncoding: { type: 'pkcs1', format: 'pem' } },
      (err, publicKey, privateKey) => (err ? reject(err) : resolve({ publicKey, privateKey })),
    );
  });
}

/** The PEM of an RSA public key, or a 400 naming the field. */
export function checkedPublicKey(pem: string, field = '/public_key'): string {
  if (typeof pem !== 'string' || /PRIVATE KEY/.test(pem) || !normalisePublicKey(pem)) throw badRequest('Invalid public key: it must be an RSA public key in PEM format', [{ path: field, message: 'public_key must be an RSA public key in PEM format' }]);
  return pem;
}

/** A PEM public key is acceptable: parses as RSA. Returns the normalised SPKI PEM or null. */
export function normalisePublicKey(pem: string): string | null {
  try {
    const k = createPublicKey(pem);
    if (k.asymmetricKeyType !== 'rsa') return null;
    return k.export({ type: 'spki', format: 'pem' }).toString();
  } catch {
    return null;
  }
}
