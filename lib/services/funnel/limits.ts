/** The document limits live with the other input rules (lib/validation/limits); re-exported for the services. */
export * from '@/lib/validation/limits';
