/** Chef search: the query language, Chef's field expansion and the reference matcher (issue 25). */
export * from './parse';
export * from './expand';
export * from './match';
