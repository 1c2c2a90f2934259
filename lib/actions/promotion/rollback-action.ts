'use server';

import { ZRollbackInput, rollback } from '@/lib/services/promotion';
import { serviceAction } from '../safe-action';

export const rollbackAction = serviceAction({ input: ZRollbackInput.omit({ requestId: true }), run: rollback, revalidate: ['/', 'layout'] });
