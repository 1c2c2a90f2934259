/** Rollout health, promotion gates and automatic rollback arithmetic (issue 26). Pure. */
export * from './health';
export * from './gate';
export * from './rollback';
export * from './events';
export * from './checks';
export * from './automation';
