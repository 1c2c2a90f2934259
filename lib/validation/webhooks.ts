/**
 * The input of registering a webhook (issues 15, 28, 29), one definition: the admin action parses with it, the
 * /api/v1 contract (lib/api/contracts/guarded.ts) takes it as its body (its fields are the wire's), and
 * lib/services/webhooks/webhooks.ts takes its parsed output (and checks the URL's target). Pure zod.
 */
import { z } from 'zod';
import { WEBHOOK_EVENT_NAMES } from '@/lib/domain/approval/events';
import { RING_EVENT_NAMES } from '@/lib/domain/rings/events';
import { ROLLOUT_EVENT_NAMES } from '@/lib/domain/rollout/events';
import { DEPENDENTS_EVENT_NAMES } from '@/lib/domain/merge/events';

/** Events a webhook subscription can choose (issues 15, 26, 43 and 48). */
export const WEBHOOK_EVENTS = [...WEBHOOK_EVENT_NAMES, ...ROLLOUT_EVENT_NAMES, ...RING_EVENT_NAMES, ...DEPENDENTS_EVENT_NAMES] as const;
/** Issue 29: the body formats a subscription can ask for. */
export const WEBHOOK_FORMATS = ['json', 'slack', 'teams'] as const;

export const ZCreateWebhook = z
  .object({
    name: z.string().trim().min(1, 'is required').max(100, 'is at most 100 characters'),
    url: z.string().trim().min(1, 'is required').max(2000, 'is at most 2000 characters').describe('http:// or https://, no credentials'),
    events: z.array(z.enum(WEBHOOK_EVENTS, { error: `must be one of ${WEBHOOK_EVENTS.join(', ')}` })).min(1, 'must name at least one event').max(WEBHOOK_EVENTS.length),
    /** The signing secret; generated (and returned once) when not given. */
    secret: z.string().min(16, 'must be at least 16 characters').max(200, 'is at most 200 characters').optional().describe('Generated when absent; returned once'),
    slack: z.boolean().optional().describe('Send Slack bodies (same as format: slack)'),
    /** Issue 29: json (the signed envelope, default), slack (`text` + `blocks`) or teams (an Adaptive Card message). `slack: true` means slack. */
    format: z
      .enum(WEBHOOK_FORMATS, { error: `must be one of ${WEBHOOK_FORMATS.join(', ')}` })
      .optional()
      .describe('Issue 29: json (the signed envelope with an absolute `url` to the request and its `changes`), slack (`text` + `blocks`: facts, change summary, a button to the request) or teams (a message with an Adaptive Card: FactSet, changes, Action.OpenUrl)'),
    /**
     * Issue 28: deliver even to loopback, link-local, private or unspecified addresses (an explicit admin choice,
     * e.g. a receiver on the same network). Without it such targets are refused, at registration (literal
     * addresses, localhost) and on every delivery (what the name resolves to).
     */
    allow_private_targets: z.boolean().optional().describe('Deliver even to loopback, link-local, private or unspecified addresses (refused otherwise, at registration and on every delivery)'),
  })
  .strict()
  .refine((b) => !(b.slack && b.format && b.format !== 'slack'), { path: ['format'], message: 'must be slack (or left out) when slack is true' });
