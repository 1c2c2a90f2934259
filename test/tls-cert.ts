/**
 * A throw-away self-signed certificate for 127.0.0.1 (openssl, which every Debian has), for tests that serve
 * HTTPS as TLS_CERT_FILE and TLS_KEY_FILE make the console do. Written under `dir` (a mkdtemp of the caller).
 */
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import type { TlsFiles } from '@/lib/ops/tls';

export function selfSignedCert(dir: string): TlsFiles & { certFile: string; keyFile: string } {
  const keyFile = path.join(dir, 'tls-key.pem');
  const certFile = path.join(dir, 'tls-cert.pem');
  execFileSync('openssl', ['req', '-x509', '-newkey', 'rsa:2048', '-nodes', '-subj', '/CN=127.0.0.1', '-addext', 'subjectAltName=IP:127.0.0.1', '-days', '2', '-keyout', keyFile, '-out', certFile], { stdio: 'pipe' });
  return { key: fs.readFileSync(keyFile), cert: fs.readFileSync(certFile), keyFile, certFile };
}
