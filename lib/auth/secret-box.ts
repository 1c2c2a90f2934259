/**
 * Credentials at rest (git and webhook credentials, identity-provider refresh tokens): AES-256-GCM under a key derived
 * from GIT_CREDENTIALS_KEY or the session secret. Moved here from lib/services/compose/git-source.ts (docs/architecture.md 6.2).
 */
import { createCipheriv, createDecipheriv, createHash, randomBytes } from 'node:crypto';
import { authSecret } from './secret';

function credentialKey(): Buffer {
  return createHash('sha256')
    .update('policy-console/git-credentials\0' + (process.env.GIT_CREDENTIALS_KEY ?? authSecret()))
    .digest();
}

export function encryptSecret(plain: string): string {
  const iv = randomBytes(12);
  const c = createCipheriv('aes-256-gcm', credentialKey(), iv);
  const data = Buffer.concat([c.update(plain, 'utf8'), c.final()]);
  return ['v1', iv.toString('base64url'), c.getAuthTag().toString('base64url'), data.toString('base64url')].join('.');
}

export function decryptSecret(stored: string): string {
  const [v, iv, tag, data] = stored.split('.');
  if (v !== 'v1' || !iv || !tag || data === undefined) throw new Error('unknown credential format');
  const d = createDecipheriv('aes-256-gcm', credentialKey(), Buffer.from(iv, 'base64url'));
  d.setAuthTag(Buffer.from(tag, 'base64url'));
  return Buffer.concat([d.update(Buffer.from(data, 'base64url')), d.final()]).toString('utf8');
}
