import { beforeAll, describe, expect, it } from 'vitest';
import { accessFor, seed, snapshot } from '@/test/helpers';
import type { z } from 'zod';
import { deleteScenario, saveScenario as save, ZSaveScenarioInput, scenariosFor } from '@/lib/services/ordering';
import { parseInput } from '@/lib/validation/parse';
import type { Access } from '@/lib/auth/permissions';

/** The action's edge (lib/actions/previews/scenario-actions.ts): parse with the service's schema, then save. */
const saveScenario = async (a: Access, raw: z.input<typeof ZSaveScenarioInput>) => save(a, parseInput(ZSaveScenarioInput, raw));

let dev: Access, viewer: Access, admin: Access;
const input = { techniques: [{ name: 'T', multiInstance: true }], directives: [{ id: 'd1', name: 'D1', technique: 'T' }], rules: [{ id: 'r1', name: 'R1', directiveIds: ['d1'] }] };

beforeAll(async () => {
  await seed();
  [dev, viewer, admin] = await Promise.all(['dev@example.com', 'viewer@example.com', 'admin@example.com'].map(accessFor));
});

describe('ordering scenarios', () => {
  it('ships the documentation examples as shared scenarios', async () => {
    const names = (await scenariosFor(viewer)).map((s) => s.name);
    expect(names).toEqual(['Rudder doc example 1 (typo fixed)', 'Rudder doc example 2']);
  });

  it('private scenarios stay private; only the owner (or an admin) may change one', async () => {
    const mine = await saveScenario(dev, { name: 'My node', input, selectedRules: ['r1'] });
    expect((await scenariosFor(dev)).some((s) => s.id === mine.id && s.mine)).toBe(true);
    expect((await scenariosFor(viewer)).some((s) => s.id === mine.id)).toBe(false);
    const before = snapshot();
    await expect(saveScenario(viewer, { id: mine.id, name: 'Hijack', input })).rejects.toMatchObject({ status: 403 });
    await expect(deleteScenario(viewer, mine.id)).rejects.toMatchObject({ status: 403 });
    expect(snapshot()).toBe(before);
    await saveScenario(dev, { id: mine.id, name: 'My node', shared: true, input });
    expect((await scenariosFor(viewer)).some((s) => s.id === mine.id)).toBe(true);
    await deleteScenario(admin, mine.id);
    expect((await scenariosFor(dev)).some((s) => s.id === mine.id)).toBe(false);
  });

  it('refuses malformed input with paths', async () => {
    await expect(saveScenario(dev, { name: 'x', input: { ...input, directives: [{ id: 'd1', name: 'D1', technique: 'T', priority: 11 }] } })).rejects.toMatchObject({
      status: 400,
      errors: [expect.objectContaining({ path: '/input/directives/0/priority' })],
    });
  });
});
