import { hash, verify } from '@node-rs/argon2';

// @node-rs/argon2's Algorithm.Argon2id (a const enum, which isolatedModules cannot import)
const ARGON2ID = 2;

export function hashPassword(password: string): Promise<string> {
  return hash(password, { algorithm: ARGON2ID });
}

export async function verifyPassword(stored: string, password: string): Promise<boolean> {
  try {
    return await verify(stored, password);
  } catch {
    return false;
  }
}
