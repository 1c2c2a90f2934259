/**
 * Issue 48: the webhook events of the dependents feature (named as the others: `<subject>.<what happened>`).
 * `dependents.rebuilt`: dependents of a policy were rebuilt on the revision a stage runs (who, what, the include
 * change that caused it, those not rebuilt and why); `dependents.promoted`: a policy and its dependents moved into
 * the next stage together. Each pointer move also sends its own `promotion.applied`.
 */
export const DEPENDENTS_EVENT_NAMES = ['dependents.rebuilt', 'dependents.promoted'] as const;
