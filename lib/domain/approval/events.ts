/** Events a webhook subscription can choose (issue 15). */
export const WEBHOOK_EVENT_NAMES = [
  'request.opened',
  'request.approved',
  'request.rejected',
  'request.applied',
  'request.outdated',
  'promotion.applied',
  'freeze.started',
  'freeze.overridden',
  'revision.marked_bad',
] as const;
