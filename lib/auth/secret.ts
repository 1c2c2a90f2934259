import fs from 'node:fs';
import path from 'node:path';
import { randomBytes } from 'node:crypto';

/**
 * The session-signing secret: NEXTAUTH_SECRET (or AUTH_SECRET) when set. For
 * local use without one, a secret is generated once and kept in
 * data/.auth-secret so restarts keep sessions valid.
 */
export function authSecret(): string {
  const fromEnv = process.env.NEXTAUTH_SECRET ?? process.env.AUTH_SECRET;
  if (fromEnv) return fromEnv;
  const file = path.resolve(/* turbopackIgnore: true */ process.cwd(), process.env.AUTH_SECRET_FILE ?? 'data/.auth-secret');
  try {
    return fs.readFileSync(file, 'utf8').trim();
  } catch {
    fs.mkdirSync(path.dirname(file), { recursive: true });
    const secret = randomBytes(32).toString('base64url');
    try {
      fs.writeFileSync(file, secret + '\n', { mode: 0o600, flag: 'wx' });
      return secret;
    } catch {
      // Another process wrote it first: use theirs.
      return fs.readFileSync(file, 'utf8').trim();
    }
  }
}
