/**
 * Issue 43: what Chef tools need to trust the console's own HTTPS certificate (TLS_CERT_FILE), for the Chef tools
 * page. knife and chef-client verify the server's certificate against their CA bundle plus `trusted_certs_dir`
 * (~/.chef/trusted_certs for knife, filled by `knife ssl fetch`; /etc/chef/trusted_certs on a node): a self-signed
 * certificate, or one from a private CA, must be put there. Reads only the public certificate chain.
 */
import fs from 'node:fs';
import { X509Certificate } from 'node:crypto';

export interface CertificateTrust {
  /** The server certificate's subject common name (or the whole subject). */
  subject: string;
  /** When the server certificate expires (ISO). */
  validTo: string;
  /** The server certificate signs itself. */
  selfSigned: boolean;
  /** The chain ends at a self-signed CA certificate other than the server's own (a private CA). */
  privateCa: boolean;
  /**
   * The certificate Chef tools must trust (PEM): the self-signed one, or the private CA's root; null when the chain
   * ends at a certificate signed by someone else (a public CA the tools' bundle may already trust).
   */
  trustPem: string | null;
  /** The SHA-256 fingerprint of that certificate (or of the server's own when there is none to add), as `openssl x509 -fingerprint -sha256` prints it. */
  fingerprint256: string;
}

const PEM_BLOCK = /-----BEGIN CERTIFICATE-----[\s\S]+?-----END CERTIFICATE-----/g;

const commonName = (subject: string) => /(?:^|\n)CN=([^\n]+)/.exec(subject)?.[1] ?? subject.replace(/\n/g, ', ');

/** What a PEM chain (server certificate first, as TLS_CERT_FILE holds it) asks of Chef tools; null when it holds no certificate. */
export function certificateTrust(pemChain: string): CertificateTrust | null {
  const blocks = pemChain.match(PEM_BLOCK) ?? [];
  const certs = blocks.flatMap((pem) => {
    try {
      return [{ pem, cert: new X509Certificate(pem) }];
    } catch {
      return [];
    }
  });
  if (!certs.length) return null;
  const leaf = certs[0];
  const root = certs[certs.length - 1];
  const signsItself = (c: X509Certificate) => c.subject === c.issuer && c.verify(c.publicKey);
  const selfSigned = signsItself(leaf.cert);
  const privateCa = !selfSigned && certs.length > 1 && signsItself(root.cert);
  const trusted = selfSigned ? leaf : privateCa ? root : null;
  return {
    subject: commonName(leaf.cert.subject),
    validTo: new Date(leaf.cert.validTo).toISOString(),
    selfSigned,
    privateCa,
    trustPem: trusted ? `${trusted.pem}\n` : null,
    fingerprint256: (trusted ?? leaf).cert.fingerprint256,
  };
}

/** The console's own certificate (TLS_CERT_FILE) as Chef tools must trust it; null when the console does not serve HTTPS itself or the file cannot be read. */
export function serverCertificateTrust(env: Record<string, string | undefined> = process.env): CertificateTrust | null {
  const file = env.TLS_CERT_FILE;
  if (!file) return null;
  try {
    return certificateTrust(fs.readFileSync(file, 'utf8'));
  } catch {
    return null;
  }
}
