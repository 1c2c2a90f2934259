import { z } from 'zod';

const text = (max = 200) => z.string().trim().min(1, 'is required').max(max, `is at most ${max} characters`);

export const ZOrderDirectivesInput = z
  .object({
    techniques: z
      .array(
        z.object({
          name: text(),
          version: z.string().max(50).optional(),
          multiInstance: z.boolean({ error: 'must be true or false' }),
          generationMode: z.string().max(50).optional(),
        }),
      )
      .max(500),
    directives: z
      .array(
        z.object({
          id: text(100),
          name: text(),
          technique: text(),
          techniqueVersion: z.string().max(50).optional(),
          priority: z.number({ error: 'must be a number' }).int('must be a whole number').min(0, 'must be 0 (highest) to 10 (lowest)').max(10, 'must be 0 (highest) to 10 (lowest)').optional(),
          values: z.record(z.string(), z.array(z.string().max(10_000)).max(1000)).optional(),
        }),
      )
      .max(2000),
    rules: z.array(z.object({ id: text(100), name: text(), directiveIds: z.array(z.string()).max(2000) })).max(1000),
  })
  .superRefine((input, ctx) => {
    const techniques = new Set(input.techniques.map((t) => t.name));
    const ids = new Set<string>();
    input.directives.forEach((d, i) => {
      if (!techniques.has(d.technique)) ctx.addIssue({ code: 'custom', path: ['directives', i, 'technique'], message: `names technique '${d.technique}', which is not defined` });
      if (ids.has(d.id)) ctx.addIssue({ code: 'custom', path: ['directives', i, 'id'], message: `'${d.id}' is used by two directives` });
      ids.add(d.id);
    });
    input.rules.forEach((r, i) =>
      r.directiveIds.forEach((id, j) => {
        if (!ids.has(id)) ctx.addIssue({ code: 'custom', path: ['rules', i, 'directiveIds', j], message: `names directive '${id}', which does not exist` });
      }),
    );
    // Bounds on the work, not only the input (issue 17, item 13): the answer lists every (rule, directive)
    // pair with both names and a reason, and the engine sorts them, so pairs, not bytes, drive time and size.
    let totalValues = 0;
    for (const d of input.directives) for (const list of Object.values(d.values ?? {})) totalValues += list.length;
    if (totalValues > ORDERING_LIMITS.values) ctx.addIssue({ code: 'custom', path: ['directives'], message: `hold ${totalValues} values; at most ${ORDERING_LIMITS.values} in one preview` });
    const pairs = input.rules.reduce((n, r) => n + r.directiveIds.length, 0);
    if (pairs > ORDERING_LIMITS.pairs) ctx.addIssue({ code: 'custom', path: ['rules'], message: `apply directives ${pairs} times; at most ${ORDERING_LIMITS.pairs} (rule, directive) pairs in one preview` });
  });

/** Bounds of one ordering preview: request bytes, values, (rule, directive) pairs. */
export const ORDERING_LIMITS = { bytes: 1024 * 1024, values: 20_000, pairs: 5_000 };

const filterValue = z.union([z.string().max(200), z.array(z.string().max(200)).max(50)]);
export const ZResolveResourceMapInput = z.object({
  mode: z.enum(['rfc', 'chef14', 'chef15'], { error: "must be 'rfc', 'chef14' or 'chef15'" }),
  chefVersion: z.string().regex(/^\d+(\.\d+){0,2}$/, 'must be a version such as 18.4.2'),
  node: z.object({ platform: text(100), platform_family: text(100), platform_version: z.string().regex(/^\d+(\.\d+){0,3}$/, 'must be a version such as 22.04'), os: text(100) }),
  registrations: z
    .array(
      z.object({
        key: z.string().regex(/^[a-z_][a-z0-9_]*$/, 'must be a resource name such as package or my_service'),
        className: text(),
        source: z.enum(['core', 'cookbook'], { error: "must be 'core' or 'cookbook'" }),
        kind: z.enum(['resource', 'provider']).optional(),
        filters: z
          .object({
            platform: filterValue.optional(),
            platform_family: filterValue.optional(),
            platform_version: filterValue.optional(),
            os: filterValue.optional(),
            override: z.boolean().optional(),
            block: z.object({ label: text(), result: z.boolean() }).optional(),
          })
          .strict()
          .optional(),
        allowCookbookOverride: z.union([z.boolean(), z.string().max(100)]).optional(),
        coreOverride: z.boolean().optional(),
        chefVersion: z.string().max(100).optional(),
      }),
    )
    .max(5000),
});
