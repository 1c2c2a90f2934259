import { createHash, randomBytes } from 'node:crypto';

export const TOKEN_PREFIX = 'pc_';

/** A new API token: the secret shown once, and what is stored. */
export function generateToken(): { token: string; prefix: string; secretHash: string } {
  const token = TOKEN_PREFIX + randomBytes(24).toString('base64url');
  return { token, prefix: token.slice(0, 10), secretHash: hashToken(token) };
}

/** Tokens are high-entropy random strings, so a plain SHA-256 is the right hash (no need for argon2). */
export function hashToken(token: string): string {
  return createHash('sha256').update(token).digest('hex');
}
