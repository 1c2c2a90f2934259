/**
 * RSA key generation never blocks the event loop (issue 22 wire speed, issue 28 low finding: 20 key creations by
 * one user stalled /api/health for 10 s). Every path that generates a key pair is exercised at once: POST /clients
 * with create_key, POST /clients/:c/keys and /users/:u/keys with create_key, and PUT /clients/:c with
 * private_key: true (API v0). While they run, the health route is called again and again in the same process, and a
 * setImmediate loop counts the event loop's turns.
 *
 * The assertion is on the event loop being free, not on the machine's speed: a generation that blocks the loop lets
 * it turn only between requests (a few turns per request, however slow the machine), one that runs on the thread
 * pool lets it turn freely for as long as the generations take (on a loaded machine the generations are slower too,
 * so the loop gets more turns, not fewer).
 */
import { createPrivateKey, createPublicKey } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startChefHarness, type ChefHarness, type ChefResponse } from '@/test/chef-harness';
import { keyPair, uniq } from '@/test/chef-pedant-helpers';
import { GET as health } from '@/app/api/health/route';

let chef: ChefHarness;

beforeAll(async () => {
  chef = await startChefHarness();
  // Keys of the signers exist before the measurement (made on first use).
  await chef.privateKey('admin');
  await chef.privateKey('ops');
});

afterAll(async () => {
  await chef?.close();
});

const PER_PATH = 5;

/** A public key (from a private or public key PEM), as SPKI PEM. */
function spki(pem: string, kind: 'private' | 'public'): string {
  return createPublicKey(kind === 'private' ? createPrivateKey(pem) : pem).export({ type: 'spki', format: 'pem' }).toString();
}

describe('RSA key generation', () => {
  it('20 concurrent key creations on every generating path leave the event loop free (/api/health keeps answering)', async () => {
    // Clients to add keys to and to re-key, made with a given public key (no generation before the measurement).
    const given = keyPair('key-generation-given').publicKey;
    const targets: string[] = [];
    for (let i = 0; i < PER_PATH * 2; i++) {
      const name = uniq('keygen-target');
      const r = await chef.request('POST', 'clients', { as: 'admin', body: { name, public_key: given } });
      expect(r.status).toBe(201);
      targets.push(name);
    }

    const creations: { what: string; run: () => Promise<{ res: ChefResponse; privateKey: () => string; publicKey: () => Promise<string> }> }[] = [];
    for (let i = 0; i < PER_PATH; i++) {
      const client = uniq('keygen-new');
      creations.push({
        what: `POST /clients ${client}`,
        run: async () => {
          const res = await chef.request('POST', 'clients', { as: 'admin', body: { name: client, create_key: true } });
          return { res, privateKey: () => res.json.chef_key.private_key, publicKey: async () => res.json.chef_key.public_key };
        },
      });
      const keyTarget = targets[i];
      const keyName = uniq('gen');
      creations.push({
        what: `POST /clients/${keyTarget}/keys`,
        run: async () => {
          const res = await chef.request('POST', `clients/${keyTarget}/keys`, { as: 'admin', body: { name: keyName, create_key: true, expiration_date: 'infinity' } });
          return { res, privateKey: () => res.json.private_key, publicKey: async () => (await chef.request('GET', `clients/${keyTarget}/keys/${keyName}`, { as: 'admin' })).json.public_key };
        },
      });
      const userKey = uniq('gen');
      creations.push({
        what: `POST /users/ops/keys ${userKey}`,
        run: async () => {
          const res = await chef.request('POST', '/users/ops/keys', { as: 'ops', body: { name: userKey, create_key: true, expiration_date: 'infinity' } });
          return { res, privateKey: () => res.json.private_key, publicKey: async () => (await chef.request('GET', `/users/ops/keys/${userKey}`, { as: 'ops' })).json.public_key };
        },
      });
      const rekey = targets[PER_PATH + i];
      creations.push({
        what: `PUT /clients/${rekey} private_key`,
        run: async () => {
          const res = await chef.request('PUT', `clients/${rekey}`, { as: 'admin', apiVersion: 0, body: { name: rekey, private_key: true } });
          return { res, privateKey: () => res.json.private_key, publicKey: async () => (await chef.request('GET', `clients/${rekey}/keys/default`, { as: 'admin' })).json.public_key };
        },
      });
    }
    expect(creations).toHaveLength(20);

    let done = false;
    let turns = 0;
    const spin = () => {
      if (done) return;
      turns++;
      setImmediate(spin);
    };
    let answers = 0;
    const healthLoop = (async () => {
      while (!done) {
        const res = await health();
        expect(res.status).toBe(200);
        answers++;
        // Let the loop turn between two health calls, as separate requests would.
        await new Promise((r) => setImmediate(r));
      }
    })();
    setImmediate(spin);
    const results = await Promise.all(creations.map((c) => c.run())).finally(() => {
      done = true;
    });
    await healthLoop;

    // Every creation answered with a private key that belongs to the public key now stored.
    for (const [i, r] of results.entries()) {
      expect(r.res.status, `${creations[i].what}: ${r.res.text}`).toBeLessThan(300);
      expect(spki(r.privateKey(), 'private')).toBe(spki(await r.publicKey(), 'public'));
    }
    // A blocked loop turns about once per request (each generation holding it until done: 21 turns and 22 health
    // answers here with generateKeyPairSync); a free one keeps turning and answering while 20 generations run on the
    // thread pool (about 3,000 of each on an idle 2-core machine). The bounds sit ten times from both.
    expect(turns).toBeGreaterThan(20 * 10);
    expect(answers).toBeGreaterThan(20 * 5);
  });
});
