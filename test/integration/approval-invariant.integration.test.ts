/**
 * Issue 28 (high finding): guards judge the change, not the step. Generated
 * move sequences (fast-check) into a protected stage, each move applied with
 * exactly the approvals its guard asks for, on the real database (this file
 * also runs on PostgreSQL: `npm run test:integration:pg -- test/integration/approval-invariant.integration.test.ts`).
 *
 * The invariant (lib/domain/approval/move.ts): for every i < k with s_i a
 * revision, max(approvals asked by the moves s_i → … → s_k) ≥ the approvals
 * the one move s_i → s_k needs (evaluateApprovalRules of that diff; a
 * removal needs at least one approval).
 */
import { createHash } from 'node:crypto';
import fc from 'fast-check';
import { beforeAll, describe, expect, it } from 'vitest';
import { accessFor, seed } from '@/test/helpers';
import { db } from '@/lib/db/client';
import type { Access } from '@/lib/auth/permissions';
import { computeRevisionId, evaluateApprovalRules, type ApprovalRule, type PolicyLock } from '@/lib/domain';
import { CORE_RESOURCE_NAMES } from '@/lib/services/funnel';
import { createUser } from '@/lib/services/users';
import { putStage, removeGroupPolicy, setGroupPolicy } from '@/lib/services/stages';
import { approvePromotionRequest } from '@/lib/services/promotion';
import { liftStageProtection, setStageProtection } from '@/lib/services/guards';

const STAGE = 'invariant';
const APPROVERS = ['inv-ap1@example.com', 'inv-ap2@example.com', 'inv-ap3@example.com'];
let admin: Access;
const approver: Access[] = [];

beforeAll(async () => {
  await seed();
  admin = await accessFor('admin@example.com');
  for (const email of APPROVERS) {
    await createUser(admin, { email, name: email, password: 'approver-password-1', isAdmin: true });
    approver.push(await accessFor(email));
  }
  await putStage(admin, { name: STAGE });
});

interface Variant {
  cookbooks: Record<string, string>;
  runList: number;
  security: number | null;
}

const VERSIONS = ['1.0.0', '1.2.0', '2.0.0', '2.1.0', '3.0.0'];
const RUN_LISTS = [['recipe[app::default]'], ['recipe[app::default]', 'recipe[nginx::default]'], ['recipe[nginx::default]']];

const variantArb: fc.Arbitrary<Variant> = fc.record({
  cookbooks: fc.record({ app: fc.constantFrom(...VERSIONS), nginx: fc.constantFrom(...VERSIONS), apt: fc.constantFrom(...VERSIONS) }, { requiredKeys: [] }),
  runList: fc.integer({ min: 0, max: RUN_LISTS.length - 1 }),
  security: fc.option(fc.integer({ min: 1, max: 2 }), { nil: null }),
});

const weight = fc.integer({ min: 0, max: 3 });
const rulesArb = fc.record({
  base: fc.integer({ min: 0, max: 1 }),
  any: weight,
  major: weight,
  runList: weight,
  attr: weight,
});

/** A move: set the stage to variant `set` (an index into the run's variants), or remove the policy. */
const moveArb = fc.oneof(fc.record({ set: fc.nat() }), fc.constant({ remove: true as const }));

function lockText(name: string, v: Variant): string {
  const cookbook_locks = Object.fromEntries(
    Object.entries(v.cookbooks)
      .sort(([a], [b]) => (a < b ? -1 : 1))
      .map(([cb, version]) => [cb, { version, identifier: createHash('sha1').update(`${cb}@${version}`).digest('hex') }]),
  );
  const lock = {
    revision_id: '',
    name,
    run_list: RUN_LISTS[v.runList],
    cookbook_locks,
    default_attributes: v.security === null ? { app: { port: 80 } } : { app: { port: 80 }, security: { level: v.security } },
    override_attributes: {},
  };
  lock.revision_id = computeRevisionId(JSON.stringify(lock));
  return JSON.stringify(lock);
}

/** Applies one move as admin@ (not an approver); approves its request with as many approvers as it asks for. Returns the approvals it took, or null for a no-op. */
async function move(policy: string, text: string | null): Promise<number | null> {
  const current = await db().groupPolicy.findFirst({ where: { group: { name: STAGE }, policy: { name: policy } }, select: { revision: { select: { revisionId: true } } } });
  if (text === null && !current) return null;
  if (text !== null && current && (JSON.parse(text) as PolicyLock).revision_id === current.revision.revisionId) return null;
  const r = text === null ? await removeGroupPolicy(admin, { group: STAGE, policy }) : await setGroupPolicy(admin, { group: STAGE, policy, text });
  if (!r.request) return 0;
  let request = r.request;
  let i = 0;
  while (request.status === 'pending') {
    expect(i, `request ${request.id} asks for more approvals than the ${APPROVERS.length} approvers`).toBeLessThan(APPROVERS.length);
    request = await approvePromotionRequest(approver[i++], { id: request.id });
  }
  expect(request.status).toBe('applied');
  return request.approvals_required;
}

let run = 0;

describe('no sequence of moves reaches, with fewer approvals, what one move needs more for', () => {
  it('holds for generated move sequences (set / remove) under generated rules', async () => {
    await fc.assert(
      fc.asyncProperty(rulesArb, fc.array(variantArb, { minLength: 2, maxLength: 4 }), fc.integer({ min: 0, max: 3 }), fc.array(moveArb, { minLength: 1, maxLength: 6 }), async (r, variants, start, moves) => {
        const policy = `inv-${++run}`;
        const texts = variants.map((v) => lockText(policy, v));
        const rules: ApprovalRule[] = [
          { kind: 'any_change', approvals: r.any },
          { kind: 'major_bump', approvals: r.major },
          { kind: 'run_list_change', approvals: r.runList },
          { kind: 'attribute_path', approvals: r.attr, patterns: ['security.*'] },
        ];
        // The start state is placed while the stage is unprotected; then the rules apply.
        await liftStageProtection(admin, { stage: STAGE });
        const s0 = texts[start % texts.length];
        await setGroupPolicy(admin, { group: STAGE, policy, text: s0 });
        await setStageProtection(admin, { stage: STAGE, protected: true, approvalsRequired: r.base, rules, approvers: APPROVERS.map((e) => `user:${e}`) });

        const states: (PolicyLock | null)[] = [JSON.parse(s0) as PolicyLock];
        const asked: number[] = [];
        for (const m of moves) {
          const text = 'remove' in m ? null : texts[m.set % texts.length];
          const took = await move(policy, text);
          if (took === null) continue;
          states.push(text === null ? null : (JSON.parse(text) as PolicyLock));
          asked.push(took);
        }
        // Every suffix of the sequence that starts at a revision.
        for (let k = 1; k < states.length; k++) {
          for (let i = 0; i < k; i++) {
            const from = states[i];
            if (!from) continue;
            const to = states[k];
            const oneMove = evaluateApprovalRules({ from, to, approvalsRequired: r.base, rules, coreResources: CORE_RESOURCE_NAMES }).approvalsRequired;
            const needed = to === null ? Math.max(1, oneMove) : oneMove;
            const took = Math.max(...asked.slice(i, k));
            expect(took, `moves ${i + 1}..${k} of ${JSON.stringify({ rules: r, variants, start, moves })} took ${took} approval(s); the one move needs ${needed}`).toBeGreaterThanOrEqual(needed);
          }
        }
      }),
      {
        numRuns: 30,
        examples: [
          // The review's staging case: major bumps need 1; remove webapp (nginx 1.x), then set it at nginx 2.x.
          [{ base: 0, any: 0, major: 1, runList: 0, attr: 0 }, [{ cookbooks: { nginx: '1.2.0' }, runList: 2, security: null }, { cookbooks: { nginx: '2.0.0' }, runList: 2, security: null }], 0, [{ remove: true }, { set: 1 }]],
          // The review's production case: any change 1, major bump 2; remove the cookbook, then add it back at the next major.
          [
            { base: 0, any: 1, major: 2, runList: 2, attr: 2 },
            [{ cookbooks: { app: '1.0.0', nginx: '1.2.0' }, runList: 0, security: null }, { cookbooks: { app: '1.0.0' }, runList: 0, security: null }, { cookbooks: { app: '1.0.0', nginx: '2.0.0' }, runList: 0, security: null }],
            0,
            [{ set: 1 }, { set: 2 }],
          ],
          // A removal under rules that a removal's diff does not trigger.
          [{ base: 0, any: 0, major: 2, runList: 0, attr: 0 }, [{ cookbooks: { app: '1.0.0' }, runList: 0, security: null }, { cookbooks: { app: '1.0.0' }, runList: 0, security: 1 }], 0, [{ remove: true }]],
        ],
      },
    );
  }, 600_000);
});
