/**
 * Issue 43: what the Chef tools page tells about trusting the console's HTTPS certificate (TLS_CERT_FILE): a
 * self-signed certificate and a private CA's chain must be put in trusted_certs_dir (with the certificate to put
 * there and its fingerprint); a chain ending at a certificate signed by someone else needs nothing added.
 * Real certificates (openssl).
 */
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { X509Certificate } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { selfSignedCert } from '@/test/tls-cert';
import { certificateTrust, serverCertificateTrust } from './certificate-trust';
import { connectSnippets } from '@/components/connect-snippets';

let dir: string;
const read = (f: string) => fs.readFileSync(path.join(dir, f), 'utf8');
const openssl = (...args: string[]) => execFileSync('openssl', args, { cwd: dir, stdio: 'pipe' });

beforeAll(() => {
  dir = fs.mkdtempSync(path.join(os.tmpdir(), 'cert-trust-'));
  // A private CA and a server certificate it signed (the chain file: server first, then the CA).
  openssl('req', '-x509', '-newkey', 'rsa:2048', '-nodes', '-subj', '/CN=Polish Test CA', '-days', '2', '-keyout', 'ca-key.pem', '-out', 'ca.pem');
  openssl('req', '-newkey', 'rsa:2048', '-nodes', '-subj', '/CN=console.example.test', '-keyout', 'srv-key.pem', '-out', 'srv.csr');
  openssl('x509', '-req', '-in', 'srv.csr', '-CA', 'ca.pem', '-CAkey', 'ca-key.pem', '-CAcreateserial', '-days', '2', '-out', 'srv.pem');
  fs.writeFileSync(path.join(dir, 'chain.pem'), read('srv.pem') + read('ca.pem'));
});

afterAll(() => fs.rmSync(dir, { recursive: true, force: true }));

describe('certificateTrust', () => {
  it('a self-signed certificate: it is the one to trust, with its fingerprint', () => {
    const files = selfSignedCert(dir);
    const t = certificateTrust(files.cert.toString('utf8'))!;
    expect(t).toMatchObject({ subject: '127.0.0.1', selfSigned: true, privateCa: false });
    expect(t.trustPem).toContain('-----BEGIN CERTIFICATE-----');
    expect(t.fingerprint256).toBe(new X509Certificate(files.cert).fingerprint256);
    // As the page reads it: from TLS_CERT_FILE; none without one, or with an unreadable one.
    expect(serverCertificateTrust({ TLS_CERT_FILE: files.certFile })?.fingerprint256).toBe(t.fingerprint256);
    expect(serverCertificateTrust({})).toBeNull();
    expect(serverCertificateTrust({ TLS_CERT_FILE: path.join(dir, 'missing.pem') })).toBeNull();
  });

  it("a private CA's chain: the CA's root is the one to trust", () => {
    const t = certificateTrust(read('chain.pem'))!;
    expect(t).toMatchObject({ subject: 'console.example.test', selfSigned: false, privateCa: true });
    expect(t.fingerprint256).toBe(new X509Certificate(read('ca.pem')).fingerprint256);
    expect(new X509Certificate(t.trustPem!).subject).toContain('CN=Polish Test CA');
  });

  it('a server certificate alone, signed by a CA not in the file: nothing to add', () => {
    const t = certificateTrust(read('srv.pem'))!;
    expect(t).toMatchObject({ selfSigned: false, privateCa: false, trustPem: null });
    expect(certificateTrust('not a certificate')).toBeNull();
  });
});

describe('connectSnippets', () => {
  const base = { serverUrl: 'https://console.example.test:8443', org: 'console', userName: 'release', validatorName: 'console-validator' };
  it("names the chosen stage and policy, and tells client.rb where the trusted certificate goes", () => {
    const trust = certificateTrust(read('chain.pem'));
    const { configRb, clientRb } = connectSnippets({ ...base, stage: 'qa', policy: 'api-gateway', trust });
    expect(clientRb).toContain('policy_group "qa"');
    expect(clientRb).toContain('policy_name "api-gateway"');
    expect(clientRb).toContain('ssl_verify_mode :verify_peer');
    expect(clientRb).toContain('trusted_certs_dir "/etc/chef/trusted_certs"  # holds console.example.test.crt');
    expect(configRb).toContain('chef_server_url "https://console.example.test:8443/organizations/console"');
    expect(configRb).toContain('knife ssl fetch');
  });

  it('without a certificate to trust or a stage to name, says so instead of inventing one', () => {
    const { configRb, clientRb } = connectSnippets({ ...base, stage: null, policy: null, trust: null });
    expect(clientRb).toContain('policy_group "<stage>"  # you may view no stage yet');
    expect(clientRb).not.toContain('trusted_certs_dir');
    expect(configRb).not.toContain('knife ssl fetch');
  });
});
