/** Pure engines: no I/O, no clock, no randomness. The named exports are a public contract. */
export * from './shared';
export * from './lock';
export * from './diff';
export * from './promote';
export * from './ordering';
export * from './resource-map';
export * from './merge';
export * from './approval';
export * from './import';
