/**
 * Shared data and helpers for the oc-chef-pedant ports (test/integration/chef-pedant-*.integration.test.ts).
 * Payloads are copied from chef/chef-server oc-chef-pedant (spec/api/policies/complete_endpoint_spec.rb,
 * lib/pedant/rspec/node_util.rb, keys_util.rb); see docs/pedant-notes.md for the expectations.
 */
import { createHash, createSign, generateKeyPairSync, randomBytes } from 'node:crypto';
import { request as httpRequest } from 'node:http';
import { request as httpsRequest } from 'node:https';
import type { ChefHarness, ChefResponse } from './chef-harness';

// ---------------------------------------------------------------------------------------------
// Policies (pedant: spec/api/policies/complete_endpoint_spec.rb)

export const MIN_REV = '909c26701e291510eacdc6c06d626b9fa5350d25';
export const CANONICAL_REV = 'cf0885f3f2f5edaa44bf8d5e5de4c4d0efa51411';

export type PolicyDoc = Record<string, any>;

/** pedant `minimum_valid_policy_payload` (name and revision_id overridable as `modified_policy`). */
export function minimumPolicy(name = 'some_policy_name', revisionId = MIN_REV): PolicyDoc {
  return {
    revision_id: revisionId,
    name,
    run_list: ['recipe[policyfile_demo::default]'],
    cookbook_locks: {
      policyfile_demo: {
        identifier: 'f04cc40faf628253fe7d9566d66a1733fb1afbe9',
        version: '1.2.3',
      },
    },
  };
}

/** pedant `canonical_policy_payload`. */
export function canonicalPolicy(): PolicyDoc {
  return {
    revision_id: CANONICAL_REV,
    name: 'some_policy_name',
    run_list: ['recipe[policyfile_demo::default]'],
    named_run_lists: {
      update_jenkins: ['recipe[policyfile_demo::other_recipe]'],
    },
    cookbook_locks: {
      policyfile_demo: {
        version: '0.1.0',
        identifier: 'f04cc40faf628253fe7d9566d66a1733fb1afbe9',
        dotted_decimal_identifier: '67638399371010690.23642238397896298.25512023620585',
        source: 'cookbooks/policyfile_demo',
        cache_key: null,
        scm_info: {
          scm: 'git',
          remote: 'git@github.com:danielsdeleo/policyfile-jenkins-demo.git',
          revision: 'edd40c30c4e0ebb3658abde4620597597d2e9c17',
          working_tree_clean: false,
          published: false,
          synchronized_remote_branches: [],
        },
        source_options: {
          path: 'cookbooks/policyfile_demo',
        },
      },
    },
    solution_dependencies: {
      Policyfile: [['policyfile_demo', '>= 0.0.0']],
      dependencies: {
        'policyfile_demo (0.1.0)': [],
      },
    },
  };
}

/** pedant `mutate_json`: a deep copy changed by `fn`. */
export function mutate(doc: PolicyDoc, fn: (d: PolicyDoc) => void): PolicyDoc {
  const copy = structuredClone(doc);
  fn(copy);
  return copy;
}

/**
 * Removes every policy group and policy of the organization (as pedant's after-hooks do), groups first,
 * so that the console's "409 on deleting a revision a stage runs" never gets in the way.
 */
export async function resetPolicies(chef: ChefHarness): Promise<void> {
  const groups = await chef.request('GET', 'policy_groups', { as: 'admin' });
  for (const g of Object.keys(groups.json ?? {})) {
    await chef.request('DELETE', `policy_groups/${encodeURIComponent(g)}`, { as: 'admin' });
  }
  const policies = await chef.request('GET', 'policies', { as: 'admin' });
  for (const p of Object.keys(policies.json ?? {})) {
    await chef.request('DELETE', `policies/${encodeURIComponent(p)}`, { as: 'admin' });
  }
}

// ---------------------------------------------------------------------------------------------
// Nodes (pedant: lib/pedant/rspec/node_util.rb)

/** pedant `new_node(name)`. */
export function newNode(name: string, extra: Record<string, unknown> = {}): Record<string, any> {
  return {
    name,
    json_class: 'Chef::Node',
    chef_type: 'node',
    chef_environment: '_default',
    override: {},
    normal: { is_anyone: 'no' },
    default: {},
    automatic: {},
    run_list: [],
    ...extra,
  };
}

/** pedant "with temporary testing node" (`node_name` 'pedant_node_test' there). */
export function testingNode(name: string): Record<string, any> {
  return {
    name,
    json_class: 'Chef::Node',
    chef_type: 'node',
    chef_environment: '_default',
    override: {},
    normal: {},
    default: {},
    automatic: {},
    run_list: [],
  };
}

/** A copy of `obj` without `key` (pedant `Hash#except`). */
export function without<T extends Record<string, any>>(obj: T, key: string): Record<string, any> {
  const copy: Record<string, any> = { ...obj };
  delete copy[key];
  return copy;
}

// ---------------------------------------------------------------------------------------------
// Names, keys, messages

/** A unique name made of characters valid for nodes, clients and keys. */
export function uniq(prefix: string): string {
  return `${prefix}_${randomBytes(4).toString('hex')}`;
}

export interface KeyPair {
  publicKey: string;
  privateKey: string;
}

const keyCache = new Map<string, KeyPair>();

/** An RSA key pair (SPKI `-----BEGIN PUBLIC KEY-----`, PKCS#1 private key), memoised by label. */
export function keyPair(label: string = uniq('k')): KeyPair {
  let kp = keyCache.get(label);
  if (!kp) {
    const { publicKey, privateKey } = generateKeyPairSync('rsa', { modulusLength: 2048 });
    kp = {
      publicKey: publicKey.export({ type: 'spki', format: 'pem' }).toString(),
      privateKey: privateKey.export({ type: 'pkcs1', format: 'pem' }).toString(),
    };
    keyCache.set(label, kp);
  }
  return kp;
}

export const PUBLIC_KEY_PEM = /^-----BEGIN (RSA )?PUBLIC KEY/;
export const PRIVATE_KEY_PEM = /^-----BEGIN (RSA )?PRIVATE KEY/;

/** The `error` member of a Chef error body. */
export function chefError(res: ChefResponse): unknown {
  return res.json?.error;
}

/**
 * For erchef messages pedant does not check itself, where erchef answers `{"error": "<text>"}` (a string): the text,
 * as a string or as the only entry of an array.
 */
export function errorText(res: ChefResponse): string | undefined {
  const e = res.json?.error;
  if (typeof e === 'string') return e;
  if (Array.isArray(e) && e.length === 1 && typeof e[0] === 'string') return e[0];
  return undefined;
}

/** Absolute path of a request path as the harness resolves it. */
export function absolutePath(chef: ChefHarness, path: string): string {
  return path.startsWith('/') ? path : `/organizations/${chef.org}/${path}`;
}

/**
 * A request signed by hand (mixlib-authentication protocol 1.3, RSA-SHA256) with any private key
 * (checked against mixlib-authentication 3.0.6 signing the same request: identical headers),
 * for the key examples that authenticate with a key created or changed during the test. The signature
 * covers the path without its query string, as Chef's clients sign it.
 */
export async function signedRequest(
  chef: ChefHarness,
  method: string,
  path: string,
  opts: { userId: string; privateKey: string; body?: unknown; apiVersion?: number },
): Promise<ChefResponse> {
  const full = absolutePath(chef, path);
  const signedPath = full.split('?')[0];
  const body = opts.body === undefined ? '' : typeof opts.body === 'string' ? opts.body : JSON.stringify(opts.body);
  const apiVersion = String(opts.apiVersion ?? 2);
  const timestamp = new Date().toISOString().replace(/\.\d{3}Z$/, 'Z');
  const contentHash = createHash('sha256').update(body).digest('base64');
  const canonical = [
    `Method:${method.toUpperCase()}`,
    `Path:${signedPath}`,
    `X-Ops-Content-Hash:${contentHash}`,
    'X-Ops-Sign:version=1.3',
    `X-Ops-Timestamp:${timestamp}`,
    `X-Ops-UserId:${opts.userId}`,
    `X-Ops-Server-API-Version:${apiVersion}`,
  ].join('\n');
  const signature = createSign('RSA-SHA256').update(canonical).sign(opts.privateKey, 'base64');
  const headers: Record<string, string> = {
    Accept: 'application/json',
    'X-Ops-Sign': 'algorithm=sha256;version=1.3;', // exactly as mixlib-authentication sends it
    'X-Ops-Userid': opts.userId,
    'X-Ops-Timestamp': timestamp,
    'X-Ops-Content-Hash': contentHash,
    'X-Ops-Server-API-Version': apiVersion,
  };
  if (body !== '') headers['Content-Type'] = 'application/json';
  const lines = signature.match(/.{1,60}/g) ?? [];
  lines.forEach((line, i) => {
    headers[`X-Ops-Authorization-${i + 1}`] = line;
  });
  if (body !== '') headers['Content-Length'] = String(Buffer.byteLength(body));
  // node:http without keep-alive: a fresh connection per request, so no request lands on a socket the server
  // has just closed as idle (fetch's pooled sockets can do that between slow steps such as key generation).
  const { status, headers: resHeaders, text } = await new Promise<{ status: number; headers: Headers; text: string }>(
    (resolve, reject) => {
      const target = new URL(`${chef.url}${full}`);
      const send = target.protocol === 'https:' ? httpsRequest : httpRequest;
      const req = send(target, { method, headers, agent: false }, (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (c: Buffer) => chunks.push(c));
        res.on('end', () => {
          const h = new Headers();
          for (const [k, v] of Object.entries(res.headers)) {
            if (v !== undefined) h.set(k, Array.isArray(v) ? v.join(', ') : v);
          }
          resolve({ status: res.statusCode ?? 0, headers: h, text: Buffer.concat(chunks).toString('utf8') });
        });
        res.on('error', reject);
      });
      req.on('error', reject);
      req.end(body === '' ? undefined : body);
    },
  );
  let json: unknown;
  try {
    json = text === '' ? undefined : JSON.parse(text);
  } catch {
    json = undefined;
  }
  return { status, headers: resHeaders, text, json };
}

/** A date one year from now in Chef's key format (`YYYY-MM-DDThh:mm:ssZ`). */
export function oneYearFromNow(): string {
  return new Date(Date.now() + 365 * 24 * 3600 * 1000).toISOString().replace(/\.\d{3}Z$/, 'Z');
}

/** pedant keys_util `unexpired_date`, `unexpired_date_2`, `expired_date`. */
export const UNEXPIRED_DATE = '2050-12-24T21:00:00Z';
export const UNEXPIRED_DATE_2 = '2049-12-24T21:00:00Z';
export const EXPIRED_DATE = '2012-01-01T00:00:00Z';
