import type { CertificateTrust } from '@/lib/ops/certificate-trust';

export interface ConnectSnippetInput {
  serverUrl: string;
  org: string;
  userName: string;
  validatorName: string;
  /** The stage and policy the node's client.rb names (null: the reader may view no stage, or it runs no policy). */
  stage: string | null;
  policy: string | null;
  /** The console's own certificate, when it serves HTTPS itself with one Chef tools must be told to trust. */
  trust: CertificateTrust | null;
}

/** A Ruby string literal as config.rb and client.rb read it. */
const rb = (s: string) => `"${s.replace(/["\\#]/g, '\\$&')}"`;

/** The host part of the server URL (the file name knife ssl fetch gives the certificate). */
export function serverHost(serverUrl: string): string {
  try {
    return new URL(serverUrl).hostname;
  } catch {
    return 'console';
  }
}

/** The exact ~/.chef/config.rb and /etc/chef/client.rb for this server, the chosen stage and policy, and the certificate to trust. */
export function connectSnippets(i: ConnectSnippetInput): { configRb: string; clientRb: string } {
  const orgUrl = `${i.serverUrl}/organizations/${i.org}`;
  const mustTrust = !!i.trust?.trustPem;
  const configRb = [
    `chef_server_url ${rb(orgUrl)}`,
    `node_name ${rb(i.userName)}`,
    `client_key File.join(__dir__, ${rb(`${i.userName}.pem`)})`,
    ...(mustTrust ? ['# this server\'s certificate: `knife ssl fetch` saves it in ~/.chef/trusted_certs (trusted_certs_dir)'] : []),
    '# optional: authentication_protocol_version "1.3"',
  ].join('\n');
  const clientRb = [
    `chef_server_url ${rb(orgUrl)}`,
    `validation_client_name ${rb(i.validatorName)}`,
    'validation_key "/etc/chef/validator.pem"',
    ...(mustTrust ? ['ssl_verify_mode :verify_peer', `trusted_certs_dir "/etc/chef/trusted_certs"  # holds ${serverHost(i.serverUrl)}.crt`] : []),
    'use_policyfile true',
    `policy_group ${i.stage ? rb(i.stage) : '"<stage>"  # you may view no stage yet'}`,
    `policy_name ${i.policy ? rb(i.policy) : `"<policy>"${i.stage ? `  # ${i.stage} runs no policy yet` : ''}`}`,
  ].join('\n');
  return { configRb, clientRb };
}
