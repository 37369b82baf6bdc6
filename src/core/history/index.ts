/** History budgets: the per-result cap, multi-part splits, estimation and the global guard. */
export * from './types';
export * from './budget';
export * from './truncate';
export * from './estimate';
export * from './guard';
