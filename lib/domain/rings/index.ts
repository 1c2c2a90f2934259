/** Canary rings inside a stage (issue 30): which nodes of a stage run a ringed rollout's revision. Pure. */
export * from './ring';
export * from './plan';
export * from './events';
