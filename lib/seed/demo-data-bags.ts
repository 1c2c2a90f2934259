/**
 * Issue 24: the demo's data bags, and the recipe of the demo's `monitoring`
 * cookbook that reads them, so a real chef-client node converges the demo's
 * `monitoring` policy against them:
 *
 * - `demo_settings/monitoring`: plain settings (`data_bag_item`).
 * - `demo_secrets/graphite`: an encrypted item (Chef's format 3,
 *   aes-256-gcm), encrypted here with DEMO_DATA_BAG_SECRET, which is public
 *   (it is in this file and printed on the demo's Data bags page): give it to
 *   a node as its `encrypted_data_bag_secret` file. Read with
 *   `Chef::EncryptedDataBagItem.load`.
 * - `demo_vault/alerting` and `alerting_keys`: a chef-vault item
 *   (`chef_vault_item`), built exactly as chef-vault builds one (item_keys.rb,
 *   item.rb): a random 32-byte shared secret encrypts the values (format 3),
 *   and `_keys` holds that secret RSA-encrypted (PKCS#1 v1.5, base64 as Ruby's
 *   Base64.encode64 writes it) for each client's public key, with the vault's
 *   search query. The seed creates two demo clients (two of the monitoring
 *   dev nodes) with fresh keys and shares the vault with them; their private
 *   keys are thrown away, so nobody can read the seeded vault. That is the
 *   point of the demo page (holders, and the nodes the search finds whose
 *   keys are missing). To read it from a real node, re-create it with your
 *   own knife key (README, "Data bags": `knife vault delete`, then
 *   `knife vault create … -S 'policy_name:monitoring' -A <you>`, and
 *   `knife vault refresh` when new nodes register).
 */
import { createCipheriv, createHash, createPublicKey, publicEncrypt, randomBytes, constants } from 'node:crypto';
import type { Tx } from '@/lib/db/client';
import { generateChefKeyPair } from '@/lib/auth/key-pairs';
import { classifyItem } from '@/lib/services/data-bags';
import { indexClient, indexDataBagItem } from '@/lib/services/seed-writes';
import { HOME_ORG_ID } from '@/lib/services/organizations';

export { DEMO_BAGS, DEMO_DATA_BAG_SECRET, demoBagCookbookFiles } from './demo-data-bags-cookbook';
import { DEMO_BAGS, DEMO_DATA_BAG_SECRET } from './demo-data-bags-cookbook';

/** The demo vault's search query (chef-vault stores it in the `_keys` item; `knife vault refresh` re-runs it). */
export const DEMO_VAULT_QUERY = 'policy_name:monitoring';

/** The demo clients the seeded vault is shared with (two of the monitoring policy's dev nodes). */
export const DEMO_VAULT_CLIENTS = ['monitoring-dev-01.example.com', 'monitoring-dev-02.example.com'];

export const DEMO_SETTINGS_ITEM = { id: 'monitoring', graphite_host: 'graphite.internal', graphite_port: 2003, retention_days: 14, alert_email: 'oncall@example.com' };
export const DEMO_SECRET_ITEM = { id: 'graphite', api_key: 'demo-graphite-api-key', password: 'demo-graphite-password' };
export const DEMO_VAULT_ITEM = { id: 'alerting', pagerduty_key: 'demo-pagerduty-routing-key', slack_webhook: 'https://hooks.slack.example/services/demo' };

/** Ruby's Base64.encode64: lines of 60 characters, each ending with a newline. */
function rubyBase64(buf: Buffer): string {
  const s = buf.toString('base64');
  let out = '';
  for (let i = 0; i < s.length; i += 60) out += s.slice(i, i + 60) + '\n';
  return out;
}

/** One value as Chef::EncryptedDataBagItem's format 3 writes it (Version3Encryptor). */
function encryptValueV3(value: unknown, secret: string | Buffer): { encrypted_data: string; iv: string; auth_tag: string; version: 3; cipher: 'aes-256-gcm' } {
  const key = createHash('sha256').update(secret).digest();
  const iv = randomBytes(12);
  const cipher = createCipheriv('aes-256-gcm', key, iv);
  cipher.setAAD(Buffer.alloc(0));
  const data = Buffer.concat([cipher.update(JSON.stringify({ json_wrapper: value }), 'utf8'), cipher.final()]);
  return { encrypted_data: rubyBase64(data), iv: rubyBase64(iv), auth_tag: rubyBase64(cipher.getAuthTag()), version: 3, cipher: 'aes-256-gcm' };
}

/** Chef::EncryptedDataBagItem.encrypt_data_bag_item: every value but `id` encrypted. */
function encryptItem(doc: { id: string } & Record<string, unknown>, secret: string | Buffer): Record<string, unknown> {
  return Object.fromEntries(Object.entries(doc).map(([k, v]) => [k, k === 'id' ? v : encryptValueV3(v, secret)]));
}

/**
 * A chef-vault item and its `_keys` item (default mode), as `knife vault create`
 * writes them: the values encrypted with a fresh 32-byte shared secret, and that
 * secret encrypted for each holder's public key (ChefVault::ItemKeys.encode_key).
 */
export function chefVaultItems(
  values: { id: string } & Record<string, unknown>,
  holders: { name: string; type: 'clients' | 'admins'; publicKey: string }[],
  searchQuery: string | string[] = [],
): { item: Record<string, unknown>; keys: Record<string, unknown> } {
  const secret = randomBytes(32);
  const keys: Record<string, unknown> = { id: `${values.id}_keys`, admins: [] as string[], clients: [] as string[], search_query: searchQuery, mode: 'default' };
  for (const h of holders) {
    (keys[h.type] as string[]).push(h.name);
    keys[h.name] = rubyBase64(publicEncrypt({ key: createPublicKey(h.publicKey), padding: constants.RSA_PKCS1_PADDING }, secret));
  }
  return { item: encryptItem(values, secret), keys };
}

async function putItem(tx: Tx, bag: { id: string; name: string }, doc: Record<string, unknown> & { id: string }) {
  await tx.dataBagItem.create({ data: { bagId: bag.id, itemId: doc.id, document: JSON.stringify(doc), kind: classifyItem(doc).kind } });
  await tx.dataBag.update({ where: { id: bag.id }, data: { itemCount: { increment: 1 } } });
  await indexDataBagItem(tx, bag.name, doc.id, doc);
}

/** The demo vault clients' key pairs: generated before seedDemo's transaction opens (RSA generation takes a while on a loaded machine). */
export function demoVaultKeyPairs(): Promise<{ publicKey: string }[]> {
  return Promise.all(DEMO_VAULT_CLIENTS.map(() => generateChefKeyPair()));
}

/** Seeds the demo's bags (called once from seedDemo, inside its transaction and under its one `seed.demo` audit event, after the nodes), with keys from demoVaultKeyPairs. */
export async function seedDemoDataBags(tx: Tx, pairs: { publicKey: string }[]): Promise<void> {
  const holders: { name: string; type: 'clients'; publicKey: string }[] = [];
  for (const [i, name] of DEMO_VAULT_CLIENTS.entries()) {
    await tx.chefName.create({ data: { name, kind: 'client', scope: HOME_ORG_ID } });
    const client = await tx.chefClient.create({ data: { name, orgId: HOME_ORG_ID }, select: { id: true, name: true, validator: true } });
    await indexClient(tx, client);
    await tx.chefKey.create({ data: { clientId: client.id, name: 'default', publicKey: pairs[i].publicKey } });
    holders.push({ name, type: 'clients', publicKey: pairs[i].publicKey });
  }
  const bag = (name: string) => tx.dataBag.create({ data: { name }, select: { id: true, name: true } });
  const settings = await bag(DEMO_BAGS.settings);
  await putItem(tx, settings, DEMO_SETTINGS_ITEM);
  const secrets = await bag(DEMO_BAGS.secrets);
  await putItem(tx, secrets, encryptItem(DEMO_SECRET_ITEM, DEMO_DATA_BAG_SECRET) as typeof DEMO_SECRET_ITEM);
  const vault = await bag(DEMO_BAGS.vault);
  const { item, keys } = chefVaultItems(DEMO_VAULT_ITEM, holders, DEMO_VAULT_QUERY);
  await putItem(tx, vault, item as { id: string });
  await putItem(tx, vault, keys as { id: string });
}
